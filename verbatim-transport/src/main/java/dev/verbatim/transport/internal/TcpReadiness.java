package dev.verbatim.transport.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * One selector thread per process that watches every tcp connection's socket (docs/transport.md,
 * "Readiness"). A connection's blocking waits (its receiver, a sender short of credits, a sender
 * whose socket is full) and its {@code notifyWhenReadable} hook all go through it, so a tcp
 * connection holds one descriptor (its socket) instead of a socket and three selectors (each an
 * epoll descriptor and an eventfd: seven in all, which stopped a node near 2,850 connections at
 * {@code ulimit -n 20000}).
 *
 * <p>Every interest is one-shot: a waiter arms it and parks; when the socket becomes ready the
 * selector thread clears the interest, then unparks the waiters that had armed it and runs the hook.
 * A waiter sets its slot before it arms and the selector clears before it reads the slots, so a
 * waiter is never left parked by a readiness it armed for. Readiness is level-triggered: bytes that
 * were already there when a waiter armed fire at once. The price is one hand-off (the selector thread
 * unparks the waiter) on a wait that parks; waits that spin (a busy connection) never come here.
 */
final class TcpReadiness {
    /** How long the thread stays with no socket to watch before it ends (a process with no tcp connection has none). */
    private static final long LINGER_NANOS = 1_000_000_000L;
    /** The running instance, or null (guarded by the class). */
    private static TcpReadiness shared;

    private final Selector selector;
    private final Thread thread;
    /** Sockets watched (guarded by the class): the thread ends once none has been for {@link #LINGER_NANOS}. */
    private int watching;

    private TcpReadiness() {
        try {
            selector = Selector.open();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the tcp readiness selector", e);
        }
        thread = Thread.ofPlatform().daemon().name("verbatim-tcp-readiness").unstarted(this::run);
        thread.start();
    }

    /**
     * Watches {@code socket} (non-blocking) with nothing armed, on the process's readiness thread (started
     * here if none runs); the returned watch is the connection's, until {@link Watch#cancel}.
     */
    static Watch watch(SocketChannel socket) throws IOException {
        TcpReadiness r;
        synchronized (TcpReadiness.class) {
            if (shared == null) {
                shared = new TcpReadiness();
            }
            r = shared;
            r.watching++;
        }
        Watch w = r.new Watch();
        try {
            w.key = socket.register(r.selector, 0, w);
        } catch (ClosedChannelException | RuntimeException e) {
            r.unwatched();
            throw new IOException("the socket could not be watched: " + e, e);
        }
        return w;
    }

    private void unwatched() {
        synchronized (TcpReadiness.class) {
            watching--;
        }
        selector.wakeup();
    }

    /** Whether the thread should end: nothing watched for a while (then a new watch starts a new one). */
    private boolean retire(long emptySince) {
        synchronized (TcpReadiness.class) {
            if (watching > 0 || System.nanoTime() - emptySince < LINGER_NANOS) {
                return false;
            }
            if (shared == this) {
                shared = null;
            }
            return true;
        }
    }

    private void run() {
        long emptySince = 0;
        try {
            while (true) {
                try {
                    selector.select(this::fired, LINGER_NANOS / 2_000_000);
                } catch (IOException | RuntimeException | Error e) {
                    // a failing selector, or a hook that could not hand its work on (no thread left): the
                    // thread every tcp connection waits on must go on; never spin on the failure
                    LockSupport.parkNanos(1_000_000);
                }
                boolean none;
                synchronized (TcpReadiness.class) {
                    none = watching == 0;
                }
                if (!none) {
                    emptySince = 0;
                } else if (emptySince == 0) {
                    emptySince = System.nanoTime();
                } else if (retire(emptySince)) {
                    return;
                }
            }
        } finally {
            try {
                selector.close();
            } catch (IOException ignored) {
                // ending
            }
        }
    }

