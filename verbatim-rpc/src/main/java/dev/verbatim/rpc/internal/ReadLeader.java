package dev.verbatim.rpc.internal;

import dev.verbatim.rpc.RemoteException;
import dev.verbatim.rpc.RemoteException.Reason;
import dev.verbatim.transport.Connection;
import dev.verbatim.transport.Delivery;
import dev.verbatim.transport.TransportException;
import dev.verbatim.transport.spin.SpinPause;

import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Leader/follower reading of one connection (docs/rpc.md §4). A caller waiting for its answer takes the
 * read lock if it is free and polls the connection itself, completing other callers' calls (no thread
 * hand-off per reply); a caller that finds the lock taken spins, then parks, and looks again; the
 * dispatcher reads when no caller does. A thread blocking on an asynchronous call's future
 * {@linkplain #help helps} the same way.
 *
 * <p>While it waits, a caller also runs its <em>delegate inbox</em>: the calls nested in its chain that
 * another thread read and handed to it ({@link PendingCall#offer}); on a node with node-wide chains, it
 * reads the connection its own incoming call came by too ({@link Guest}), so that the chain's next return
 * runs on it without that hand-over.
 *
 * <p>The read lock may change hands while a reader runs an incoming call inline: it gives the lock away
 * for the call's duration and takes it back only if still free ({@link IncomingCalls}). A call read by a
 * poll runs once the poll returned ({@link Endpoint#poll}), never inside the transport's callback; a
 * reader that lost the lock stops reading, and every loop here looks at {@link #holds()} before it
 * reads on. A leader also steps down when another thread queues for the lock.
 * How long each side spins and parks is the {@link WaitPolicy}.
 */
final class ReadLeader {
    private final Endpoint endpoint;
    private final Connection connection;
    private final CallTable calls;
    private final WaitPolicy policy = new WaitPolicy();
    private final ReentrantLock recvLock = new ReentrantLock();
    /**
     * The most empty polls of this connection in a row that a leader which also reads a guest or lent
     * connection made before it looked at that one (racy; for tests: {@code ChainHopsTest}).
     */
    private int longestTurn;

    ReadLeader(Endpoint endpoint, Connection connection, CallTable calls) {
        this.endpoint = endpoint;
        this.connection = connection;
        this.calls = calls;
    }

    /** How the threads of this endpoint spin and park. */
    WaitPolicy policy() {
        return policy;
    }

    /** The read lock: whoever holds it reads the connection. */
    ReentrantLock lock() {
        return recvLock;
    }

    /**
     * The most empty polls of this connection in a row that a leader reading a guest or lent connection
     * too made before it polled that one: 1 when it alternates poll by poll.
     */
    int longestTurn() {
        return longestTurn;
    }

    /** Whether the calling thread holds the read lock (it may read on). */
    boolean holds() {
        return recvLock.isHeldByCurrentThread();
    }

    void unlockIfHeld() {
        if (recvLock.isHeldByCurrentThread()) {
            recvLock.unlock();
        }
    }

    /** Waits for {@code p}'s answer, leading the reading when nobody does; its value, or what it failed with. */
    Object await(PendingCall p) throws RemoteException {
        return await(p, CallContext.current());
    }

    /** {@link #await(PendingCall)} by a thread whose {@code context} the caller looked up already. */
    Object await(PendingCall p, CallContext context) throws RemoteException {
        boolean counted = !p.inSlot; // a caller waiting in the solo slot is counted by the slot: no atomic pair
        if (counted) {
            calls.callerWaits();
        }
        context.waiting++;
        try {
            return awaitReply(p, context);
        } finally {
            context.waiting--;
            if (counted) {
                calls.callerDone();
            }
            if (context.arrivedOver != endpoint) {
                // (a call back over the connection the running call came by is not a client's: no caller of this side
                // comes to lead here next, so the dispatcher does not step aside on, which left the peer's next call
                // to its next glance, ~0.1 ms: rpc.md §4)
                endpoint.dispatcher().callEnded();
            }
        }
    }

    /**
     * The connection a waiting dispatcher leaves unread (docs/rpc.md §4): the caller is the dispatcher of
     * another endpoint, running one of its calls, and waits here. Until it has waited
     * {@link WaitPolicy#LENT_SPIN_NANOS} it reads that connection too, so that a call nested in its chain
     * coming back over it runs on it (A calls B, B's dispatcher calls A, A calls B again over the first
     * connection); then, or as soon as an unrelated call waits for that dispatcher, it hands the
     * dispatcher's role to a new thread and waits only here.
     */
    private static final class Lent {
        final Endpoint endpoint;
        private final long since = System.nanoTime();
        /** Serves since the last clock read. */
        private int turns;

        private Lent(Endpoint endpoint) {
            this.endpoint = endpoint;
        }

        /** What {@code context}'s thread leaves unread while it waits on {@code here}, or null. */
        static Lent of(CallContext context, Endpoint here) {
            Endpoint d = context.dispatching;
            return d == null || d == here || d.dispatcher().thread() != Thread.currentThread() ? null : new Lent(d);
        }

        /** Reads the lent connection once; false once this thread is no longer its dispatcher (handed off). */
        boolean serve() {
            Dispatcher d = endpoint.dispatcher();
            if (d.thread() != Thread.currentThread()) {
                return false;
            }
            if (d.hasQueued() || (++turns & (WaitPolicy.QUIET_POLLS - 1)) == 0
                    && System.nanoTime() - since >= WaitPolicy.LENT_SPIN_NANOS || !endpoint.isOpen()) {
                d.handOff();
                return false;
            }
            ReadLeader r = endpoint.leader();
            if (r.recvLock.tryLock()) {
                try {
                    endpoint.poll(16);
                } catch (TransportException e) {
                    endpoint.closeWith(e.getMessage());
                } finally {
                    r.unlockIfHeld();
                }
            }
            return true;
        }

        /** Hands the role off now (the caller is about to park or sleep). */
        void release() {
            endpoint.dispatcher().handOff();
        }
    }

    /**
     * The connection a nested call came back over, read by the thread waiting in its chain (docs/rpc.md §4,
     * the delegate threads of paper 003): a thread that runs an incoming call and waits for the reply to a
     * call of its own over another connection of a node with node-wide chains reads the first connection
     * too, as that call's chain most likely comes back over it again (A calls B, B calls A back over its own
     * connection, A calls B again: B's call comes back over the connection the previous one came by). The
     * call then runs on the thread that reads it, with no hand-over between threads (a hand-over costs a
     * wake-up of the waiting thread, ~50-100 µs on a virtual machine, per hop of a walk).
     *
     * <p>The guest is counted by that connection's call table while it reads it ({@link CallTable#guestReads}):
     * its dispatcher then steps aside, so a walk leaves one spinning thread per base instead of two, and
     * the chain's calls are not read by the dispatcher first.
     * It reads while something arrives on either connection at least every {@link WaitPolicy#GUEST_SPIN_NANOS};
     * then it stops, and the dispatcher reads the connection again (a call of the chain is then handed to the
     * waiting thread, as before).
     */
    static final class Guest {
        final Endpoint endpoint;
        private final long spinNanos;
        private final CallContext context;
        /** The thread's guest further out, waiting while this thread runs a call of the chain (or null). */
        private final Guest outer;
        /** When the connection was last found busy; 0: since the last clock read (serves read the clock now and then). */
        private long activeAt;
        /** Serves that found nothing since the last clock read. */
        private int quiet;
        /** The wait's {@link SpinPause} state, from {@code activeAt}. */
        private long pause;
        private boolean woke;

        private Guest(Endpoint endpoint, long spinNanos, CallContext context) {
            this.endpoint = endpoint;
            this.spinNanos = spinNanos;
            this.context = context;
            this.outer = context.guest;
        }

        /** The connection {@code context}'s thread reads as a guest while it waits on {@code here}, or null. */
        static Guest of(CallContext context, Endpoint here, long spinNanos) {
            Endpoint x = context.arrivedOver;
            if (x == null || x == here || !here.chainsAcrossConnections() || !x.isOpen()) {
                return null;
            }
            x.calls().guestEnters(); // its dispatcher steps aside (undone by end)
            Guest g = new Guest(x, spinNanos, context);
            context.guest = g;
            return g;
        }

        /**
         * The thread runs an incoming call (of the chain, or one it read elsewhere) and reads this connection
         * no more until {@link #resume}: its dispatcher glances at it again meanwhile (the call may wait on
         * anything, and must not leave the connection unread).
         */
        void suspend() {
            endpoint.calls().guestPauses();
        }

        /** The call is over: the thread reads this connection again. */
        void resume() {
            endpoint.calls().guestResumes();
            activeAt = 0; // (the chain was busy)
        }

        /** Reads the connection once; false once nothing came for its spin (then {@link #end}). */
        boolean serve() {
            if (!endpoint.isOpen()) {
                return false;
            }
            ReadLeader r = endpoint.leader();
            if (r.recvLock.tryLock()) {
                int n = 0;
                try {
                    n = endpoint.poll(16);
                    if (r.holds() && endpoint.sender().outbox().count() != 0) {
                        endpoint.sender().tryFlush(); // (its dispatcher, which would, does not glance meanwhile)
                    }
                } catch (TransportException e) {
                    endpoint.closeWith(e.getMessage());
                } finally {
                    r.unlockIfHeld();
                }
                if (n > 0) {
                    activeAt = 0;
                    return true;
                }
            } else if (!woke) { // its dispatcher may sleep in the transport holding the lock: it steps aside once woken
                woke = true;
                endpoint.wakeReader();
            }
            if ((++quiet & (WaitPolicy.QUIET_POLLS - 1)) != 0) {
                return true; // a clock read costs more than a poll
            }
            long now = System.nanoTime();
            if (activeAt == 0) {
                activeAt = now;
                pause = SpinPause.begin(now);
            } else if (!endpoint.spinsYield()) {
                pause = SpinPause.pause(pause, now); // (a walk over more bases than CPUs: its waiting threads share CPUs)
            }
            return now - activeAt < spinNanos;
        }

        /** The thread stops reading the connection: its dispatcher reads it again. */
        void end() {
            context.guest = outer;
            endpoint.calls().guestLeaves();
            endpoint.dispatcher().callEnded(); // (it still steps aside a while: the chain may come back)
        }
    }

    private Object awaitReply(PendingCall p, CallContext context) throws RemoteException {
        waitForReply(p, context);
        if (!p.answered) {
            runTasks(p, true); // stopped waiting for another reason: close the inbox against late hand-overs
        } else if (p.wasOffered()) {
            runTasks(p, false); // what was handed over before the answer (nothing can come after it)
        }
        try {
            return p.join();
        } catch (CompletionException e) {
            Throwable c = e.getCause();
            if (c instanceof RuntimeException r) {
                throw sneaky(r);
            }
            throw sneaky(c);
        } catch (CancellationException e) {
            throw new RemoteException(Reason.CANCELLED, "the call was cancelled");
        }
    }

    /**
     * Waits until {@code p} is done (answered, failed, timed out, interrupted): leads the reading of this
     * connection or follows, runs the nested calls handed over, and reads the lent or the guest connection
     * too. While either is read, this thread polls each in turn (one poll here, one there) and never
     * lets the transport park it (so a nested wait does not shrink the leader's spin); a follower (another
     * caller leads here) that is about to park stops reading either first, as it would leave it unread.
     */
    private void waitForReply(PendingCall p, CallContext context) {
        Lent lent = Lent.of(context, endpoint);
        Guest guest = lent == null ? Guest.of(context, endpoint, policy.guestSpinNanos()) : null;
        Dispatcher own = ownDispatcher(context);
        int spins = 0;
        long spinUntil = 0;
        int turns = 0;
        boolean yields = endpoint.spinsYield();
        try {
            while (!p.isDone()) {
                if (Thread.currentThread().isInterrupted()) {
                    endpoint.cancelInterrupted(p);
                    break;
                }
                if (p.hasTasks) { // nested calls of this caller's chain, read by another thread: run here
                    runTasks(p, false);
                    continue;
                }
                if (own != null && own.hasQueued()) {
                    own.handOff();
                    own = null;
                }
                if (lent != null && !lent.serve()) {
                    lent = null; // handed off: this thread reads its former connection on as a guest
                    guest = Guest.of(context, endpoint, policy.guestSpinNanos());
                    continue;
                }
                if (guest != null && !guest.serve()) {
                    guest.end();
                    guest = null;
                    continue;
                }
                if (recvLock.tryLock()) {
                    boolean alternate = lent != null || guest != null;
                    try {
                        lead(p, 0, alternate, own);
                    } finally {
                        unlockIfHeld(); // (the lock may have gone to another reader while this thread ran a nested call)
                    }
                    // it stopped leading (answered, nested calls to run, a lock hand-over, a timeout): another waiting
                    // caller leads now, rather than when its park slice ends
                    calls.wakeAnotherCaller(p);
                    if (alternate && (++turns & (WaitPolicy.QUIET_POLLS - 1)) == 0 && !p.isDone()
                            && overdue(p, 0)) {
                        break; // (an alternating leader reads no clock itself)
                    }
                    continue;
                }
                if (spins == 0 && (policy.isQuiet() || WaitPolicy.crowded(calls.waitingCallers()))) {
                    // more waiting callers than CPUs (spinning would only slow the leader), or a quiet endpoint: park
                    spins = WaitPolicy.SPIN_POLLS;
                    spinUntil = System.nanoTime();
                }
                if (++spins < WaitPolicy.SPIN_POLLS) {
                    if (yields && overdue(p, 0)) {
                        break;
                    }
                    WaitPolicy.pause(yields);
                    continue;
                }
                long now = System.nanoTime();
                if (spinUntil == 0) {
                    spinUntil = now + WaitPolicy.FOLLOW_SPIN_NANOS;
                }
                if (now - p.deadline() >= 0) {
                    endpoint.timeOut(p);
                    break;
                }
                if (now - spinUntil < 0) {
                    WaitPolicy.pause(yields);
                } else {
                    if (lent != null) { // about to park: the lent connection gets its own dispatcher
                        lent.release();
                        lent = null;
                    }
                    if (guest != null) { // about to park (another caller leads here): the dispatcher reads there again
                        guest.end();
                        guest = null;
                    }
                    p.waiter = Thread.currentThread();
                    calls.parks();
                    try {
                        if (!p.isDone()) {
                            LockSupport.parkNanos(Math.min(p.deadline() - now, WaitPolicy.parkSlice(calls.waitingCallers())));
                        }
                    } finally {
                        calls.unparked();
                    }
                }
            }
        } finally {
            if (guest != null) {
                guest.end();
            }
        }
    }

    /** Reads the connection for an asynchronous call's future until it completes or {@code until} passes. */
    void help(PendingCall p, long until) {
        CallContext context = CallContext.current();
        Lent lent = Lent.of(context, endpoint);
        if (lent != null) {
            lent.release(); // a dispatcher blocking on a future over another connection: its own gets a new one
        }
        Dispatcher own = ownDispatcher(context);
        while (!p.isDone() && endpoint.isOpen() && System.nanoTime() - until < 0 && !Thread.currentThread().isInterrupted()) {
            if (own != null && own.hasQueued()) {
                own.handOff();
                own = null;
            }
            if (recvLock.tryLock()) {
                try {
                    lead(p, until, false, own);
                } finally {
                    unlockIfHeld();
                }
                calls.wakeAnotherCaller(p); // as a caller that stops leading does
                continue;
            }
            p.waiter = Thread.currentThread();
            long left = until - System.nanoTime();
            calls.parks();
            try {
                if (!p.isDone() && left > 0) {
                    LockSupport.parkNanos(Math.min(left, WaitPolicy.parkSlice(calls.waitingCallers())));
                }
            } finally {
                calls.unparked();
            }
        }
    }

    /**
     * This connection's dispatcher, if the calling thread is it, waiting for the answer to a call back over its own
     * connection (from a call it runs): calls it reads meanwhile that are not of its chain wait in its queue, so once
     * one does it hands its role to a new run, which runs them (as a dispatcher waiting on another connection does,
     * {@link Lent}); else null.
     */
    private Dispatcher ownDispatcher(CallContext context) {
        if (context.dispatching != endpoint) {
            return null; // (a client's caller: the common case reads one field)
        }
        Dispatcher d = endpoint.dispatcher();
        return d.thread() == Thread.currentThread() ? d : null;
    }

    /** Runs the nested calls handed to {@code p}'s caller; {@code close}: it stops waiting, take no more. */
    private static void runTasks(PendingCall p, boolean close) {
        for (Runnable t = p.nextTask(close); t != null; t = p.nextTask(close)) {
            t.run();
        }
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> RuntimeException sneaky(Throwable t) throws T {
        throw (T) t;
    }

    /**
     * As the leader (holding the read lock): polls the connection until {@code p} completes, times out
     * ({@code p}'s deadline), {@code until} passes (0: no earlier than the deadline), nested calls were
     * handed to its caller, another thread waits for the lock, this thread lost the lock while it ran
     * an incoming call, or ({@code own}, the connection's dispatcher calling back over it) a call waits in that
     * dispatcher's queue. The first {@link WaitPolicy#SPIN_POLLS} polls read no clock: most replies come
     * within them.
     */
    private void lead(PendingCall p, long until, boolean alternate, Dispatcher own) {
        int spins = 0;
        long spinUntil = 0;
        boolean spunOut = false;
        boolean yields = endpoint.spinsYield();
        boolean quiet = policy.isQuiet(); // (no spin: after one empty look the transport parks it, WaitPolicy#quiet)
        Outbox outbox = endpoint.sender().outbox();
        while (!p.isDone() && !p.hasTasks && !recvLock.hasQueuedThreads() && (own == null || !own.hasQueued())) {
            if (Thread.currentThread().isInterrupted()) {
                endpoint.cancelInterrupted(p);
                return;
            }
            int n;
            try {
                n = endpoint.poll(16);
            } catch (TransportException e) {
                endpoint.closeWith(e.getMessage());
                return;
            }
            if (n > 0) {
                if (!recvLock.isHeldByCurrentThread()) {
                    return; // gave the lock away while it ran a call: the new holder reads on
                }
                if (!p.isDone() && overdue(p, until)) {
                    return; // other callers' messages kept coming: they must not hide the clock
                }
                continue;
            }
            if (outbox.count() != 0) {
                endpoint.sender().tryFlush();
            }
            ++spins;
            if (alternate) { // one empty poll, then the other connection's turn
                if (longestTurn < spins) {
                    longestTurn = spins;
                }
                return;
            }
            if (spins < WaitPolicy.SPIN_POLLS && !quiet) {
                if (yields && overdue(p, until)) {
                    return;
                }
                WaitPolicy.pause(yields && spins > WaitPolicy.LEAD_BUSY_POLLS);
                continue;
            }
            long now = System.nanoTime();
            if (spinUntil == 0) {
                spinUntil = quiet ? now : now + policy.leadSpinNanos();
            }
            long deadline = p.deadline();
            if (now - deadline >= 0) {
                endpoint.timeOut(p);
                return;
            }
            if (until == 0) {
                until = deadline;
            }
            if (now - until >= 0) {
                return;
            }
            if (now - spinUntil < 0) {
                WaitPolicy.pause(yields);
                continue;
            }
            if (!spunOut && !quiet) { // the peer is slow to answer (busy, or asleep): spin less next time
                spunOut = true;
                policy.spunOut();
            }
            try {
                Delivery d = connection.take(Duration.ofNanos(Math.min(until - now,
                        WaitPolicy.readerWait(outbox.count() != 0, WaitPolicy.LEAD_WAIT_NANOS))));
                if (d != null && !endpoint.handle(d, true)) {
                    Endpoint.releaseQuietly(d);
                }
            } catch (TransportException e) {
                endpoint.closeWith(e.getMessage());
                return;
            }
            if (!recvLock.isHeldByCurrentThread()) {
                return; // gave the lock away while it ran a call
            }
        }
        if (!spunOut && p.isDone()) {
            policy.answeredWithinSpin(); // answered within the spin: the peer is quick, spin long again
        }
    }

    /**
     * Whether {@code p} timed out (it is timed out here) or {@code until} (0: none) passed. Read where the clock-free
     * first polls could last long: a spinner that yields may wait out other threads' time slices at each yield, and
     * a leader that keeps handling other callers' messages never finds an empty poll (the soak saw a call's
     * deadline, which the first look fixes, fixed 100 ms late, and a 400 ms call answered through a 100 ms proxy).
     */
    private boolean overdue(PendingCall p, long until) {
        long now = System.nanoTime();
        if (now - p.deadline() >= 0) {
            endpoint.timeOut(p);
            return true;
        }
        return until != 0 && now - until >= 0;
    }
}
