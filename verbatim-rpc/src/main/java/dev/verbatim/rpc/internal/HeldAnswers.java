package dev.verbatim.rpc.internal;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Watches the answers that wait in a send buffer for the rest of their batch (docs/rpc.md §5): a reader that
 * runs the calls that arrived together holds each answer until the batch ends ({@link HeldMessages#commit},
 * {@link Endpoint#poll}), so that they leave in one write. A later call of the batch may block, even on something
 * only the caller of an earlier, held answer can do once it has that answer (a latch it counts down): nothing would
 * then ever write that answer. This watcher writes every answer that has waited
 * {@link WaitPolicy#ANSWER_HOLD_MAX_NANOS} ({@link Sender#writeHeldAnswers}). It bounds the asynchronous calls held
 * for their caller's next one the same way ({@link Sender#flushCalls}), when neither the caller nor the dispatcher
 * writes them (the dispatcher blocked in a call it runs).
 *
 * <p>One daemon thread per process, started by the first sender that holds answers, looking every half of that
 * bound while any sender holds some; it ends once nothing was held for a second. A sender enters itself (its
 * {@code heldSince} set first) each time it starts holding; the watcher leaves out those that hold nothing, then
 * looks once more, so that one of the two always sees the other.
 */
final class HeldAnswers {
    private HeldAnswers() {}

    /** How long the watcher lingers with nothing to watch before its thread ends. */
    private static final long LINGER_NANOS = TimeUnit.SECONDS.toNanos(1);

    private static final Set<Sender> WATCHED = ConcurrentHashMap.newKeySet();
    private static final Object LOCK = new Object();
    /** The watcher thread, or null when none runs (changed under {@link #LOCK}). */
    private static volatile Thread thread;
    /** The watcher waits for a sender with nothing to watch (it is woken by {@link #watch}). */
    private static volatile boolean idle;

    /** {@code sender} holds answers for a batch from now on ({@link Sender#heldSince} already set). */
    static void watch(Sender sender) {
        WATCHED.add(sender);
        Thread t = thread;
        if (t == null) {
            start();
        } else if (idle) {
            LockSupport.unpark(t);
        }
    }

    private static void start() {
        synchronized (LOCK) {
            if (thread == null) {
                Thread t = Thread.ofPlatform().daemon().name("verbatim-rpc held answers").unstarted(HeldAnswers::run);
                thread = t;
                t.start();
            }
        }
    }

    private static void run() {
        long emptySince = System.nanoTime();
        while (true) {
            long now = System.nanoTime();
            for (Sender s : WATCHED) {
                if (s.heldSince() == 0) {
                    WATCHED.remove(s);
                    if (s.heldSince() != 0) { // it began to hold again meanwhile
                        WATCHED.add(s);
                    }
                } else {
                    s.writeHeldAnswers(now - WaitPolicy.ANSWER_HOLD_MAX_NANOS);
                }
            }
            if (!WATCHED.isEmpty()) {
                emptySince = now;
                LockSupport.parkNanos(WaitPolicy.ANSWER_HOLD_MAX_NANOS / 2);
                continue;
            }
            if (now - emptySince >= LINGER_NANOS) {
                synchronized (LOCK) {
                    if (WATCHED.isEmpty()) {
                        thread = null; // a sender that enters itself from now on starts a new watcher
                        return;
                    }
                }
                continue;
            }
            idle = true;
            try {
                if (WATCHED.isEmpty()) {
                    LockSupport.parkNanos(LINGER_NANOS);
                }
            } finally {
                idle = false;
            }
        }
    }
}
