package dev.verbatim.objects.internal;

import dev.verbatim.rpc.RemoteException;
import dev.verbatim.rpc.internal.Binding;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * This base's hold on another base's object: the state behind one proxy (docs/objects.md §3). It carries
 * the weight of every reference to the object that arrived here since the proxy was made; sending the
 * object on splits it (half goes, half stays: no message), and when the proxy is released or becomes
 * unreachable the rest goes home in one message.
 *
 * <p>Invariants: the weight is positive while the proxy is usable (a proxy that would be left with none
 * refills from the owner first, see {@link ObjectSpace}); adding never overflows (an arrival that would is
 * refused as forged), and at most {@link #HIGH_WATER} after an arrival is
 * taken in; after {@link #takeAll} the proxy is released and every call fails.
 *
 * <p>Thread-safe: the weight and what goes with it change under its base's {@link Ledger}'s monitor, which
 * every change of a hold's weight holds anyway, to count it (one monitor on the path of a reference sent or
 * received, not two: an uncontended monitor costs a reference ~20 ns a side here); the bindings are replaced
 * racily, each one valid.
 */
final class Held {
    final long owner;
    final int id;
    final List<String> addresses;
    final List<String> interfaces;
    /** The addresses and interfaces as they travel: encoded once, copied into every reference sent, matched on arrival. */
    final ReferenceDescriptor.Strings strings;
    /** The type this hold's references last travelled {@link ReferenceDescriptor#DECLARED} as (racy: a hint). */
    private Class<?> declaredAs;
    /** The interfaces of the proxy, in the proxy class's order; their bindings, made on the first call. */
    final Class<?>[] types;
    private final Binding[] bindings;
    private long weight;
    private volatile boolean released;
    /**
     * The weight below which this hold asks ahead: {@link #LOW_WATER} once it had that much, {@link #SMALL_WATER} once
     * it had that much (a reference forwarded to this base brings at most {@link #FORWARD_MAX}), else 0: a small grant
     * never asks ahead, and its arithmetic stays exact.
     */
    private long askBelow;
    /** A refill asked ahead of need is under way ({@link #wantsRefill}). */
    private boolean refilling;
    /**
     * A split just left this hold below {@link #askBelow} and started a refill ({@code refilling}) that nobody has
     * asked for yet ({@link #wantsRefill}): volatile, so the splits that leave none to ask for take no lock for it.
     */
    private volatile boolean refillDue;

    /** Its base's count of exhausted holds ({@link HoldWeights#exhausted()}), this one counted while {@link #low}. */
    private final AtomicInteger exhausted;
    /** Its base's ledger: the monitor its weight changes under. */
    private final Object lock;
    /** Whether this hold is counted in {@link #exhausted}. Under the lock. */
    private boolean low;

    /**
     * The most a reference sent on takes of a hold: half of it, up to this. A hold of the default grant (2^40) then
     * asks its owner for more once in 65,536 forwards ({@link #LOW_WATER}), where halving asked every 24 and a cap of
     * 2^32 every 271: a refill is a round trip to the owner over a connection idle in between (both ends parked:
     * a wake-up each), on a thread started for it. With 2^32, a holder forwarding one reference on and on (the objects
     * suite's {@code shm/forward-ref}, ~0.5 us a forward) asked ahead 16 forwards (~8 us) before it ran out, less than
     * such a round trip can take (it wakes two parked threads), and then the forward that found the hold exhausted asked
     * for a grant itself, on the call's path. A receiver can still split 2^24 24 times.
     */
    static final long FORWARD_MAX = 1L << 24;

    /**
     * Weight below which a hold that had more asks its owner for another grant ahead of need, on a thread of its
     * own, so that forwarding the object on and on never waits for the owner ({@link #wantsRefill}): 16,384 forwards of
     * {@link #FORWARD_MAX} (then 24 halvings) before a refill would have to wait, some milliseconds even at half a
     * microsecond a forward: time enough for a round trip to an owner whose connection sleeps, on two busy CPUs (with
     * 1,024 forwards of slack, three bases in one JVM still ran out now and then). With the default grant, the
     * 49,153rd split asks; the grants asked stay one per 2^40 forwarded.
     */
    static final long LOW_WATER = FORWARD_MAX << 14;

    /**
     * Weight below which a hold that had more, but never {@link #LOW_WATER}, asks ahead: a hold that came by a forward
     * ({@link #FORWARD_MAX} or several) or of a small grant, forwarded on in turn, asks after 8 halvings of 2^24 with 16
     * left, as every hold did before {@link #LOW_WATER} (a relay asking at half of what it got would message the owner
     * after two forwards).
     */
    static final long SMALL_WATER = 1L << 16;

    /**
     * A hold above this sends all but {@link #KEEP} home at once ({@link #add}). Every reference an owner sends
     * carries a fresh grant, so a base that receives one object again and again (a getter called in a loop) would
     * otherwise add them up until the owner's count of weight outstanding, at most 2^63 - 1, is full (2^23 grants
     * of the default 2^40) and the owner refuses to send the object again. With this, an owner's count is at most
     * about 2^47 per holder (plus what is in flight): it fills only with some 65,000 holders. Above the largest
     * grant ({@link dev.verbatim.objects.BaseOptions}: 2^44), so an arrival from the owner does not send home at
     * once what it brought; with the default grant, one message home every 64 arrivals at most.
     */
    static final long HIGH_WATER = 1L << 47;
    /** What a hold keeps when it sends its excess home ({@link #HIGH_WATER}): far above {@link #LOW_WATER}. */
    static final long KEEP = 1L << 46;

    /**
     * A hold counted in {@code exhausted} (its base's, {@link HoldWeights#exhausted()}) while it is exhausted, its weight
     * changed under {@code lock}'s monitor (its base's ledger).
     */
    Held(Reference r, Class<?>[] types, AtomicInteger exhausted, Object lock) {
        this.exhausted = exhausted;
        this.lock = lock;
        this.owner = r.owner();
        this.id = r.id();
        this.addresses = r.addresses();
        this.interfaces = r.interfaces();
        this.strings = ReferenceDescriptor.Strings.of(addresses, interfaces);
        this.types = types;
        this.bindings = new Binding[types.length];
        this.weight = r.weight();
        raised();
        lowered();
    }

    /**
     * Whether a reference to this object travels {@link ReferenceDescriptor#DECLARED} where {@code declared} is declared
     * ({@link ReferenceDescriptor#declares}): the type a reference to it travels as is mostly the same each time,
     * remembered so that the names are compared once.
     */
    boolean declares(Class<?> declared) {
        if (declared != null && declared == declaredAs) {
            return true;
        }
        if (ReferenceDescriptor.declares(interfaces, declared)) {
            declaredAs = declared;
            return true;
        }
        return false;
    }

    /** Counts this hold in or out of its base's {@link #exhausted} as it is now. Under the lock (or in the constructor). */
    private void countLow() {
        boolean now = weight < 2 && !released;
        if (now != low) {
            low = now;
            exhausted.getAndAdd(now ? 1 : -1);
        }
    }

    /** The weight went up (or was set): where this hold asks ahead from now on ({@link #askBelow}). Under the lock. */
    private void raised() {
        if (weight >= LOW_WATER) {
            askBelow = LOW_WATER;
        } else if (weight >= SMALL_WATER && askBelow < SMALL_WATER) {
            askBelow = SMALL_WATER;
        }
        countLow();
    }

    /**
     * The weight went down (or was set): notes a hold with less than 2, and whether to ask the owner for more ahead of
     * need (this hold is below {@link #askBelow} and no such refill is under way). Under the lock (or in the
     * constructor).
     */
    private void lowered() {
        countLow();
        if (!refilling && !released && weight < askBelow) {
            refilling = true;
            refillDue = true;
        }
    }

    /**
     * Adds the weight of another reference to the object that arrived; a hold that passes {@link #HIGH_WATER} keeps
     * {@link #KEEP} and returns the rest, for the caller to send home. Under the lock.
     *
     * @return -1 if this hold was released (the arrival makes a new proxy); else the weight to send home, mostly 0
     * @throws IllegalArgumentException if the sum overflows (a forged weight)
     */
    long add(long w) {
        assert Thread.holdsLock(lock);
        if (released) {
            return -1;
        }
        if (weight > Long.MAX_VALUE - w) {
            throw new IllegalArgumentException("a reference to object #" + id + " of " + BaseIds.name(owner)
                    + " whose weight overflows what this base holds");
        }
        weight += w;
        raised();
        return trim();
    }

    /**
     * What this hold sends home: all but {@link #KEEP} if it has more than {@link #HIGH_WATER} (taken off now), else 0.
     * Under the lock.
     */
    private long trim() {
        if (weight <= HIGH_WATER) {
            return 0;
        }
        long excess = weight - KEEP;
        weight = KEEP;
        return excess;
    }

    /**
     * The weight this hold sends home as it is made ({@link #trim}): a reference that arrived with more than
     * {@link #HIGH_WATER}. Under the lock.
     */
    long excess() {
        assert Thread.holdsLock(lock);
        return trim();
    }

    /**
     * Whether to ask the owner for more weight now, ahead of need: this hold fell below {@link #askBelow}, and no such
     * refill is under way (then one is, until {@link #refilled}).
     */
    boolean wantsRefill() {
        if (!refillDue) {
            return false;
        }
        synchronized (lock) {
            if (!refillDue) {
                return false; // (another thread asks)
            }
            refillDue = false;
            return true;
        }
    }

    /** The refill {@link #wantsRefill} started is over (granted or failed). */
    void refilled() {
        synchronized (lock) {
            refilling = false;
        }
    }

    /**
     * Half the weight (rounded down), at most {@link #FORWARD_MAX}, to send with a reference; 0 if only 1 is left (it
     * must refill first). Under the lock.
     */
    long split() {
        return weight < 2 ? 0 : give();
    }

    /** As {@link #split}, but possibly 0, for a reference going home, where none is needed. Under the lock. */
    long splitHome() {
        return give();
    }

    /** Takes half the weight, at most {@link #FORWARD_MAX}, off the hold. Under the lock. */
    private long give() {
        assert Thread.holdsLock(lock);
        long give = Math.min(weight >>> 1, FORWARD_MAX);
        weight -= give;
        lowered();
        return give;
    }

    /** Whether sending the object on now would need more weight first. */
    boolean exhausted() {
        synchronized (lock) {
            return weight < 2 && !released;
        }
    }

    /** The weight held now. */
    long weight() {
        synchronized (lock) {
            return weight;
        }
    }

    /** Releases the hold: all its weight, to give back (0 if it was released already). Under the lock. */
    long takeAll() {
        assert Thread.holdsLock(lock);
        if (released) {
            return 0;
        }
        released = true;
        long w = weight;
        weight = 0;
        countLow();
        return w;
    }

    boolean released() {
        return released;
    }

    Binding binding(int i) {
        return bindings[i];
    }

    void binding(int i, Binding b) {
        bindings[i] = b;
    }

    void check() {
        if (released) {
            throw new RemoteException(RemoteException.Reason.NOT_FOUND, this + " was released");
        }
    }

    @Override
    public String toString() {
        return "shared object #" + Integer.toUnsignedString(id) + " of " + BaseIds.name(owner);
    }
}
