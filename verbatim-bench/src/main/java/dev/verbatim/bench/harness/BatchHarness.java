package dev.verbatim.bench.harness;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.Arrays;

/**
 * A small measurement harness for {@code verbatim bench}: no JMH at run time, same method for every
 * library, results kept per batch.
 *
 * <h2>Method</h2>
 * <ol>
 *   <li><b>Calibrate.</b> The workload runs with a growing operation count until one batch takes
 *       a measurable time; from then on a batch is sized to take about {@link Settings#batchNanos}.
 *   <li><b>Warm up until stable, time-bounded.</b> Batches run (and are re-sized as the JIT speeds
 *       the code up) until at least {@link Settings#minWarmupNanos} has passed <em>and</em> the
 *       per-operation times of the last {@link Settings#stableWindow} batches lie within
 *       {@link Settings#stableSpread} of their median <em>and</em> the JIT compiled nothing
 *       during those batches and the one before (the JVM's total compilation time, from
 *       {@link CompilationMXBean}, did not move: interpreted or C1 code can be steady too, and a
 *       C2 compile still in the queue would make the measured batches faster than the warm-up
 *       ones); or until
 *       {@link Settings#maxWarmupNanos} has passed, in which case the result is flagged
 *       {@linkplain Result#stable() unstable} (it is still measured and reported, marked).
 *   <li><b>Measure.</b> {@link Settings#batches} batches of one fixed operation count, each timed
 *       with {@link System#nanoTime()} around the whole batch (a batch lasts milliseconds, so the
 *       timer's resolution and cost are negligible). The figure reported is the <em>median</em>
 *       per-operation time over the batches: a batch hit by a GC pause or a late compilation
 *       moves the mean, not the median. All batch figures are kept in the {@link Result}, so
 *       per-element figures and the spread are derived from the very same run.
 * </ol>
 * Every operation's result is consumed by a {@link Blackhole}; the loop lives in the workload (see
 * {@link Workload}), so the call from the loop to the operation is monomorphic, as in JMH.
 *
 * <p>Times are wall-clock times, so garbage collection pauses count against the library that
 * caused them. Alongside, the harness records the measuring thread's CPU time over the measured
 * batches: {@link Result#cpuShare()} well below 1 means the thread was not running for part of
 * the measurement (other processes competing for the CPUs, or GC pauses), and the figure is
 * inflated accordingly. When the share is below {@value #BUSY_SHARE}, the measured batches are
 * run again, up to {@link Settings#retries} more times, and the attempt with the highest share is
 * kept (a pause the workload causes itself recurs in every attempt; another process's burst does not).
 *
 * <p>What it does not do (use the JMH benchmarks in {@code dev.verbatim.bench.jmh} for that): fork
 * a fresh JVM per workload, so the profile a workload sees is the one left by the workloads run
 * before it in the same JVM (the wire suite runs each library in a JVM of its own and touches all
 * of that library's workloads once before timing any, so each library's workloads are timed with
 * equally polluted profiles, and with no other library's), and it does not control for CPU frequency.
 *
 * <p>Not thread-safe: measures on the calling thread.
 */
public final class BatchHarness {

    /** How long to warm up and measure. */
    public record Settings(String name, long minWarmupNanos, long maxWarmupNanos, long batchNanos,
                           int batches, int stableWindow, double stableSpread, int retries) {
        public Settings {
            if (batches < 1 || stableWindow < 2 || batchNanos <= 0 || minWarmupNanos > maxWarmupNanos || retries < 0) {
                throw new IllegalArgumentException("bad harness settings");
            }
        }

        /** For {@code --quick}: about a quarter of a second per workload. */
        public static Settings quick() {
            return new Settings("quick", ms(60), ms(220), ms(10), 7, 4, 0.10, 1);
        }

        /** The default: a few seconds per workload at most. */
        public static Settings full() {
            return new Settings("full", ms(400), ms(3000), ms(40), 15, 5, 0.10, 2);
        }

        private static long ms(long millis) {
            return millis * 1_000_000L;
        }
    }

    /**
     * The outcome of one measurement.
     *
     * @param nanosPerOp per-operation time of each measured batch, in run order
     * @param opsPerBatch operations in each measured batch
     * @param stable whether warm-up reached the stability criterion before its time bound
     * @param warmupNanos time spent calibrating and warming up
     * @param cpuShare the measuring thread's CPU time over the wall time of the measured batches
     *                 (NaN where the JVM cannot tell)
     */
    public record Result(String name, double[] nanosPerOp, int opsPerBatch, boolean stable, long warmupNanos,
                         double cpuShare) {
        public Result {
            nanosPerOp = nanosPerOp.clone();
        }

        @Override
        public double[] nanosPerOp() {
            return nanosPerOp.clone();
        }

        /** The median per-operation time, in nanoseconds. */
        public double median() {
            return quantile(0.5);
        }

        /** The interquartile range of the batch figures relative to the median (0.02 = 2%). */
        public double relativeSpread() {
            double m = median();
            return m == 0 ? 0 : (quantile(0.75) - quantile(0.25)) / m;
        }

        /** The q-quantile of the batch figures, linearly interpolated. */
        public double quantile(double q) {
            double[] s = nanosPerOp.clone();
            Arrays.sort(s);
            double pos = q * (s.length - 1);
            int lo = (int) Math.floor(pos);
            int hi = (int) Math.ceil(pos);
            return s[lo] + (s[hi] - s[lo]) * (pos - lo);
        }
    }

