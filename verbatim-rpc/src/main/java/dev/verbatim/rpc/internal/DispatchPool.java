package dev.verbatim.rpc.internal;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * The process's threads for dispatcher runs (docs/rpc.md §4): platform daemon threads, created when none
 * is idle and ended after {@link #KEEP_ALIVE_SECONDS} without work. Idle connections hold no run (they
 * end idle), so the count follows the connections that are busy, not the connections that are open. A
 * hand-off reuses an idle thread instead of creating one per hop.
 *
 * <p><b>Runs working at once are bounded, softly.</b> At most {@link #WORKING_LIMIT} runs work at once
 * (counted from their start until they end, hand their role off, sleep in the transport, or turn out to
 * keep their connection for good); a start beyond that waits in a queue for one of them to stop working.
 * If none stops for {@link #DEFER_MAX_NANOS} (the working runs may all be blocked in calls: a hard bound
 * could leave a connection unread for good), a watcher thread starts the oldest waiting one anyway, and one
 * more each quarter of that while none stops; working runs that are merely slow (the cores are busy) keep
 * stopping, and the queue waits for them. Without the bound a node that fell behind made it worse: at
 * 10,000 connections called once a second each, every call started a run on a thread of its own while the
 * runs before it waited for a core; the pool grew to thousands of threads, the node stopped answering, and
 * when the connections then closed, each close of a shared arena (a handshake with every thread) took
 * longer the more threads there were. A run is counted by {@link #execute} and uncounted exactly once by
 * {@link #release}.
 *
 * <p>It also bounds how many runs spin at once ({@link #trySpin}): a spinning run is worth a core only
 * while the process has one to spare. A run that gets no slot polls once and, with nothing there, ends idle
 * (a run with asynchronous calls pending or answers in its outbox cannot end idle, and spins without one).
 */
final class DispatchPool {
    /**
     * How long a pool thread with nothing to run waits for a run before it ends: long enough that the
     * hand-offs of a chain and the restarts of connections called every few hundred milliseconds find an
     * idle thread, short enough that a burst of connections (a thousand clients connecting at once) does not
     * leave its threads standing.
     */
    static final long KEEP_ALIVE_SECONDS = 1;
    private static final int CPUS = Math.max(1, Runtime.getRuntime().availableProcessors());
    /** Runs that may work at once before a start waits (four per core: more only queue for the cores). */
    static final int WORKING_LIMIT = Math.max(8, 4 * CPUS);
    /** The longest a start waits for a working run to stop before it starts anyway. */
    static final long DEFER_MAX_NANOS = 2_000_000;
    /**
     * How many runs may spin at once: two per core, at least 2 (a server's and a client's dispatcher in one
     * process on one core must both spin, or one ends idle after every batch and restarts: 42 reads a call in
     * {@code OneCpuSpinTest} with one slot; more only take cores from work).
     */
    static final int SPIN_SLOTS = Math.max(2, 2 * CPUS);

    private static final AtomicInteger THREADS = new AtomicInteger();
    private static final ThreadPoolExecutor POOL = new ThreadPoolExecutor(0, Integer.MAX_VALUE,
            KEEP_ALIVE_SECONDS, TimeUnit.SECONDS, new SynchronousQueue<>(),
            r -> Thread.ofPlatform().daemon().name("verbatim-rpc-dispatch-" + THREADS.incrementAndGet()).unstarted(r));
    private static final AtomicInteger WORKING = new AtomicInteger();
    private static final ConcurrentLinkedQueue<Deferred> DEFERRED = new ConcurrentLinkedQueue<>();
    private static final LongAdder DEFERRALS = new LongAdder();
    /** Counts the runs that stopped working (the watcher's sign that the working runs are not stuck). */
    private static final AtomicInteger STOPS = new AtomicInteger();
    private static final Object LOCK = new Object();
    /** The watcher of deferred starts, or null when none runs (changed under {@link #LOCK}). */
    private static Thread watcher;
    private static final AtomicInteger SPINNING = new AtomicInteger();
    /** Polls that found nothing while a run of a watched connection (tcp) spun (tests: what spinning costs). */
    private static final LongAdder EMPTY_SPIN_POLLS = new LongAdder();

    private record Deferred(Runnable run, long since) {}

    private DispatchPool() {}

    /**
     * Starts {@code run} on an idle pool thread, or a new one, counted as working; or, with
     * {@link #WORKING_LIMIT} runs working, queues it until one {@linkplain #release stops}
     * ({@link #DEFER_MAX_NANOS} at most). The run must {@link #release} once when it stops working.
     */
    static void execute(Runnable run) {
        if (WORKING.incrementAndGet() <= WORKING_LIMIT) {
            POOL.execute(run);
            return;
        }
        WORKING.decrementAndGet();
        DEFERRALS.increment();
        DEFERRED.add(new Deferred(run, System.nanoTime()));
        watch();
        drain(); // (a run may have stopped between the count and the queue)
    }

    /**
     * Starts {@code run}, which takes over the working count of the run that hands its role to it (that one
     * stops working without {@linkplain #release releasing}): never queued (a chain's hop waits for it).
     */
    static void handOver(Runnable run) {
        POOL.execute(run);
    }

    /** A run {@linkplain #execute started} stops working (ends, hands off, sleeps): a queued start may go. */
    static void release() {
        WORKING.decrementAndGet();
        STOPS.incrementAndGet();
        if (!DEFERRED.isEmpty()) {
            drain();
        }
    }

    /** A run that {@linkplain #release released} works again (woke from a sleep): counted, never queued. */
    static void resume() {
        WORKING.incrementAndGet();
    }

    private static void drain() {
        while (!DEFERRED.isEmpty()) {
            if (WORKING.incrementAndGet() > WORKING_LIMIT) {
                WORKING.decrementAndGet();
                return;
            }
            Deferred d = DEFERRED.poll();
            if (d == null) {
                WORKING.decrementAndGet();
                return;
            }
            POOL.execute(d.run());
        }
    }

    private static void watch() {
        synchronized (LOCK) {
            if (watcher == null) {
                watcher = Thread.ofPlatform().daemon().name("verbatim-rpc-dispatch-watcher").start(DispatchPool::overdue);
            }
        }
    }

    /**
     * The watcher: while starts wait, and no working run stopped for {@link #DEFER_MAX_NANOS}, starts the oldest
     * that waited that long, one each quarter of it; ends when none waits.
     */
    private static void overdue() {
        int stops = STOPS.get();
        long progressAt = System.nanoTime();
        while (true) {
            long now = System.nanoTime();
            int s = STOPS.get();
            if (s != stops) {
                stops = s;
                progressAt = now;
            }
            Deferred d = DEFERRED.peek();
            if (d != null && now - d.since() >= DEFER_MAX_NANOS && now - progressAt >= DEFER_MAX_NANOS
                    && DEFERRED.remove(d)) {
                WORKING.incrementAndGet(); // (beyond the limit: the working runs are stuck in calls)
                POOL.execute(d.run());
                progressAt = now - DEFER_MAX_NANOS + DEFER_MAX_NANOS / 4; // (the next one a quarter later, if still stuck)
            }
            synchronized (LOCK) {
                if (DEFERRED.isEmpty()) {
                    watcher = null; // a start deferred from now on starts a new watcher
                    return;
                }
            }
            LockSupport.parkNanos(DEFER_MAX_NANOS / 4);
        }
    }

    /** Threads in the pool now, running or idle (tests and the bench). */
    static int threads() {
        return POOL.getPoolSize();
    }

    /** Runs counted as working now (tests). */
    static int working() {
        return WORKING.get();
    }

    /** Starts deferred so far, process-wide (tests). */
    static long deferrals() {
        return DEFERRALS.sum();
    }

    /** Takes one of the {@link #SPIN_SLOTS} spin slots; false if all are taken (then the run must not spin). */
    static boolean trySpin() {
        for (int n = SPINNING.get(); n < SPIN_SLOTS; n = SPINNING.get()) {
            if (SPINNING.compareAndSet(n, n + 1)) {
                return true;
            }
        }
        return false;
    }

    /** Gives back a slot {@link #trySpin} took. */
    static void endSpin() {
        SPINNING.decrementAndGet();
    }

    /** Counts a poll that found nothing during a spin on a watched connection. */
    static void emptySpinPoll() {
        EMPTY_SPIN_POLLS.increment();
    }

    /** The empty polls of spinning runs so far, process-wide (tests). */
    static long emptySpinPolls() {
        return EMPTY_SPIN_POLLS.sum();
    }
}
