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
 * The dispatcher thread of one endpoint (docs/rpc.md §4): reads the connection when no caller does (on
 * servers, and on clients that exported objects or made asynchronous calls), runs the incoming calls
 * queued to it in arrival order, sends what the outbox holds, and times out asynchronous calls. Started
 * on first need; ends when the endpoint closes.
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
    private volatile Thread thread;
    /** Changes whenever a caller stops waiting, while there is a dispatcher: it steps aside for a while then. */
    private volatile int callsEnded;
    private int callsEndedSeen; // dispatcher only
    private long callerSeenAt; // dispatcher only
    private long nextExpiry; // dispatcher only
    /** The dispatcher's last wait in the transport ended with nothing received (dispatcher only). */
    private boolean lastWaitEmpty;
    /** The dispatcher sleeps up to {@link WaitPolicy#IDLE_WAIT_NANOS}: whoever gives it work sooner calls {@link #rouse}. */
    private volatile boolean napping;

    Dispatcher(Endpoint endpoint, Connection connection, CallTable calls, ReadLeader leader, Sender sender) {
        this.endpoint = endpoint;
        this.connection = connection;
        this.calls = calls;
        this.leader = leader;
        this.sender = sender;
        this.timeOut = endpoint::timeOut;
        this.callerSeenAt = System.nanoTime() - WaitPolicy.STEP_ASIDE_NANOS;
    }

    /** The dispatcher thread, or null before it started. */
    Thread thread() {
        return thread;
    }

    /** Starts the dispatcher unless it runs (or the endpoint is closed). */
    void ensureStarted() {
        if (thread == null) {
            start();
        }
    }

    private synchronized void start() {
        if (thread != null || !endpoint.isOpen()) {
            return;
        }
        startThread();
    }

    /** A new dispatcher thread, which becomes {@link #thread} before it runs (its loop ends once it is not). */
    private void startThread() {
        Thread t = Thread.ofPlatform().daemon().name("verbatim-rpc " + endpoint.description()).unstarted(this::loop);
        thread = t;
        t.start();
    }

    /**
     * The dispatcher thread runs a call that waits for a reply over another connection, and this one must
     * be read meanwhile (a call nested in its chain may come back over it, or an unrelated call waits in
     * the queue): a new thread becomes the dispatcher, and the old one ends when its call returns
     * (J-RPC's delegate threads need a reader on every connection of the chain). Called by the dispatcher
     * thread only.
     */
    synchronized void handOff() {
        if (thread != Thread.currentThread() || !endpoint.isOpen()) {
            return;
        }
        startThread();
    }

    /** Whether incoming calls wait in the dispatcher's queue. */
    boolean hasQueued() {
        return !queued.isEmpty();
    }

    /** A caller stopped waiting: the dispatcher steps aside a while longer (racy on purpose: it looks for a change). */
    void callEnded() {
        if (thread != null) {
            callsEnded++;
        }
    }

    /** Ends the dispatcher's long sleep, if it sleeps: an asynchronous call's deadline or an outbox entry needs it. */
    void rouse() {
        if (napping) {
            connection.wakeup();
        }
    }

    /** Hands an incoming call to the dispatcher (read by a caller, which must not run it). */
    void queue(Runnable task) {
        queued.add(task);
        ensureStarted();
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    private void runQueued() {
        while (mine()) { // (a call that handed the role off leaves the rest to the new dispatcher)
            Runnable t = queued.poll();
            if (t == null) {
                return;
            }
            t.run();
        }
    }

    private void loop() {
        CallContext context = CallContext.current();
        context.dispatching = endpoint;
        try {
            dispatch();
        } catch (RuntimeException | Error e) {
            endpoint.closeWith("the dispatcher failed: " + e); // never a connection left open and unread
        } finally {
            context.dispatching = null;
        }
    }

    /** Whether the calling thread is (still) the dispatcher: one that handed its role off ends its loop. */
    private boolean mine() {
        return thread == Thread.currentThread();
    }

    private void dispatch() {
        ReentrantLock recvLock = leader.lock();
        Outbox outbox = sender.outbox();
        while (endpoint.isOpen() && mine()) {
            runQueued();
            if (!mine()) {
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
                    } catch (TransportException e) {
                        endpoint.closeWith(e.getMessage());
                    } finally {
                        leader.unlockIfHeld(); // (it may have gone to another reader during a call)
                    }
                }
                if (queued.isEmpty() && mine()) {
                    LockSupport.parkNanos(WaitPolicy.PEEK_NANOS);
                }
                if (mine()) {
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
                long spinUntil = System.nanoTime() + (lastWaitEmpty ? 0 : WaitPolicy.DISPATCH_SPIN_NANOS);
                int n = 0;
                while (!calls.callersWait() && queued.isEmpty() && recvLock.isHeldByCurrentThread()) {
                    n = endpoint.poll(64);
                    if (outbox.count() != 0) {
                        sender.tryFlush();
                    }
                    long now = System.nanoTime();
                    if (n > 0) {
                        spinUntil = now + WaitPolicy.DISPATCH_SPIN_NANOS;
                        if (now - nextExpiry >= 0) {
                            break; // now and then, time out asynchronous calls
                        }
                        continue;
                    }
                    if (now - spinUntil >= 0) {
                        break;
                    }
                    Thread.onSpinWait();
                }
                if (n == 0 && !calls.callersWait() && queued.isEmpty() && recvLock.isHeldByCurrentThread()) {
                    // While asynchronous calls are pending (their timeouts are checked after each wait) or answers
                    // wait in the outbox: 0.1 s (0.05 ms). Else sleep long: a thread that registers an asynchronous
                    // call or stashes an answer meanwhile sees `napping` and wakes the transport's take (napping is
                    // set before the second look, and they register before they look at it: one sees the other).
                    // Every timed wake-up costs CPU (~0.1 ms on a virtual machine), so an idle connection should
                    // have as few as possible.
                    long wait = WaitPolicy.readerWait(outbox.count() != 0, WaitPolicy.BUSY_WAIT_NANOS);
                    if (calls.mapEmpty() && outbox.count() == 0) {
                        napping = true;
                        if (calls.mapEmpty() && outbox.count() == 0) {
                            wait = WaitPolicy.IDLE_WAIT_NANOS;
                        }
                    }
                    Delivery d;
                    try {
                        d = connection.take(Duration.ofNanos(wait));
                    } finally {
                        napping = false;
                    }
                    lastWaitEmpty = d == null;
                    if (d != null) {
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
                leader.unlockIfHeld(); // (whoever holds it now, if it went during a call, reads on)
            }
            if (mine()) {
                expireAsync();
            }
        }
        if (mine()) {
            runQueued(); // calls still queued fail their replies quietly and give their deliveries back
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
