package dev.verbatim.objects.internal;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.util.List;

/**
 * Another base as {@code RemoteBase} uses it: its id and addresses, and construction, static calls and
 * names there, with the arguments encoded as the chosen constructor or method declares them
 * ({@link Arguments}). Every operation first makes sure the connection leads to that very incarnation
 * ({@code GONE} if not). Thread-safe.
 */
public final class BaseHandle {
    private final ObjectSpace space;
    private final Peers.Peer peer;

    BaseHandle(ObjectSpace space, Peers.Peer peer) {
        this.space = space;
        this.peer = peer;
    }

    public long incarnation() {
        return peer.incarnation;
    }

    public List<String> addresses() {
        return peer.addresses;
    }

    /** The base's service, over a connection checked to lead to this incarnation (reconnecting if needed). */
    private BaseService service() {
        return space.peers().service(peer.incarnation, peer.addresses);
    }

    /** A new object of {@code type} there, by the one public constructor that takes {@code args}. */
    public Object construct(Class<?> type, Object[] args) {
        Constructor<?> k = Construction.pickConstructor(type, args);
        space.weights().refillArguments(args);
        BaseService s = service();
        byte[] a = Arguments.encode(space, k.getParameterTypes(), args, peer.incarnation);
        return s.construct(space.id(), type.getName(), Construction.signature(k), a);
    }

    /** Runs there the one public static method {@code name} of {@code type} that takes {@code args}; its result. */
    public Object invokeStatic(Class<?> type, String name, Object[] args) {
        Method m = Construction.pickStatic(type, name, args);
        space.weights().refillArguments(args);
        BaseService s = service();
        byte[] a = Arguments.encode(space, m.getParameterTypes(), args, peer.incarnation);
        byte[] r = s.invokeStatic(space.id(), type.getName(), Construction.signature(m), a);
        return m.getReturnType() == void.class ? null
                : Arguments.decode(space, new Class<?>[] {m.getReturnType()}, r, peer.incarnation)[0];
    }

    /** The object bound under {@code name} there, or null. */
    public Object named(String name) {
        return service().named(name);
    }
}
