package dev.verbatim.objects.internal;

import dev.verbatim.rpc.RemoteException;
import dev.verbatim.rpc.RemoteException.Reason;
import dev.verbatim.rpc.internal.Endpoint;
import dev.verbatim.rpc.internal.NodeAccess;
import dev.verbatim.rpc.internal.RemoteInterface;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The other bases this base talks to (docs/objects.md §2), by incarnation: the connection to each, made
 * when first needed (the first call on one of its objects, a weight going home) at the first of its
 * addresses that answers, and used only once the base there says it is that incarnation. A base found
 * gone (another incarnation answers at its address) stays gone: every call to its objects fails at once
 * with {@link Reason#GONE}; one that cannot be reached fails the same way, and is tried again next time.
 *
 * <p>Every connection's far end is known by incarnation (docs/objects.md §7): a connection this base makes
 * is checked by the handshake, which ends with this base introducing itself ({@link BaseService#hello});
 * a connection another base made is attributed when that introduction arrives ({@link #introduced}). A base
 * <em>declared dead</em> ({@link #declareDead}) is gone for good, its connections are closed, and nothing
 * that arrives from it is accepted any more.
 *
 * <p>Thread-safe: one lock per peer while it connects.
 */
final class Peers {
    private static final RemoteInterface SERVICE = RemoteInterface.of(BaseService.class);
    private static final RemoteInterface WEIGHT = RemoteInterface.of(WeightService.class);

    /** One other base. */
    static final class Peer {
        final long incarnation;
        volatile List<String> addresses;
        /** The connection to it and its base service over that connection (null: looked up when first needed); or null. */
        volatile Link link;
        /** A connection apart, for weight requests only (see {@link #grants}), and its service; or null. */
        volatile Endpoint apart;
        volatile WeightService apartService;
        /** Why the base is gone for good, or null. */
        volatile String gone;
        /**
         * The bases whose addresses this one was given in a reference and read (it answered the call that carried
         * it), so it knows them (a base never forgets another): references to their objects go there without them.
         */
        final Set<Long> told = ConcurrentHashMap.newKeySet();
        /** The owner {@link #wasTold} found last in {@link #told} (a hint: a base mostly forwards one base's objects). */
        volatile long lastTold;

        Peer(long incarnation, List<String> addresses) {
            this.incarnation = incarnation;
            this.addresses = addresses;
        }

        boolean open() {
            Link l = link;
            return l != null && l.group[0].isOpen();
        }

        /** The connection to it (open or not), or null. */
        Endpoint[] group() {
            Link l = link;
            return l == null ? null : l.group;
        }
    }

    /** A connection to a peer and the peer's base service over it: changed as one, so a service never outlives its connection. */
    record Link(Endpoint[] group, BaseService service) {}

    private static final java.lang.invoke.VarHandle LINK;

    static {
        try {
            LINK = java.lang.invoke.MethodHandles.lookup().findVarHandle(Peer.class, "link", Link.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Map<Long, Peer> byId = new ConcurrentHashMap<>();
    /** The base at the far end of each connection, made by this base or introduced by the other. */
    private final Map<Endpoint, Peer> byEndpoint = new ConcurrentHashMap<>();
    private final Set<Long> dead = ConcurrentHashMap.newKeySet();
    /** The peer {@link #know} found last (a peer is never removed from {@code byId}: racy on purpose, a hint). */
    private volatile Peer lastKnown;
    private final ObjectSpace space;

    Peers(ObjectSpace space) {
        this.space = space;
    }

    /** An open connection to base {@code owner}, found at one of {@code addresses}. */
    Endpoint endpoint(long owner, List<String> addresses) {
        return connect(owner, addresses).group()[0];
    }

    /** The base service of base {@code owner}, found at one of {@code addresses}. */
    BaseService service(long owner, List<String> addresses) {
        return serviceOf(connect(owner, addresses));
    }

    /** {@code p}'s base service over its connection, looked up there first if it came by an introduction. */
    private BaseService serviceOf(Peer p) {
        Link l = p.link;
        if (l.service() != null) {
            return l.service();
        }
        BaseService s = (BaseService) l.group()[0].lookup(BaseService.NAME, SERVICE, space.options().timeout(), l.group());
        LINK.compareAndSet(p, l, new Link(l.group(), s)); // (unless the connection changed meanwhile)
        return s;
    }

    /**
     * The weight service of base {@code owner} ({@link WeightService}) over a connection of its own, used for nothing
     * but weight requests ({@code grant}; quiet on both sides, docs/objects.md §3): a holder that ran out while
     * writing a result (under that connection's send lock) asks over it, so the owner's answer never waits for a
     * send lock another refill holds (two refills crossing, docs/objects.md §3).
     */
    WeightService grants(long owner, List<String> addresses) {
        Peer p = connect(owner, addresses);
        Endpoint e = p.apart;
        if (e != null && e.isOpen()) {
            return p.apartService;
        }
        synchronized (p) {
            if (p.apart == null || !p.apart.isOpen()) {
                String at = p.group()[0].description();
                RemoteException last = null;
                for (String a : p.addresses) {
                    try {
                        Endpoint made = NodeAccess.nodes().connectApart(space.node(), a);
                        made.quiet(); // a request now and then, off every call's path: its readers park, never spin
                        WeightService s = (WeightService) made.lookup(WeightService.NAME, WEIGHT, space.options().timeout(),
                                new Endpoint[] {made});
                        if (s.incarnation() != owner) {
                            made.close();
                            continue;
                        }
                        p.apartService = s;
                        p.apart = made;
                        return s;
                    } catch (RemoteException x) {
                        last = x;
                    }
                }
                throw gone(p, "it cannot be reached at " + p.addresses + " (from " + at + ")"
                        + (last == null ? "" : ": " + last.getMessage()));
            }
            return p.apartService;
        }
    }

    /** The base at the far end of {@code e}, or null if it is not known (or {@code e} is null). */
    Peer at(Endpoint e) {
        return e == null ? null : byEndpoint.get(e);
    }

    /** Base {@code id}, or null if this base does not know it. */
    Peer byId(long id) {
        return id == 0 ? null : byId.get(id);
    }

    /** Whether base {@code to} (may be null) knows the addresses of base {@code owner}: it read them ({@link #told}). */
    static boolean wasTold(Peer to, long owner) {
        if (to == null) {
            return false;
        }
        if (to.lastTold == owner) {
            return true;
        }
        if (to.told.contains(owner)) {
            to.lastTold = owner;
            return true;
        }
        return false;
    }

    /** The base at the far end of {@code over} read the addresses of base {@code owner} (it answered a call carrying them). */
    void told(Endpoint over, long owner) {
        told(at(over), owner);
    }

    /** Base {@code to} (may be null) read the addresses of base {@code owner}. */
    void told(Peer to, long owner) {
        if (to != null && to.incarnation != owner) {
            to.told.add(owner);
        }
    }

    /** The incarnation of the base at the far end of {@code e}; 0 if it is not known (or {@code e} is null). */
    long peerOf(Endpoint e) {
        Peer p = at(e);
        return p == null ? 0 : p.incarnation;
    }

    /**
     * Base {@code id} introduced itself over {@code over}, a connection it made to this base. Unless this base has
     * a connection to it already, its calls to that base go over this one (the connection is used both ways): a
     * call chain that comes back (A calls B, B calls A) then comes back over the connection its first caller reads,
     * which runs it on that caller's thread at once, where a second connection needed its dispatcher to wake and
     * hand the call over (rpc.md §4).
     */
    void introduced(Endpoint over, long id, List<String> addresses) {
        if (dead.contains(id)) {
            throw new IllegalArgumentException(BaseIds.name(id) + " introduced itself, but it was declared dead");
        }
        Peer p = know(id, addresses);
        byEndpoint.put(over, p);
        Link l = p.link;
        if (id != space.id() && (l == null || !l.group()[0].isOpen()) && p.gone == null && over.isOpen()) {
            // without the peer's lock, which a connect to that base holds through its handshake: two bases connecting to
            // each other at once would each wait in the other's hello (the service is looked up when first needed)
            LINK.compareAndSet(p, l, new Link(new Endpoint[] {over}, null));
        }
    }

    /** The peer {@code id} (found at {@code addresses}), entered if it is new: a base a reference named. */
    Peer know(long id, List<String> addresses) {
        Peer p = lastKnown; // (every reference read asks: most name the base the one before named)
        if (p != null && p.incarnation == id) {
            return p;
        }
        p = byId.get(id);
        p = p != null ? p : byId.computeIfAbsent(id, i -> new Peer(i, addresses));
        lastKnown = p;
        return p;
    }

    /** The addresses base {@code id} (known here) listens at. */
    List<String> addressesOf(long id) {
        Peer p = byId.get(id);
        return p == null ? List.of() : p.addresses;
    }

    /** Forgets which base {@code e} led to (it closed); that base's id, or 0. */
    long closed(Endpoint e) {
        Peer p = byEndpoint.remove(e);
        return p == null ? 0 : p.incarnation;
    }

    /** The base at {@code address}, whatever its incarnation (the paper's getBase). */
    Peer atAddress(String address) {
        Endpoint[] g = NodeAccess.nodes().connect(space.node(), address);
        BaseService s = (BaseService) g[0].lookup(BaseService.NAME, SERVICE, space.options().timeout(), g);
        long inc = s.incarnation();
        List<String> addresses = List.of(s.addresses().split("\n"));
        Peer p = byId.computeIfAbsent(inc, i -> new Peer(i, addresses));
        synchronized (p) {
            if (p.gone != null) {
                throw gone(p, p.gone);
            }
            if (!p.open()) {
                byEndpoint.put(g[0], p); // (before the hello, as in connect)
                s.hello(new Introduction(space.id(), space.addresses()));
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
                    byEndpoint.put(g[0], p); // (before the hello: the peer may call over it as soon as it has read it)
                    s.hello(new Introduction(space.id(), space.addresses()));
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
        Endpoint[] old = p.group();
        if (old != null && !old[0].isOpen()) {
            byEndpoint.remove(old[0], p); // (an open one, adopted meanwhile, still leads to p)
        }
        p.link = new Link(g, s);
        byEndpoint.put(g[0], p);
        NodeAccess.watch(g[0]); // read when idle, so a death is seen at once (docs/objects.md §7)
    }

    private static RemoteException gone(Peer p, String why) {
        return new RemoteException(Reason.GONE, BaseIds.name(p.incarnation) + " is gone: " + why);
    }

    /** Whether base {@code owner} is known to be gone for good. */
    boolean isGone(long owner) {
        Peer p = byId.get(owner);
        return p != null && p.gone != null || dead.contains(owner);
    }

    /** Whether base {@code id} was declared dead here. */
    boolean isDead(long id) {
        return !dead.isEmpty() && dead.contains(id); // (no box, no hash while no base died: every reference asks)
    }

    /** The bases declared dead here. */
    long[] dead() {
        return dead.stream().mapToLong(Long::longValue).toArray();
    }

    /**
     * Declares base {@code id} dead: gone for good, its connections closed (so nothing more arrives from it),
     * and anything still arriving from it refused.
     *
     * @return whether it was not declared dead before
     */
    boolean declareDead(long id) {
        if (!dead.add(id)) {
            return false;
        }
        Peer p = byId.get(id);
        if (p != null) {
            if (p.gone == null) {
                p.gone = "it died (its connections closed and it answers at none of " + p.addresses + ")";
            }
        }
        for (Map.Entry<Endpoint, Peer> e : byEndpoint.entrySet()) {
            if (e.getValue().incarnation == id) {
                e.getKey().closeWith(BaseIds.name(id) + " was declared dead");
            }
        }
        return true;
    }

    /** The other bases known here and not gone: those connected, introduced, or named by a reference. */
    List<Peer> live() {
        List<Peer> out = new ArrayList<>();
        for (Peer p : byId.values()) {
            if (p.gone == null && !dead.contains(p.incarnation) && p.incarnation != space.id()) {
                out.add(p);
            }
        }
        return out;
    }

    /** The base service of peer {@code id} (known here), connecting if needed. */
    BaseService service(long id) {
        Peer p = byId.get(id);
        if (p == null) {
            throw new RemoteException(Reason.GONE, BaseIds.name(id) + " is not known here");
        }
        return service(id, p.addresses);
    }

    /**
     * Whether base {@code id} answers as itself: over the connection this base has to it, or a new one. A
     * base that does not answer in time counts as answering (it may be slow, not dead).
     */
    boolean answers(long id) {
        Peer p = byId.get(id);
        if (p == null || dead.contains(id) || p.gone != null) {
            return false;
        }
        for (int attempt = 0; attempt < 2; attempt++) {
            try {
                return serviceOf(connect(id, p.addresses)).incarnation() == id;
            } catch (RemoteException e) {
                if (e.reason() == Reason.TIMEOUT) {
                    return true;
                }
                if (e.reason() == Reason.GONE) {
                    return false;
                }
                // CONNECTION, NOT_SENT: the connection was found closed; look for the base once more
            }
        }
        return false;
    }
}
