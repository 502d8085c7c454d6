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
     * the innermost one of each, in the chain's {@link Waits}. A chain runs on one thread per node (its nested calls go
     * to its waiting caller), so these nest as that thread's calls do ({@link #enter}, {@link #leave}). The chain's
     * prefix names the endpoint that started it only if this node did, and that endpoint's caller may be an
     * outer one that waits for the inner: the innermost wait is the one that reads its inbox.
     */
    private final Map<Long, Waits> nested = new ConcurrentHashMap<>();

    /**
     * One chain's nested waits at this node: the innermost, each one entered hiding the one before ({@link
     * PendingCall#hides}). Entered and left with one compare-and-set on {@link #innermost}, not a map update: a walk
     * over bases nests a call per element, and the two map updates each nested call made (a put, then a replace)
     * cost it ~60 ns (a locked bin and a count each). In the map while a wait is entered, found there by a
     * call of the chain that arrives; the thread that runs the chain here keeps the one it entered last
     * ({@link CallContext#waits}), so its next nested call need not look it up.
     *
     * <p>The wait that leaves last turns {@link #innermost} from none to {@link #GONE} (a compare-and-set, as every
     * change of it is), then takes the waits out of the map; a thread that finds them {@code GONE} looks the chain up
     * again. So a wait is never entered in waits the map lost: whether the last one left, or another entered first, is
     * decided on the one field.
     */
    static final class Waits {
        private static final java.lang.invoke.VarHandle INNERMOST;
        /** What {@link #innermost} is once the waits are out of the map (a wait no call is ever for). */
        static final PendingCall GONE = new PendingCall(null, 0, null, 0, 0, null);

        static {
            try {
                INNERMOST = java.lang.invoke.MethodHandles.lookup().findVarHandle(Waits.class, "innermost", PendingCall.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        /** The directory whose map it is in (a thread's hint may be another node's of the same JVM). */
        final ChainDirectory directory;
        final long chain;
        final Long key;
        volatile PendingCall innermost;

        Waits(ChainDirectory directory, long chain, Long key) {
            this.directory = directory;
            this.chain = chain;
            this.key = key;
        }

        boolean swap(PendingCall expected, PendingCall p) {
            return INNERMOST.compareAndSet(this, expected, p);
        }
    }

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

    /** The chain's waits, or null when none is entered (what {@link #innermost} looks up). */
    Waits waitsOf(long chain) {
        return nested.get(chain);
    }

    /** How many chains have a wait entered here. */
    int waitingChains() {
        return nested.size();
    }

    /** The innermost of the nested waits in {@code chain} (a caller that carries it from an incoming call), or null. */
    PendingCall innermost(long chain) {
        Waits w = nested.isEmpty() ? null : waitsOf(chain);
        PendingCall p = w == null ? null : w.innermost;
        return p == null || p == Waits.GONE || p.left || p.isDone() ? null : p;
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
     * the second): {@code p} is the chain's innermost wait here until {@link #leave}, hiding the one before
     * ({@link PendingCall#hides}). {@code known}: the chain's waits as the calling thread entered them last, or null.
     *
     * @return the chain's waits {@code p} was entered in, to {@link #leave} with
     */
    Waits enter(PendingCall p, Waits known) {
        Waits w = known != null && known.directory == this && known.chain == p.chain ? known : null;
        while (true) {
            if (w == null) {
                Long key = p.chain;
                w = nested.get(key);
                if (w == null) {
                    Waits fresh = new Waits(this, p.chain, key);
                    w = nested.putIfAbsent(key, fresh);
                    if (w == null) {
                        w = fresh;
                    }
                }
            }
            PendingCall outer = w.innermost;
            if (outer == Waits.GONE) {
                nested.remove(w.key, w); // its last wait left (and takes it out, if this thread does not first)
                w = null; // the chain's next waits are looked up
                continue;
            }
            p.hides = outer; // (before it is published)
            if (w.swap(outer, p)) {
                return w;
            } // else another thread of the chain entered or left (a chain that forked: a caller timed out): again
        }
    }

    /**
     * {@code p}'s caller stopped waiting: the wait it hid is the chain's innermost again ({@code w}: {@link #enter}'s),
     * or the first below it that has not left. A wait that left out of turn (a chain that forked: a caller timed out,
     * or its send failed and its call never completed) is never the innermost again: nothing would run what a call
     * coming back hands it. The wait is marked as left before it is taken out, and what is put back is looked at again
     * after: a wait below that left meanwhile (its own swap failed, as this one was above it) is skipped then.
     */
    void leave(PendingCall p, Waits w) {
        p.left = true;
        PendingCall outer = below(p);
        if (!w.swap(p, outer)) {
            return; // not the innermost (a chain that forked): the one above it skips it when it leaves
        }
        while (outer != null && outer.left) { // (it left as this one was being taken out)
            PendingCall next = below(outer);
            if (!w.swap(outer, next)) {
                return;
            }
            outer = next;
        }
        if (outer == null && w.swap(null, Waits.GONE)) {
            nested.remove(w.key, w); // the last wait left (unless another entered first: then it stays, that one's)
        }
    }

    /** The first wait {@code p} hides that has not left, or null. */
    private static PendingCall below(PendingCall p) {
        PendingCall o = p.hides;
        while (o != null && o.left) {
            o = o.hides;
        }
        return o;
    }
}
