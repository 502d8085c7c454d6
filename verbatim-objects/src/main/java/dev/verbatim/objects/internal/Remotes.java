package dev.verbatim.objects.internal;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.util.List;

/**
 * What {@code RemoteBase} does with a peer: construction, static calls and names on another base, with
 * the arguments encoded as the chosen constructor or method declares them ({@link Arguments}).
 */
public final class Remotes {
    private Remotes() {}

    public static long incarnation(Object peer) {
        return ((Peers.Peer) peer).incarnation;
    }

    public static List<String> addresses(Object peer) {
        return ((Peers.Peer) peer).addresses;
    }

    private static Peers.Peer connected(ObjectSpace space, Object peer) {
        Peers.Peer p = (Peers.Peer) peer;
        space.peers().endpoint(p.incarnation, p.addresses); // reconnects if needed; GONE if it is not that base any more
        return p;
    }

    public static Object construct(ObjectSpace space, Object peer, Class<?> type, Object[] args) {
        Constructor<?> k = Construction.pickConstructor(type, args);
        space.refillArguments(args);
        Peers.Peer p = connected(space, peer);
        byte[] a = Arguments.encode(space, k.getParameterTypes(), args, p.group[0]);
        return p.service.construct(type.getName(), Construction.signature(k), a);
    }

    public static Object invokeStatic(ObjectSpace space, Object peer, Class<?> type, String method, Object[] args) {
        Method m = Construction.pickStatic(type, method, args);
        space.refillArguments(args);
        Peers.Peer p = connected(space, peer);
        byte[] a = Arguments.encode(space, m.getParameterTypes(), args, p.group[0]);
        byte[] r = p.service.invokeStatic(type.getName(), Construction.signature(m), a);
        if (m.getReturnType() == void.class) {
            return null;
        }
        return Arguments.decode(space, new Class<?>[] {m.getReturnType()}, r)[0];
    }

    public static Object named(Object peer, String name) {
        return ((Peers.Peer) peer).service.named(name);
    }
}