    private static final int MAX_OPS = 1 << 30;
    /** Below this CPU share of the measuring thread, a measurement is retried. */
    public static final double BUSY_SHARE = 0.8;
    private static final CompilationMXBean JIT = ManagementFactory.getCompilationMXBean();

    private final Settings settings;
    private final Blackhole bh = new Blackhole();

    public BatchHarness(Settings settings) {
        this.settings = settings;
    }

    public Settings settings() {
        return settings;
    }

    /** Runs {@code w} for about {@code nanos} without recording anything (the suite's pre-pass). */
    public void touch(Workload w, long nanos) throws Exception {
        long end = System.nanoTime() + nanos;
        int n = 1;
        while (System.nanoTime() < end) {
            long t = time(w, n);
            if (t < nanos / 16 && n < MAX_OPS / 2) {
                n *= 2;
            }
        }
    }

    /**
     * Waits (sleeping) until the JIT has compiled nothing for {@code quietNanos}, or {@code maxNanos}
     * passed: after a pass that touched many workloads, the compile queue is long, and compiler
     * threads competing with the measuring thread for the CPUs would inflate the first measurements.
     *
     * @return whether the JIT went quiet in time
     */
    public boolean awaitJitQuiet(long quietNanos, long maxNanos) throws InterruptedException {
        long start = System.nanoTime();
        long last = compileMillis();
        long quietSince = start;
        while (System.nanoTime() - start < maxNanos) {
            Thread.sleep(10);
            long now = compileMillis();
            if (now != last) {
                last = now;
                quietSince = System.nanoTime();
            } else if (System.nanoTime() - quietSince >= quietNanos) {
                return true;
            }
        }
        return false;
    }

    /** Warms {@code w} up and measures it as described in the class comment. */
    public Result measure(String name, Workload w) throws Exception {
        long start = System.nanoTime();
        // 1. calibrate: grow n until a batch takes at least 1/8 of the target batch time
        int n = 1;
        long t;
        while (true) {
            t = time(w, n);
            if (t >= settings.batchNanos() / 8 || n >= MAX_OPS) {
                break;
            }
            long grow = t <= 0 ? 16 : Math.max(2, (settings.batchNanos() / 8) / t);
            n = (int) Math.min(MAX_OPS, (long) n * Math.min(grow, 16));
        }
        // 2. warm up until stable (time-bounded), re-sizing batches as the code gets faster
        double[] window = new double[settings.stableWindow()];
        long[] compiled = new long[settings.stableWindow() + 1]; // JIT time before each of the last batches
        int seen = 0;
        boolean stable;
        while (true) {
            n = opsFor(t / (double) n);
            compiled[seen % compiled.length] = compileMillis();
            t = time(w, n);
            window[seen++ % window.length] = t / (double) n;
            long elapsed = System.nanoTime() - start;
            // JIT time before the batch preceding the window: nothing compiled in the last window + 1 batches
            boolean jitQuiet = compileMillis() == compiled[seen % compiled.length];
            if (elapsed >= settings.minWarmupNanos() && seen >= compiled.length && jitQuiet
                    && withinSpread(window)) {
                stable = true;
                break;
            }
            if (elapsed >= settings.maxWarmupNanos()) {
                stable = false;
                break;
            }
        }
        long warmup = System.nanoTime() - start;
        // 3. measure: fixed batch size, sized from the median of the last warm-up batches
        n = opsFor(Stats.median(Arrays.copyOf(window, Math.min(seen, window.length))));
        Result best = null;
        for (int attempt = 0; attempt <= settings.retries(); attempt++) {
            double[] perOp = new double[settings.batches()];
            long cpu0 = ThreadCpu.nanos();
            long wall0 = System.nanoTime();
            for (int i = 0; i < perOp.length; i++) {
                perOp[i] = time(w, n) / (double) n;
            }
            long wall = System.nanoTime() - wall0;
            long cpu = ThreadCpu.nanos() - cpu0;
            double cpuShare = cpu0 < 0 ? Double.NaN : Math.min(1.0, cpu / (double) wall);
            Result r = new Result(name, perOp, n, stable, warmup, cpuShare);
            if (best == null || r.cpuShare() > best.cpuShare()) {
                best = r;
            }
            if (Double.isNaN(cpuShare) || cpuShare >= BUSY_SHARE) {
                break;
            }
        }
        return best;
    }

    /** Total JIT compilation time so far, in ms; 0 where the JVM does not report it. */
    private static long compileMillis() {
        return JIT != null && JIT.isCompilationTimeMonitoringSupported() ? JIT.getTotalCompilationTime() : 0;
    }

    private long time(Workload w, int n) throws Exception {
        long t0 = System.nanoTime();
        w.run(n, bh);
        return System.nanoTime() - t0;
    }

    private int opsFor(double nanosPerOp) {
        double ops = settings.batchNanos() / Math.max(nanosPerOp, 0.01);
        return (int) Math.max(1, Math.min(MAX_OPS, Math.round(ops)));
    }

    private boolean withinSpread(double[] window) {
        double min = Double.MAX_VALUE;
        double max = 0;
        for (double v : window) {
            min = Math.min(min, v);
            max = Math.max(max, v);
        }
        double median = Stats.median(window);
        return median > 0 && (max - min) / median <= settings.stableSpread();
    }
}
