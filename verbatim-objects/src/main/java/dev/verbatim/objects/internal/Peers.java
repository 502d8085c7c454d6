package dev.verbatim.objects.internal;

import dev.verbatim.rpc.RemoteException;
import dev.verbatim.rpc.RemoteException.Reason;
import dev.verbatim.rpc.internal.Endpoint;
import dev.verbatim.rpc.internal.NodeAccess;
import dev.verbatim.rpc.internal.RemoteInterface;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The other bases this base talks to (docs/objects.md §2), by incarnation: the connection to each, made
 * when first needed (the first call on one of its objects, a weight going home) at the first of its
 * addresses that answers, and used only once the base there says it is that incarnation. A base found
 * gone (another incarnation answers at its address) stays gone: every call to its objects fails at once
 * with {@link Reason#GONE}; one that cannot be reached fails the same way, and is tried again next time.
 *
 * <p>Thread-safe: one lock per peer while it connects.
 */
final class Peers {
    private static final RemoteInterface SERVICE = RemoteInterface.of(BaseService.class);

    /** One other base. */
    static final class Peer {
        final long incarnation;
        volatile List<String> addresses;
        volatile Endpoint[] group;
        volatile BaseService service;
        /** Why the base is gone for good, or null. */
        volatile String gone;

        Peer(long incarnation, List<String> addresses) {
            this.incarnation = incarnation;
            this.addresses = addresses;
        }

        boolean open() {
            Endpoint[] g = group;
            return g != null && g[0].isOpen();
        }
    }

    private final Map<Long, Peer> byId = new ConcurrentHashMap<>();
    private final Map<Endpoint, Peer> byEndpoint = new ConcurrentHashMap<>();
    private final ObjectSpace space;

    Peers(ObjectSpace space) {
        this.space = space;
    }

    /** An open connection to base {@code owner}, found at one of {@code addresses}. */
    Endpoint endpoint(long owner, List<String> addresses) {
        return connect(owner, addresses).group[0];
    }

    /** The base service of base {@code owner}, found at one of {@code addresses}. */
    BaseService service(long owner, List<String> addresses) {
        return connect(owner, addresses).service;
    }

    /** Whether {@code e} is a connection this base made to base {@code owner}. */
    boolean leadsTo(Endpoint e, long owner) {
        Peer p = byEndpoint.get(e);
        return p != null && p.incarnation == owner;
    }

    /** The base at {@code address}, whatever its incarnation (the paper's getBase). */
    Peer atAddress(String address) {
        Endpoint[] g = NodeAccess.nodes().connect(space.node(), address);
        BaseService s = (BaseService) g[0].lookup(BaseService.NAME, SERVICE, space.options().timeout(), g);
        long inc = s.incarnation();
        List<String> addresses = List.of(s.addresses().split("\n"));
        Peer p = byId.computeIfAbsent(inc, i -> new Peer(i, addresses));
        synchronized (p) {
            if (!p.open()) {
                use(p, g, s);
            }
        }
        return p;
    }

    private Peer connect(long owner, List<String> addresses) {
        Peer p = byId.computeIfAbsent(owner, i -> new Peer(i, addresses));
        if (p.open() && p.gone == null) {
            return p;
        }
        synchronized (p) {
            if (p.gone != null) {
                throw gone(p, p.gone);
            }
            if (p.open()) {
                return p;
            }
            RemoteException last = null;
            for (String a : p.addresses) {
                try {
                    Endpoint[] g = NodeAccess.nodes().connect(space.node(), a);
                    BaseService s = (BaseService) g[0].lookup(BaseService.NAME, SERVICE, space.options().timeout(), g);
                    long inc = s.incarnation();
                    if (inc != owner) {
                        p.gone = "another base (" + BaseIds.name(inc) + ") answers at " + a;
                        throw gone(p, p.gone);
                    }
                    use(p, g, s);
                    return p;
                } catch (RemoteException e) {
                    if (e.reason() == Reason.GONE) {
                        throw e;
                    }
                    last = e;
                }
            }
            throw gone(p, "it cannot be reached at " + p.addresses + (last == null ? "" : ": " + last.getMessage()));
        }
    }

    private void use(Peer p, Endpoint[] g, BaseService s) {
        Endpoint[] old = p.group;
        if (old != null) {
            byEndpoint.remove(old[0], p);
        }
        p.service = s;
        p.group = g;
        byEndpoint.put(g[0], p);
    }

    private static RemoteException gone(Peer p, String why) {
        return new RemoteException(Reason.GONE, BaseIds.name(p.incarnation) + " is gone: " + why);
    }

    /** Whether base {@code owner} is known to be gone for good. */
    boolean isGone(long owner) {
        Peer p = byId.get(owner);
        return p != null && p.gone != null;
    }
}