    private void fired(SelectionKey k) {
        if (!k.isValid() || !(k.attachment() instanceof Watch w)) {
            return;
        }
        int ready;
        try {
            ready = k.readyOps();
            k.interestOpsAnd(~ready); // one-shot: cleared before the waiters are read (see the class comment)
        } catch (RuntimeException cancelled) {
            w.wakeAll();
            return;
        }
        if ((ready & (SelectionKey.OP_READ)) != 0) {
            w.readable();
        }
        if ((ready & SelectionKey.OP_WRITE) != 0) {
            LockSupport.unpark(w.writer);
        }
    }

    /**
     * One socket's waits. Slots: {@code receiver} (the thread in {@code take}), {@code reader} (a sender
     * waiting for credits, which come as bytes to read), {@code writer} (a sender waiting for room in the
     * socket), {@code hook} (run once when the socket becomes readable).
     */
    final class Watch {
        private SelectionKey key;
        private volatile Thread receiver;
        private volatile Thread creditWaiter;
        private volatile Thread writer;
        private final AtomicReference<Runnable> hook = new AtomicReference<>();
        private final java.util.concurrent.atomic.AtomicBoolean cancelled = new java.util.concurrent.atomic.AtomicBoolean();

        /** Parks the receiving thread up to {@code nanos}, or until the socket is readable or {@link #wakeReceiver}. */
        void awaitReceive(long nanos) {
            receiver = Thread.currentThread();
            try {
                arm(SelectionKey.OP_READ);
                LockSupport.parkNanos(nanos);
            } finally {
                receiver = null;
            }
        }

        /** Parks a sender waiting for credits up to {@code nanos}, or until the socket is readable. */
        void awaitCredits(long nanos) {
            creditWaiter = Thread.currentThread();
            try {
                arm(SelectionKey.OP_READ);
                LockSupport.parkNanos(nanos);
            } finally {
                creditWaiter = null;
            }
        }

        /** Parks a sender up to {@code nanos}, or until the socket takes bytes again. */
        void awaitWritable(long nanos) {
            writer = Thread.currentThread();
            try {
                arm(SelectionKey.OP_WRITE);
                LockSupport.parkNanos(nanos);
            } finally {
                writer = null;
            }
        }

        /**
         * Runs {@code r} once, on the selector thread, when the socket becomes readable (or on the thread that
         * calls {@link #readable}); it must only hand work on, never wait. A later call replaces a hook that
         * has not run.
         */
        void notifyWhenReadable(Runnable r) {
            hook.set(r);
            arm(SelectionKey.OP_READ);
        }

        /** Bytes came into the window by another path than the selector (a pump by another thread): as readable. */
        void readable() {
            LockSupport.unpark(receiver);
            LockSupport.unpark(creditWaiter);
            Runnable r = hook.getAndSet(null);
            if (r != null) {
                r.run();
            }
        }

        /** The receiver returns from its wait at once. */
        void wakeReceiver() {
            LockSupport.unpark(receiver);
        }

        /** A sender waiting for credits or socket room looks again (credits came by a pump). */
        void wakeSenders() {
            LockSupport.unpark(creditWaiter);
            LockSupport.unpark(writer);
        }

        /** Everyone returns (closing, or the peer ended). */
        void wakeAll() {
            LockSupport.unpark(writer);
            readable();
        }

        /** Whether a hook waits for readiness. */
        boolean hookArmed() {
            return hook.get() != null;
        }

        /** Stops watching: the selector lets go of the socket (so its descriptor is freed) and everyone returns. */
        void cancel() {
            if (cancelled.compareAndSet(false, true)) {
                key.cancel();
                unwatched(); // (wakes the selector: a cancelled key is dropped, and a closed socket's descriptor freed, at its next select)
            }
            wakeAll();
        }

        private void arm(int op) {
            int before;
            try {
                before = key.interestOpsOr(op);
            } catch (RuntimeException cancelled) { // closed meanwhile: nothing more to wait for
                wakeAll();
                return;
            }
            if ((before & op) == 0) {
                selector.wakeup(); // a select in progress would not see the new interest (armed already: it was woken then)
            }
        }
    }
}
