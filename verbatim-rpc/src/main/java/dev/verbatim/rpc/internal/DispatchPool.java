package dev.verbatim.rpc.internal;

import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The process's threads for dispatcher runs (docs/rpc.md §4): platform daemon threads, one per run
 * that is going on, created when none is idle and ended after {@link #KEEP_ALIVE_SECONDS} without
 * work. Not bounded: a run may block in a call (the hand-off gives its connection a new run), so a
 * bound could leave a connection unread. Idle connections hold no run (they end idle), so the count
 * follows the connections that are busy, not the connections that are open. A hand-off reuses an
 * idle thread instead of creating one per hop.
 */
final class DispatchPool {
    /**
     * How long a pool thread with nothing to run waits for a run before it ends: long enough that the
     * hand-offs of a chain and the restarts of connections called every few hundred milliseconds find an
     * idle thread, short enough that a burst of connections (a thousand clients connecting at once) does not
     * leave its threads standing.
     */
    static final long KEEP_ALIVE_SECONDS = 1;
    private static final AtomicInteger THREADS = new AtomicInteger();
    private static final ThreadPoolExecutor POOL = new ThreadPoolExecutor(0, Integer.MAX_VALUE,
            KEEP_ALIVE_SECONDS, TimeUnit.SECONDS, new SynchronousQueue<>(),
            r -> Thread.ofPlatform().daemon().name("verbatim-rpc-dispatch-" + THREADS.incrementAndGet()).unstarted(r));

    private DispatchPool() {}

    /** Runs {@code run} on an idle pool thread, or a new one. */
    static void execute(Runnable run) {
        POOL.execute(run);
    }

    /** Threads in the pool now, running or idle (tests and the bench). */
    static int threads() {
        return POOL.getPoolSize();
    }
}
