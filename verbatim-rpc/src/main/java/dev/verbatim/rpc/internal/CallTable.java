package dev.verbatim.rpc.internal;

import dev.verbatim.rpc.RemoteException;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The outgoing-call table of one connection (Cap'n Proto's "questions"): every call and lookup this
 * side sent and still waits for, by call id, until its answer is read, it times out, it is cancelled or
 * the connection closes. Exactly one thread removes an entry ({@link #take} by the reader of its answer,
 * {@link #forget} by whoever gives up on it), and only the remover completes it.
 *
 * <p>One synchronous call may wait in the <em>solo slot</em> instead of the map (no boxing, no map node):
 * the common case of one calling thread per connection. The slot is taken and cleared by CAS. A caller
 * waiting in the slot is counted by the slot; every other waiting synchronous caller is counted in
 * {@link #callerWaits} while it waits (the dispatcher steps aside for callers).
 *
 * <p>Thread-safe.
 */
final class CallTable {
    /** At most this many calls wait at once (one less is the limit a new call checks). */
    static final int MAX_OUTSTANDING = 4096;
    private static final VarHandle SOLO;

    static {
        try {
            SOLO = MethodHandles.lookup().findVarHandle(CallTable.class, "solo", PendingCall.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Map<Long, PendingCall> pending = new ConcurrentHashMap<>();
    /** The one synchronous call that waits outside the map, or null. */
    private volatile PendingCall solo;
    private final AtomicLong callIds = new AtomicLong();
    /** Synchronous callers waiting outside the solo slot. */
    private final AtomicInteger callers = new AtomicInteger();
    /**
     * Threads of other connections waiting in a chain that came back over this one, reading it as guests
     * ({@link ReadLeader.Guest}): the dispatcher steps aside for them as for callers, and does not even
     * glance while one reads.
     */
    private final AtomicInteger guests = new AtomicInteger();
    /** Those of {@link #guests} that read now (not running a call). */
    private final AtomicInteger guestsReading = new AtomicInteger();
    /**
     * Callers parked (or about to park) waiting for their answer: the only ones {@link #wakeAnotherCaller}
     * wakes. The other waiting calls are mostly the outer waits of a thread deep in a chain (a walk nests a
     * wait per hop, all of one thread): looking through them after every slice of reading cost a walk more
     * than its calls did.
     */
    private final AtomicInteger parked = new AtomicInteger();
    /**
     * Asynchronous calls in the map (no caller waits for them: the dispatcher times them out, {@link #forEachExpired}).
     * Without any, the dispatcher does not look through the map: in a walk deep in a chain it holds a synchronous wait
     * per hop, and looking through them every 0.1 ms cost both bases ~6% of their samples at 1,000 hops.
     */
    private final AtomicInteger asynchronous = new AtomicInteger();

    /** The id of the next call: 1, 2, 3, ... */
    long nextId() {
        return callIds.incrementAndGet();
    }

    /** Whether a new call would exceed {@link #MAX_OUTSTANDING}. */
    boolean full() {
        return pending.size() >= MAX_OUTSTANDING - 1;
    }

    /**
     * Enters a call: a synchronous one into the solo slot if it is free ({@code p.inSlot} then set),
     * anything else into the map.
     */
    void add(PendingCall p, boolean mayTakeSlot) {
        if (mayTakeSlot && solo == null && SOLO.compareAndSet(this, (PendingCall) null, p)) { // (no CAS bound to fail)
            p.inSlot = true;
        } else {
            if (p.caller == null) {
                asynchronous.incrementAndGet(); // (before it is in the map: a remover's decrement never comes first)
            }
            pending.put(p.id, p);
        }
    }

    /** Removes the call waiting for answer {@code id}, if any: the caller then completes it. */
    PendingCall take(long id) {
        PendingCall s1 = solo;
        if (s1 != null && s1.id == id) {
            return SOLO.compareAndSet(this, s1, (PendingCall) null) ? s1 : null;
        }
        return removed(pending.remove(id));
    }

    /** Stops waiting for {@code p}'s answer; true if this removed it (nobody else completes it then). */
    boolean forget(PendingCall p) {
        if (solo == p) {
            return SOLO.compareAndSet(this, p, (PendingCall) null);
        }
        return pending.remove(p.id, p) && removed(p) != null;
    }

    /** {@code p}, which this thread removed from the map (or null), counted out. */
    private PendingCall removed(PendingCall p) {
        if (p != null && p.caller == null) {
            asynchronous.decrementAndGet();
        }
        return p;
    }

    /** Whether no call waits. */
    boolean isEmpty() {
        return solo == null && pending.isEmpty();
    }

    /** Whether no call waits in the map (the solo slot aside). */
    boolean mapEmpty() {
        return pending.isEmpty();
    }

    /** A caller not in the solo slot starts waiting. */
    void callerWaits() {
        callers.incrementAndGet();
    }

    /** A caller not in the solo slot stops waiting. */
    void callerDone() {
        callers.decrementAndGet();
    }

    /** A thread waiting over another connection starts reading this one as a guest. */
    void guestEnters() {
        guests.incrementAndGet();
        guestsReading.incrementAndGet();
    }

    /** A guest stops reading this connection. */
    void guestLeaves() {
        guestsReading.decrementAndGet();
        guests.decrementAndGet();
    }

    /** A guest runs an incoming call: it does not read this connection until it resumes. */
    void guestPauses() {
        guestsReading.decrementAndGet();
    }

    /** A guest's call is over: it reads this connection again. */
    void guestResumes() {
        guestsReading.incrementAndGet();
    }

    /**
     * Whether a guest is reading this connection now (it reads everything that comes, so the dispatcher
     * need not even glance). A guest running a call (which may wait on anything) does not count.
     */
    boolean guestReads() {
        return guestsReading.get() > 0;
    }

    /** Whether a synchronous caller waits for an answer (in the solo slot, or counted), or a guest reads. */
    boolean callersWait() {
        return solo != null || callers.get() > 0 || guests.get() > 0;
    }

    /** Synchronous callers waiting now (outside the solo slot; racy, for sizing park slices). */
    int waitingCallers() {
        return callers.get();
    }

    /**
     * After {@code p}'s caller led the reading: wakes one other parked caller, if any waits, so that
     * answers keep being read.
     */
    void wakeAnotherCaller(PendingCall p) {
        if (parked.get() == 0) {
            return; // nobody parked: a waiting caller that is about to park looks at the lock again within its slice
        }
        if (callers.get() - (p.inSlot ? 0 : 1) <= 0 && solo == null) {
            return; // nobody else waits (the count may still include this caller)
        }
        PendingCall s1 = solo;
        if (s1 != null && s1 != p && s1.waiter != null && !s1.isDone()) {
            s1.wake();
            return;
        }
        for (PendingCall q : pending.values()) {
            if (q != p && q.waiter != null && !q.isDone()) {
                q.wake();
                return;
            }
        }
    }

    /** A caller parks until its answer comes or its slice ends ({@link #wakeAnotherCaller} may wake it). */
    void parks() {
        parked.incrementAndGet();
    }

    /** A caller that {@link #parks} woke. */
    void unparked() {
        parked.decrementAndGet();
    }

    /**
     * The synchronous call waiting in {@code chain}, if any (its thread runs the chain's nested calls): the innermost,
     * the one made last, when a chain waits here more than once (A calls B, B calls back, the call back calls B
     * again: its thread reads the inner wait's inbox, not the outer's, until the inner call returns).
     */
    PendingCall waitingIn(long chain) {
        PendingCall found = null;
        PendingCall s1 = solo;
        if (s1 != null && s1.chain == chain && !s1.isDone()) {
            found = s1;
        }
        if (pending.isEmpty()) {
            return found;
        }
        for (PendingCall p : pending.values()) {
            if (p.chain == chain && p.caller != null && !p.isDone() && (found == null || p.id > found.id)) {
                found = p;
            }
        }
        return found;
    }

    /** Whether any asynchronous call is pending (only those are timed out by the dispatcher). */
    boolean hasAsynchronous() {
        return asynchronous.get() != 0;
    }

    /** The asynchronous calls whose deadline passed at {@code now} (a synchronous caller times itself out). */
    void forEachExpired(long now, java.util.function.Consumer<PendingCall> timeOut) {
        if (!hasAsynchronous()) {
            return;
        }
        for (PendingCall p : pending.values()) {
            if (p.caller == null && now - p.deadline() >= 0) {
                timeOut.accept(p);
            }
        }
    }

    /** Removes and fails every waiting call (the connection closed). */
    void failAll(RemoteException failure) {
        PendingCall s1 = solo;
        if (s1 != null && forget(s1)) {
            s1.completeExceptionally(failure);
            s1.wake();
        }
        for (PendingCall p : pending.values()) {
            if (pending.remove(p.id, p)) {
                removed(p);
                p.completeExceptionally(failure);
                p.wake();
            }
        }
    }
}
