package dev.verbatim.bench.rpc;

import dev.verbatim.bench.harness.LatencyHistogram;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One turn of a throughput case ({@code throughput-C}, issue 18 §2): C callers make the null call on one
 * proxy as fast as the replies come, for a warm-up and then a measured window; the figure is the calls
 * that completed inside the window over its length (completions per second: in a steady state the calls
 * straddling either edge cancel out), and each of those calls' round trip is recorded too.
 *
 * <p>Two ways of calling, as the contender says ({@link RpcContender#callers()}):
 * <ul>
 *   <li>{@link #threads}: C platform threads, each calling through the same {@link RpcContender.Call}
 *       one call after another (Verbatim's and RMI's synchronous proxies);
 *   <li>{@link #async}: the calling thread keeps C {@link RpcContender.AsyncCall}s in flight (a
 *       {@link Semaphore} of C permits, one taken per call started and given back when its future
 *       completes, on whatever thread completes it): gRPC's async stub, Verbatim's
 *       {@code CompletableFuture} methods.
 * </ul>
 * Every result is checked ({@link RpcCase#check}); the first failure or wrong result stops the turn and is
 * thrown. A caller that does not come back within {@link #HANG} of the window's end fails the turn (a hang
 * is reported, never waited out). Thread-safety: one turn at a time per instance of the calling process;
 * the sequence numbers come from the shared {@code seq}.
 */
final class Throughput {
    private Throughput() {}

    /** How long the callers get to come back after the window (a caller stuck longer is a hang). */
    static final long HANG = 30_000;

    /** A turn's figures: {@code calls} completed within the window of {@code nanos}, their round trips in {@code h}. */
    record Load(long calls, long nanos, LatencyHistogram h) {
        /** Calls per second. */
        double perSecond() {
            return calls * 1e9 / nanos;
        }
    }

    /**
     * A turn's warm-up: {@code millis} at least, and until {@code calls} calls were made (counted by the shared
     * sequence), but no longer than {@code maxMillis}. A contender whose first case is a throughput case
     * (verbatim-threads) warms its paths up here: by time alone, its C = 1 turns of a quick run were measured
     * with the JIT still compiling (721-8,084 calls/s over shm, against ~1,000,000 once warm).
     */
    record Warm(long millis, long calls, long maxMillis) {
        static Warm forMillis(long millis) {
            return new Warm(millis, 0, millis);
        }
    }

    private static final int WARM = 0;
    private static final int RECORD = 1;
    private static final int STOP = 2;

    /** The phase of a turn, written by the thread driving it, read by every caller. */
    private static final class Phase {
        volatile int phase = WARM;
        final AtomicReference<Throwable> failure = new AtomicReference<>();

        boolean recording() {
            return phase == RECORD;
        }

        void fail(Throwable t) {
            failure.compareAndSet(null, t);
            phase = STOP;
        }

        void rethrow() throws Exception {
            Throwable t = failure.get();
            if (t instanceof Exception e) {
                throw e;
            }
            if (t instanceof Error e) {
                throw e;
            }
        }
    }

    /**
     * {@code callers} platform threads calling {@code call} (case {@code c}'s contract) for
     * {@code warmMillis}, then recording for {@code measureMillis}; then they stop and are joined. The
     * threads are all started before any calls ({@code go}), then released at once and the warm-up begins:
     * started one by one while the first ones already called, 256 took this thread 0.1-0.3 s to start
     * (Verbatim's) and 1.4-3.1 s (RMI's), the callers holding both CPUs, before the warm-up even began.
     */
    static Load threads(RpcContender.Call call, RpcCase c, int callers, long warmMillis, long measureMillis,
                        AtomicLong seq) throws Exception {
        return threads(call, c, callers, Warm.forMillis(warmMillis), measureMillis, seq);
    }

    static Load threads(RpcContender.Call call, RpcCase c, int callers, Warm warm, long measureMillis,
                        AtomicLong seq) throws Exception {
        Phase p = new Phase();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>(callers);
        List<LatencyHistogram> hs = new ArrayList<>(callers);
        try {
            startCallers(call, c, callers, seq, p, go, threads, hs);
        } finally {
            go.countDown(); // a failed start stopped the phase: those started end at once
        }
        long[] window = drive(p, warm, seq, measureMillis);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(HANG);
        for (Thread t : threads) {
            if (!t.join(java.time.Duration.ofNanos(Math.max(1, deadline - System.nanoTime())))) {
                throw new IllegalStateException(c.key() + ": a caller did not come back within " + HANG + " ms (a hang)");
            }
        }
        p.rethrow();
        LatencyHistogram all = new LatencyHistogram();
        hs.forEach(all::add);
        return new Load(all.count(), window[1] - window[0], all);
    }

    /** Starts the {@code callers} threads of {@link #threads}, each waiting for {@code go} before its first call. */
    private static void startCallers(RpcContender.Call call, RpcCase c, int callers, AtomicLong seq, Phase p,
                                     CountDownLatch go, List<Thread> threads, List<LatencyHistogram> hs) {
        try {
            for (int i = 0; i < callers; i++) {
                LatencyHistogram h = new LatencyHistogram();
                hs.add(h);
                threads.add(Thread.ofPlatform().daemon().name("caller-" + i).start(() -> {
                    try {
                        go.await();
                        while (p.phase != STOP) {
                            long s = seq.incrementAndGet();
                            long t0 = System.nanoTime();
                            long r = call.call(s);
                            long t1 = System.nanoTime();
                            if (p.recording()) {
                                h.record(t1 - t0);
                            }
                            c.check(s, r);
                        }
                    } catch (Throwable t) {
                        p.fail(t);
                    }
                }));
            }
        } catch (RuntimeException | Error e) { // no thread to be had: the turn fails
            p.fail(e);
            throw e;
        }
    }

    /**
     * The calling thread keeping {@code callers} calls of {@code call} in flight (case {@code c}'s
     * contract) for {@code warmMillis}, then recording for {@code measureMillis}; then it waits for the
     * calls in flight.
     */
    static Load async(RpcContender.AsyncCall call, RpcCase c, int callers, long warmMillis, long measureMillis,
                      AtomicLong seq) throws Exception {
        return async(call, c, callers, Warm.forMillis(warmMillis), measureMillis, seq);
    }

    static Load async(RpcContender.AsyncCall call, RpcCase c, int callers, Warm warm, long measureMillis,
                      AtomicLong seq) throws Exception {
        Phase p = new Phase();
        Semaphore inFlight = new Semaphore(callers);
        LatencyHistogram h = new LatencyHistogram();
        long start = System.nanoTime();
        long seq0 = seq.get();
        long record = start + TimeUnit.MILLISECONDS.toNanos(warm.millis());
        long warmEnd = start + TimeUnit.MILLISECONDS.toNanos(Math.max(warm.millis(), warm.maxMillis()));
        long stop = 0;
        long[] window = new long[2];
        while (p.phase != STOP) {
            long now = System.nanoTime();
            if (p.phase == WARM && now >= record && (seq.get() - seq0 >= warm.calls() || now >= warmEnd)) {
                window[0] = now;
                stop = now + TimeUnit.MILLISECONDS.toNanos(measureMillis);
                p.phase = RECORD;
            } else if (p.phase == RECORD && now >= stop) {
                window[1] = now;
                p.phase = STOP;
                break;
            }
            if (!inFlight.tryAcquire(HANG, TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(c.key() + ": no call came back within " + HANG + " ms (a hang)");
            }
            long s = seq.incrementAndGet();
            long t0 = System.nanoTime();
            try {
                call.call(s).whenComplete((r, e) -> {
                    try {
                        long t1 = System.nanoTime();
                        if (e != null) {
                            p.fail(e);
                            return;
                        }
                        if (p.recording()) {
                            synchronized (h) {
                                h.record(t1 - t0);
                            }
                        }
                        c.check(s, r);
                    } catch (Throwable t) {
                        p.fail(t);
                    } finally {
                        inFlight.release();
                    }
                });
            } catch (RuntimeException e) {
                inFlight.release();
                p.fail(e);
            }
        }
        if (!inFlight.tryAcquire(callers, HANG, TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException(c.key() + ": calls in flight did not come back within " + HANG + " ms (a hang)");
        }
        p.rethrow();
        synchronized (h) {
            return new Load(h.count(), window[1] - window[0], h);
        }
    }

    /**
     * Drives a turn's phases from this thread: warm-up, then the window (recording), then stop; returns
     * the window's start and end ({@link System#nanoTime()}). A failure ends it early (its window then
     * does not matter: the turn throws).
     */
    private static long[] drive(Phase p, Warm warm, AtomicLong seq, long measureMillis) throws InterruptedException {
        long seq0 = seq.get();
        long warmEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(warm.millis(), warm.maxMillis()));
        sleepUnlessFailed(p, warm.millis());
        while (seq.get() - seq0 < warm.calls() && System.nanoTime() < warmEnd && p.failure.get() == null) {
            Thread.sleep(5);
        }
        long[] window = {System.nanoTime(), 0};
        if (p.phase == WARM) {
            p.phase = RECORD;
        }
        sleepUnlessFailed(p, measureMillis);
        window[1] = System.nanoTime();
        p.phase = STOP;
        return window;
    }

    private static void sleepUnlessFailed(Phase p, long millis) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        for (long left; p.failure.get() == null && (left = end - System.nanoTime()) > 0; ) {
            Thread.sleep(Math.min(TimeUnit.NANOSECONDS.toMillis(left) + 1, 5));
        }
    }
}
