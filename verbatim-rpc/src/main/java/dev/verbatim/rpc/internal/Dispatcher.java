package dev.verbatim.rpc.internal;

import dev.verbatim.transport.Connection;
import dev.verbatim.transport.Delivery;
import dev.verbatim.transport.TransportException;

import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * The dispatcher of one endpoint (docs/rpc.md §4): reads the connection when no caller does (on
 * servers, and on clients that exported objects or made asynchronous calls), runs the incoming calls
 * queued to it in arrival order, sends what the outbox holds, and times out asynchronous calls. Started
 * on first need; ends when the endpoint closes.
 *
 * <p>It works in <em>runs</em> on the process's {@link DispatchPool}, not on a thread of its own: a run
 * that finds nothing to do for {@link WaitPolicy#RUN_IDLE_NANOS} (no message, no asynchronous call
 * pending, nothing queued or in the outbox) ends, after asking the transport to start a new one when
 * a message comes ({@link Connection#notifyWhenReadable}); whoever gives it other work starts one too
 * ({@link #ensureStarted}). So an idle tcp connection holds no thread, and a busy one keeps its
 * spinning run (the latency mode). A transport that cannot watch (shm) keeps one run for good. The
 * run that holds the role is {@link #run}: a run that {@linkplain #handOff hands it off} ends when its
 * call returns; only the holder may end idle, and never while it runs a call (it decides in its loop).
 *
 * <p>While callers lead the reading (and for {@link WaitPolicy#STEP_ASIDE_NANOS} after one last
 * stopped), it only glances at the connection every {@link WaitPolicy#PEEK_NANOS}: a thread hand-off per
 * reply would cost a wake-up. Otherwise it spins, then sleeps in the transport; whoever gives it work
 * sooner than its sleep ends {@linkplain #rouse rouses} it.
 *
 * <p>Fields marked "dispatcher only" are confined to the dispatcher thread.
 */
final class Dispatcher {
    private final Endpoint endpoint;
    private final Connection connection;
    private final CallTable calls;
    private final ReadLeader leader;
    private final Sender sender;
    /** Incoming calls another reading thread handed to the dispatcher, run in arrival order. */
    private final ConcurrentLinkedQueue<Runnable> queued = new ConcurrentLinkedQueue<>();
    private final Consumer<PendingCall> timeOut;
    /** The run that holds the dispatcher's role, or null (never started, ended idle, or closed). */
    private volatile Run run;
    /** Whether the transport runs a hook when a message comes (false: runs never end idle). */
    private volatile boolean watchable = true;
    /** Changes whenever a caller stops waiting, while there is a dispatcher: it steps aside for a while then. */
    private volatile int callsEnded;
    private int callsEndedSeen; // dispatcher only
    private long callerSeenAt; // dispatcher only
    private long nextExpiry; // dispatcher only
    /**
     * How many spins after a message in a row ended with nothing, up to {@link WaitPolicy#SPIN_MISSES_TO_END}
     * (dispatcher only): a connection whose messages come further apart than a spin ends its run after the
     * spin instead of waiting on (reset by a message a spin caught, or one that came within a spin of the one
     * before: once a connection's run ends after every message, no spin is left to catch one). It starts there: a new
     * connection counts as sporadic until a message comes within a spin of the one before, so a connection that makes a
     * call now and then, or one call and closes, never spins or waits in the transport for nothing (its first two
     * messages did, 0.7 ms of CPU each); a busy one spins from its second message on.
     */
    private int spinMisses = WaitPolicy.SPIN_MISSES_TO_END;
    /** When the dispatcher last read a message (dispatcher only). */
    private long lastMessageAt;
    /** The dispatcher's last wait in the transport ended with nothing received (dispatcher only). */
    private boolean lastWaitEmpty;
    /** The dispatcher sleeps up to {@link WaitPolicy#IDLE_WAIT_NANOS}: whoever gives it work sooner calls {@link #rouse}. */
    private volatile boolean napping;
    /**
     * The dispatcher sleeps in the transport (any wait): a caller that holds an asynchronous call in the send
     * buffer wakes it ({@link #rouse}), since the dispatcher writes such calls once their caller stops starting more.
     */
    private volatile boolean sleeping;
    /** The count of held asynchronous calls at the dispatcher's last look ({@link Sender#flushCalls}; dispatcher only). */
    private int callsHeldSeen;
    /** Glances taken while stepping aside for callers (written by the dispatcher only; for tests). */
    private volatile long glances;

    Dispatcher(Endpoint endpoint, Connection connection, CallTable calls, ReadLeader leader, Sender sender) {
        this.endpoint = endpoint;
        this.connection = connection;
        this.calls = calls;
        this.leader = leader;
        this.sender = sender;
        this.timeOut = endpoint::timeOut;
        this.callerSeenAt = System.nanoTime() - WaitPolicy.STEP_ASIDE_NANOS;
    }

    /** One stretch of dispatching on a pool thread: from a start (or hand-off) to idleness, a hand-off or close. */
    private final class Run implements Runnable {
        /** The pool thread running it; null until it starts. */
        volatile Thread thread;
        /** It holds one of the process's spin slots ({@link DispatchPool#trySpin}; its thread only). */
        boolean spinSlot;
        /** The pool counts it as working ({@link DispatchPool#execute}; its thread, or a hand-off under the dispatcher's lock). */
        boolean working = true;
        /** It is never counted again: it handed its role off, or keeps a connection that cannot be watched (shm). */
        boolean doneWorking;

        /** Stops counting as working ({@code forGood}: for the rest of the run). */
        void stopWorking(boolean forGood) {
            doneWorking |= forGood;
            if (working) {
                working = false;
                DispatchPool.release();
            }
        }

        /** Counts as working again after a sleep, unless it stopped for good. */
        void workAgain() {
            if (!working && !doneWorking) {
                working = true;
                DispatchPool.resume();
            }
        }
        /** Counted down when its loop is over (what close waits for). */
        final java.util.concurrent.CountDownLatch over = new java.util.concurrent.CountDownLatch(1);

        @Override
        public void run() {
            Thread t = Thread.currentThread();
            thread = t;
            String poolName = t.getName();
            t.setName("verbatim-rpc " + endpoint.description()); // (thread dumps name the connection it serves)
            try {
                loop(this);
            } finally {
                stopWorking(true);
                t.setName(poolName);
                over.countDown();
            }
        }
    }

    /** The thread of the run holding the dispatcher's role, or null (none, or not started yet). */
    Thread thread() {
        Run r = run;
        return r == null ? null : r.thread;
    }

    /** Starts a dispatcher run unless one holds the role (or the endpoint is closed). */
    void ensureStarted() {
        if (run == null) {
            start();
        }
    }

    private synchronized void start() {
        if (run != null || !endpoint.isOpen()) {
            return;
        }
        startRun();
    }

    /** A new run, which holds the role before it starts (the loop of the one it replaces ends once it does not). */
    private void startRun() {
        Run r = new Run();
        run = r;
        DispatchPool.execute(r);
    }

    /** Waits up to {@code millis} for the run holding the role to end (closing); not for the calling thread's own. */
    void awaitEnd(long millis) throws InterruptedException {
        Run r = run;
        if (r != null && r.thread != Thread.currentThread()) {
            r.over.await(millis, java.util.concurrent.TimeUnit.MILLISECONDS);
        }
    }

    /**
     * The dispatcher thread runs a call that waits for a reply over another connection, and this one must
     * be read meanwhile (a call nested in its chain may come back over it, or an unrelated call waits in
     * the queue): a new run on the pool (an idle pool thread if there is one) becomes the dispatcher, and
     * the old run ends when its call returns (J-RPC's delegate threads need a reader on every connection
     * of the chain). Called by the dispatcher thread only.
     */
    synchronized void handOff() {
        if (thread() != Thread.currentThread() || !endpoint.isOpen()) {
            return;
        }
        Run old = run;
        endSpin(old); // (its call waits: its slot is not spinning)
        Run r = new Run();
        run = r;
        old.doneWorking = true;
        if (old.working) {
            old.working = false; // (its count goes to the new run: a hop never waits for the pool's bound)
            DispatchPool.handOver(r);
        } else {
            DispatchPool.execute(r);
        }
    }

    /**
     * The dispatcher read a message at {@code now}: a spin caught it ({@code caught}), or would have (it came within
     * a spin of the one before: a connection that went quiet twice spins again once busy), resets the misses.
     * Dispatcher only.
     */
    private void messageAt(long now, boolean caught) {
        if (caught || now - lastMessageAt < WaitPolicy.DISPATCH_SPIN_NANOS) {
            spinMisses = 0;
        }
        lastMessageAt = now;
    }

    /**
     * Whether this connection's messages come further apart than a spin: its last {@link WaitPolicy#SPIN_MISSES_TO_END}
     * spins caught nothing (and no message came within a spin of the one before since), and the transport can call a
     * new run when the next message comes. Such a connection does not spin after a message: the spin would only burn a
     * CPU (with a thousand of them, the spins and the transport's waits after them were most of a node's CPU) and
     * would wait in vain. A message that comes within a spin of the last makes it spin again ({@link #messageAt}).
     */
    private boolean sporadic() {
        return watchable && spinMisses >= WaitPolicy.SPIN_MISSES_TO_END;
    }

    /** Gives back the spin slot run {@code r} holds, if it holds one. Its thread only. */
    private static void endSpin(Run r) {
        if (r != null && r.spinSlot) {
            r.spinSlot = false;
            DispatchPool.endSpin();
        }
    }

    /** Whether incoming calls wait in the dispatcher's queue. */
    boolean hasQueued() {
        return !queued.isEmpty();
    }

    /** How many times the dispatcher glanced at the connection and slept {@link WaitPolicy#PEEK_NANOS} while stepping aside. */
    long glances() {
        return glances;
    }

    /** A caller stopped waiting: the dispatcher steps aside a while longer (racy on purpose: it looks for a change). */
    void callEnded() {
        if (run != null) {
            callsEnded++;
        }
    }

    /**
     * Ends the dispatcher's long sleep, if it sleeps: an asynchronous call's deadline or an outbox entry
     * needs it (the caller started a run first if none held the role: {@link #ensureStarted}).
     */
    void rouse(boolean callHeld) {
        if (napping || (callHeld && sleeping)) {
            connection.wakeup();
        }
    }

    /** Hands an incoming call to the dispatcher (read by a caller, which must not run it). */
    void queue(Runnable task) {
        queued.add(task);
        ensureStarted();
        Thread t = thread();
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    private void runQueued(Run me) {
        while (mine(me)) { // (a call that handed the role off leaves the rest to the new dispatcher)
            Runnable t = queued.poll();
            if (t == null) {
                return;
            }
            t.run();
        }
    }

    private void loop(Run me) {
        CallContext context = CallContext.current();
        context.dispatching = endpoint;
        try {
            dispatch(me);
        } catch (RuntimeException | Error e) {
            endpoint.closeWith("the dispatcher failed: " + e); // never a connection left open and unread
        } finally {
            context.dispatching = null;
            if (!endpoint.isOpen()) {
                synchronized (this) {
                    if (run == me) {
                        run = null; // closed: nothing holds the role (and nothing starts again)
                    }
                }
            }
        }
    }

    /** Whether {@code me} (still) holds the role: a run that handed it off, or ended idle, ends its loop. */
    private boolean mine(Run me) {
        return run == me;
    }

    /**
     * Ends {@code me} because its connection is idle, and asks the transport to start a run when a message
     * comes. The role is given up before anything is looked at again (a thread that queues work meanwhile
     * either sees no run and starts one, or its work is seen here). False if the transport cannot watch
     * (the run goes on, and no run ends idle again).
     */
    private boolean endIdle(Run me) {
        synchronized (this) {
            if (run != me) {
                return true;
            }
            sleeping = false; // (while it holds the role: the finally of its loop no longer may)
            run = null;
        }
        if (!connection.notifyWhenReadable(this::ensureStarted)) {
            watchable = false;
            synchronized (this) {
                if (run == null && endpoint.isOpen()) {
                    run = me; // not watched: this run stays
                    return false;
                }
            }
            return true;
        }
        if (!queued.isEmpty() || !calls.mapEmpty() || sender.outbox().count() != 0 || !endpoint.isOpen()) {
            ensureStarted(); // work came while the role was being given up
        }
        return true;
    }

    private void dispatch(Run me) {
        ReentrantLock recvLock = leader.lock();
        Outbox outbox = sender.outbox();
        while (endpoint.isOpen() && mine(me)) {
            if (!watchable) {
                me.stopWorking(true); // it keeps its connection for good: the pool's bound is for runs that come and go
            }
            runQueued(me);
            if (!mine(me)) {
                return; // a queued call handed the role off: the new dispatcher reads on
            }
            int ended = callsEnded;
            if (ended != callsEndedSeen) {
                callsEndedSeen = ended;
                callerSeenAt = System.nanoTime();
            }
            if (calls.callersWait() || System.nanoTime() - callerSeenAt < WaitPolicy.STEP_ASIDE_NANOS) {
                // callers are leading (they read replies themselves; a thread hand-off per reply would
                // cost a wake-up), so the dispatcher only glances at the connection now and then: a
                // message nobody waits for (a callback, an asynchronous reply) still goes within ~0.1 ms,
                // and calls a leading caller reads are handed here at once (see queue)
                if (!calls.guestReads() && recvLock.tryLock()) { // (a guest reading now reads everything that comes)
                    try {
                        endpoint.poll(64);
                        sender.tryFlush();
                        callsHeldSeen = sender.flushCalls(true, callsHeldSeen); // (it glances only now and then)
                    } catch (TransportException e) {
                        endpoint.closeWith(e.getMessage());
                    } finally {
                        leader.unlockIfHeld(); // (it may have gone to another reader during a call)
                    }
                }
                if (queued.isEmpty() && mine(me)) {
                    glances++; // (one writer)
                    LockSupport.parkNanos(WaitPolicy.PEEK_NANOS);
                }
                if (mine(me)) {
                    expireAsync();
                }
                continue;
            }
            recvLock.lock();
            try {
                // first spin with the allocation-free poll (a busy connection never leaves this: every
                // message restarts the spin), then sleep in take until a message comes (long: a short
                // timeout would restart the spin over and over and burn a core on an idle connection)
                // (after a wait that timed out with nothing, the connection is idle: straight back to sleep)
                // A watched run with nothing pending spins only in one of the process's spin slots: runs that cannot
                // have one end idle (a thousand connections each spinning after its message would take every core
                // from the calls).
                // (a quiet endpoint's dispatcher never spins: it reads what came, then sleeps, WaitPolicy#quiet)
                boolean quiet = leader.policy().isQuiet();
                long spin = quiet ? 0 : WaitPolicy.DISPATCH_SPIN_NANOS;
                long spinUntil = System.nanoTime() + (lastWaitEmpty || sporadic() ? 0 : spin);
                int n = 0;
                boolean spun = false; // an empty poll since the last message: a message now was caught by spinning
                boolean noSlot = false;
                long now = 0;
                int emptyPolls = 0;
                boolean yielded = false;
                while (!calls.callersWait() && queued.isEmpty() && recvLock.isHeldByCurrentThread()) {
                    n = endpoint.poll(64);
                    if (outbox.count() != 0) {
                        sender.tryFlush();
                    }
                    // asynchronous calls held for their caller's next one: written once it started none since the last look
                    callsHeldSeen = sender.flushCalls(false, callsHeldSeen);
                    // the clock after a message (its work is done), after a yield (which may have lasted a time slice)
                    // and every few empty polls: read at every one, it was a third of the spin's turn, and a message that
                    // came during it waited that much longer
                    if (n > 0 || yielded || (emptyPolls++ & (WaitPolicy.DISPATCH_CLOCK_POLLS - 1)) == 0) {
                        now = System.nanoTime();
                    }
                    if (n > 0) {
                        emptyPolls = 0;
                        endSpin(me); // (taken again at the next empty poll: a slot is for waiting, not for work)
                        messageAt(now, spun);
                        spun = false;
                        lastWaitEmpty = false; // (a message came: not idle)
                        spinUntil = now + (sporadic() ? 0 : spin);
                        if (now - nextExpiry >= 0 && calls.hasAsynchronous()) {
                            break; // now and then, time out asynchronous calls
                        }
                        continue;
                    }
                    if (now - spinUntil >= 0) {
                        if (spun && spinMisses < WaitPolicy.SPIN_MISSES_TO_END) {
                            spinMisses++;
                        }
                        break;
                    }
                    // (a run with asynchronous calls pending or answers in the outbox cannot end idle, and would only
                    // trade its spin for the transport's: it spins without a slot)
                    if (!me.spinSlot && watchable && calls.mapEmpty() && outbox.count() == 0) {
                        if (!DispatchPool.trySpin()) {
                            noSlot = true;
                            break;
                        }
                        me.spinSlot = true;
                    }
                    spun = true;
                    if (watchable) {
                        DispatchPool.emptySpinPoll();
                    }
                    yielded = endpoint.spinsYield() && now - lastMessageAt > WaitPolicy.DISPATCH_BUSY_NANOS;
                    WaitPolicy.pause(yielded);
                }
                endSpin(me);
                if (mine(me)) {
                    sleeping = true; // (before the last look at held calls: a caller that holds one after it wakes us)
                }
                callsHeldSeen = sender.flushCalls(true, callsHeldSeen);
                if (n == 0 && watchable && (sporadic() || noSlot || quiet) && queued.isEmpty()
                        && calls.mapEmpty() && outbox.count() == 0 && !calls.callersWait()) {
                    // messages come further apart than a spin: waiting on (a spin in the transport, a sleep) would
                    // cost this connection CPU per message and a thread meanwhile; the transport calls when the next comes
                    leader.unlockIfHeld();
                    lastWaitEmpty = true;
                    if (endIdle(me)) {
                        return;
                    }
                    continue;
                }
                if (n == 0 && !calls.callersWait() && queued.isEmpty() && recvLock.isHeldByCurrentThread()) {
                    // While asynchronous calls are pending (their timeouts are checked after each wait) or answers
                    // wait in the outbox: 0.1 s (0.05 ms). Else sleep long: a thread that registers an asynchronous
                    // call or stashes an answer meanwhile sees `napping` and wakes the transport's take (napping is
                    // set before the second look, and they register before they look at it: one sees the other).
                    // Every timed wake-up costs CPU (~0.1 ms on a virtual machine), so an idle connection should
                    // have as few as possible.
                    long wait = WaitPolicy.readerWait(outbox.count() != 0, WaitPolicy.BUSY_WAIT_NANOS);
                    boolean idle = false;
                    if (calls.mapEmpty() && outbox.count() == 0) {
                        napping = true;
                        if (calls.mapEmpty() && outbox.count() == 0) {
                            idle = true;
                            // a run that may end idle waits briefly, then ends and lets the transport call
                            wait = watchable ? WaitPolicy.RUN_IDLE_NANOS : WaitPolicy.IDLE_WAIT_NANOS;
                        }
                    }
                    Delivery d;
                    me.stopWorking(false); // (asleep: another run may work meanwhile)
                    try {
                        d = connection.take(Duration.ofNanos(wait));
                    } finally {
                        me.workAgain();
                        napping = false;
                    }
                    lastWaitEmpty = d == null;
                    if (d == null && idle && watchable && queued.isEmpty() && calls.mapEmpty()
                            && outbox.count() == 0 && !calls.callersWait()) {
                        leader.unlockIfHeld(); // (before the role goes: the next run takes the lock)
                        if (endIdle(me)) {
                            return;
                        }
                        continue;
                    }
                    if (d != null) {
                        messageAt(System.nanoTime(), false);
                        if (!endpoint.handle(d, true)) {
                            Endpoint.releaseQuietly(d);
                        }
                        while (queued.isEmpty() && recvLock.isHeldByCurrentThread()
                                && endpoint.poll(64) > 0) {
                            // drain what else has arrived
                        }
                    }
                }
            } catch (TransportException e) {
                endpoint.closeWith(e.getMessage());
            } finally {
                endSpin(me);
                if (mine(me)) {
                    sleeping = false; // (a run that handed the role off must not clear the new run's flag)
                }
                leader.unlockIfHeld(); // (whoever holds it now, if it went during a call, reads on)
            }
            if (mine(me)) {
                expireAsync();
            }
        }
        if (mine(me)) {
            runQueued(me); // calls still queued fail their replies quietly and give their deliveries back
        }
    }

    /** Times out asynchronous calls whose deadline passed, at most every {@link WaitPolicy#PEEK_NANOS}. */
    private void expireAsync() {
        long now = System.nanoTime();
        if (now - nextExpiry < 0) {
            return;
        }
        nextExpiry = now + WaitPolicy.PEEK_NANOS;
        calls.forEachExpired(now, timeOut);
    }
}
