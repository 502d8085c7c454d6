package dev.verbatim.rpc.internal;

import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The endpoints of one node by the prefix of the chains their calls start (docs/rpc.md §4): so that a
 * call arriving over one connection, nested in a chain a caller of another connection of the same node
 * waits in (A calls B, B calls C, C calls A), runs on that waiting caller, as a call nested over one
 * connection does. Only nodes that ask for it have one (the object layer's bases): a plain node matches
 * chains per connection and pays nothing here.
 *
 * <p>A chain a connection starts is its <em>salt</em> XOR the call id. A salt is a prefix (the high
 * {@value #PREFIX_BITS} bits), unique among the node's open endpoints, then {@code 64 - PREFIX_BITS}
 * random bits; call ids stay below {@code 2^(64 - PREFIX_BITS)}, so the prefix of a chain names the
 * endpoint whose caller started it. A foreign chain that happens to carry one of our prefixes names
 * no waiting caller unless all 64 bits match a live chain of ours, as with any salt.
 *
 * <p>Thread-safe.
 */
public final class ChainDirectory {
    /** The bits of a chain that name the endpoint that started it. */
    static final int PREFIX_BITS = 24;
    private static final SecureRandom SEEDS = new SecureRandom();

    private final Map<Long, Endpoint> byPrefix = new ConcurrentHashMap<>();
    /**
     * Callers of this node waiting in a chain they carry from an incoming call (a nested call), by chain:
     * the innermost one of each. A chain runs on one thread per node (its nested calls go to its waiting
     * caller), so these nest as that thread's calls do ({@link #enter}, {@link #leave}). The chain's prefix
     * names the endpoint that started it only if this node did, and that endpoint's caller may be an
     * outer one that waits for the inner: the innermost wait is the one that reads its inbox.
     */
    private final Map<Long, PendingCall> nested = new ConcurrentHashMap<>();

    /**
     * Nested calls another thread read and handed to the thread waiting in their chain: each cost that
     * thread a wake-up. A thread waiting in a chain reads the connection its chain came back over itself
     * (docs/rpc.md §4), so in a walk that bounces between bases only a chain's first return to a base
     * should be handed over; what {@code ChainHopsTest} checks.
     */
    private final LongAdder handedOver = new LongAdder();

    /** A nested call was handed to the thread waiting in its chain (another thread read it). */
    void handedOver() {
        handedOver.increment();
    }

    /** How many nested calls were handed to the thread waiting in their chain so far. */
    long handOvers() {
        return handedOver.sum();
    }

    /** A salt of the form a chain directory reads: its prefix names nothing (yet). */
    static long randomSalt() {
        return SEEDS.nextLong();
    }

    /** Enters {@code e} under a prefix no other open endpoint of the node has; the salt of its chains. */
    long register(Endpoint e) {
        while (true) {
            long salt = SEEDS.nextLong();
            if (byPrefix.putIfAbsent(salt >>> (64 - PREFIX_BITS), e) == null) {
                return salt;
            }
        }
    }

    /** {@code e} closed: its prefix is free again. */
    void unregister(Endpoint e, long salt) {
        byPrefix.remove(salt >>> (64 - PREFIX_BITS), e);
    }

    /** The innermost of the nested waits in {@code chain} (a caller that carries it from an incoming call), or null. */
    PendingCall innermost(long chain) {
        PendingCall p = nested.isEmpty() ? null : nested.get(chain);
        return p == null || p.isDone() ? null : p;
    }

    /**
     * A synchronous caller of the endpoint that started {@code chain}, other than {@code except}, waiting in it, or
     * null: where a chain's first caller waits (the nested waits are {@link #innermost}'s, looked at first).
     * Costs a map lookup.
     */
    PendingCall waitingIn(long chain, Endpoint except) {
        Endpoint e = byPrefix.get(chain >>> (64 - PREFIX_BITS));
        if (e == null || e == except) {
            return null;
        }
        CallTable t = e.calls();
        return t.isEmpty() ? null : t.waitingIn(chain);
    }

    /**
     * {@code p}'s caller waits in a chain it carries from an incoming call (A calls B, B's call calls A,
     * which calls B again over the first connection: B's nested call must find the caller that waits over
     * the second); the outer wait it hides, to give back to {@link #leave}.
     */
    PendingCall enter(PendingCall p) {
        return nested.put(p.chain, p);
    }

    /** {@code p}'s caller stopped waiting: {@code outer} (what {@link #enter} returned) is the chain's caller again. */
    void leave(PendingCall p, PendingCall outer) {
        if (outer == null) {
            nested.remove(p.chain, p);
        } else {
            nested.replace(p.chain, p, outer);
        }
    }
}
