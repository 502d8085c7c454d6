package dev.verbatim.buffer.internal;

import java.lang.foreign.Arena;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Closes shared arenas on one daemon thread of the process, one after another, for callers that must not
 * wait for it. Closing a shared arena is a handshake with every thread of the JVM: its cost grows with the
 * thread count, and a thousand connections closing at once (a client process that died holding them) on
 * a thousand threads made each close slower the more there were, so that the node stopped answering for
 * minutes. Here at most one close runs at a time and the closing threads go back to work at once.
 *
 * <p>Memory stays safe: an arena stays open, and its memory mapped, until it is closed here; after that
 * every access throws, as with a close in place. What changes is when: memory is given back a little
 * later, and an access between the hand-over and the close still succeeds (callers hand over only memory
 * nobody may write any more). An arena that a native operation holds (the JDK refuses the close) is tried
 * again after the others. The thread ends after a second with nothing to close.
 */
public final class ArenaCloser {
    private static final long LINGER_SECONDS = 1;
    private static final LinkedBlockingQueue<Arena> QUEUE = new LinkedBlockingQueue<>();
    private static final AtomicLong CLOSED = new AtomicLong();
    private static final Object LOCK = new Object();
    /** The closing thread, or null when none runs (changed under {@link #LOCK}). */
    private static Thread thread;

    private ArenaCloser() {}

    /** Closes {@code arena} soon, on the closing thread; returns at once. Closing it twice is harmless. */
    public static void closeLater(Arena arena) {
        QUEUE.add(arena);
        synchronized (LOCK) {
            if (thread == null) {
                thread = Thread.ofPlatform().daemon().name("verbatim-arena-closer").start(ArenaCloser::run);
            }
        }
    }

    /** Arenas closed here so far (tests). */
    public static long closed() {
        return CLOSED.get();
    }

    private static void run() {
        while (true) {
            Arena a;
            try {
                a = QUEUE.poll(LINGER_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                a = null;
            }
            if (a == null) {
                synchronized (LOCK) {
                    if (QUEUE.isEmpty()) {
                        thread = null; // a hand-over from now on starts a new thread
                        return;
                    }
                }
                continue;
            }
            if (!a.scope().isAlive()) {
                continue;
            }
            try {
                a.close();
                CLOSED.incrementAndGet();
            } catch (IllegalStateException busy) { // a native operation holds it: after the others
                QUEUE.add(a);
                LockSupport.parkNanos(100_000L);
            }
        }
    }
}
