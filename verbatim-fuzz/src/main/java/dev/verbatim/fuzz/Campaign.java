package dev.verbatim.fuzz;

import dev.verbatim.fuzz.CampaignResult.Failure;
import dev.verbatim.fuzz.Corpus.Seed;
import dev.verbatim.fuzz.MessageOracle.Broken;
import dev.verbatim.fuzz.MessageOracle.Outcome;
import dev.verbatim.wire.WireLimits;
import dev.verbatim.wire.WireReader;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The validator fuzz campaign: runs cases on worker threads and gathers what they came to.
 *
 * <p>Case {@code i} of seed {@code S} is a message from the {@link Corpus} of {@code S}, mutated by the
 * {@link Mutator} (or, one case in 12 or so, random bytes), and one valid case in four is also changed in place
 * after validation. The {@link MessageOracle} checks each. Everything derives from the seed: the corpus from the
 * seed, case {@code i} from {@code (S, i)} alone, so the outcome of a case does not depend on the threads, and
 * {@link #replay} reproduces one case on the calling thread.
 *
 * <p>A watchdog reports a case that runs longer than {@code hangMillis} as a hang (its worker cannot be stopped: it
 * is left behind, a daemon, and a new worker carries on); after {@value #MAX_HANGS} hangs the campaign stops. Each
 * failure is counted by kind; the first {@value #MAX_REPORTED_FAILURES} are reported in detail, with their message
 * written as hex (and the stack trace) to the output directory.
 *
 * <p>Thread-safety: each {@code run} starts its own workers; the class holds no mutable static state.
 */
public final class Campaign {
    private Campaign() {}

    /** A single validate-and-read taking longer than this is reported as a hang. */
    public static final long HANG_MILLIS = 5_000;
    /** Stop after this many hung cases: each leaves a thread behind that cannot be stopped. */
    static final int MAX_HANGS = 3;
    /** Failures reported in detail (all are counted). */
    static final int MAX_REPORTED_FAILURES = 50;

    /** The limits of the campaign's reader: tight, so that the limits are exercised and memory stays bounded. */
    public static WireLimits limits() { return MessageOracle.LIMITS; }

    /** Counters shared by the workers. */
    static final class Stats {
        final LongAdder iterations = new LongAdder();
        final LongAdder mutated = new LongAdder();
        final LongAdder random = new LongAdder();
        final LongAdder accepted = new LongAdder();
        final LongAdder rejected = new LongAdder();
        final LongAdder nullRoots = new LongAdder();
        final LongAdder unreadableRoots = new LongAdder();
        final LongAdder recordCycles = new LongAdder();
        final LongAdder failures = new LongAdder();
        final LongAdder scribbled = new LongAdder();
        final LongAdder scribbledRefused = new LongAdder();
        final ConcurrentHashMap<String, LongAdder> rules = new ConcurrentHashMap<>();
        /** Failures by kind: what broke, without the case's origin and with numbers left out. */
        final ConcurrentHashMap<String, LongAdder> failureKinds = new ConcurrentHashMap<>();
        final AtomicLong maxValidateAllocation = new AtomicLong();
        final List<Failure> reported = java.util.Collections.synchronizedList(new ArrayList<>());
    }

    /** Runs a campaign with the default thread count and output directory. */
    public static CampaignResult run(long seed, long iterations, long maxMillis) {
        return run(seed, iterations, maxMillis, defaultThreads(), Path.of("target", "fuzz"));
    }

    /**
     * How a campaign runs: worker threads, where failing messages go, when a case counts as hung, heap or native
     * memory, and a hook run before each case (tests use it to simulate a hang).
     */
    public record Options(int threads, Path outDir, long hangMillis, boolean heap, java.util.function.LongConsumer beforeCase) {
        public Options(int threads, Path outDir) { this(threads, outDir, HANG_MILLIS, false, null); }
    }

    /** Worker threads by default: one per core, at most 4. */
    public static int defaultThreads() { return Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors())); }

    private static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    /**
     * One case of the campaign: the same (seed, iteration) always gives the same bytes. If {@code scribble} is not 0
     * and the message is valid, it is changed in place after validation, with that seed, and read again.
     */
    record Case(byte[] bytes, String origin, boolean random, long scribble) {}

    private static Seed pick(List<Seed> pool, SplittableRandom r) {
        int total = 0;
        for (Seed s : pool) total += s.weight();
        int x = r.nextInt(total);
        for (Seed s : pool) {
            x -= s.weight();
            if (x < 0) return s;
        }
        throw new IllegalStateException();
    }

    static Case makeCase(List<Seed> pool, long seed, long iteration) {
        SplittableRandom r = new SplittableRandom(mix64(seed ^ mix64(iteration + 0x632BE59BD9B4E019L)));
        long scribble = r.nextInt(4) == 0 ? r.nextLong() | 1 : 0;
        if (r.nextInt(100) < 8) return new Case(Mutator.randomMessage(r), "random bytes", true, scribble);
        Seed base = pick(pool, r);
        Seed other = pick(pool, r);
        return new Case(Mutator.mutate(base.bytes(), other.bytes(), r), "mutated " + base.name() + " (other: " + other.name() + ")", false, scribble);
    }

    /**
     * Runs {@code iterations} cases (or until {@code maxMillis} have passed) on {@code threads} threads and reports
     * every failure with the seed and iteration that reproduce it; failing messages are written as hex to {@code outDir}.
     */
    public static CampaignResult run(long seed, long iterations, long maxMillis, int threads, Path outDir) {
        return run(seed, iterations, maxMillis, new Options(threads, outDir));
    }

    /** Runs a campaign as {@code options} say. */
    public static CampaignResult run(long seed, long iterations, long maxMillis, Options options) {
        Path outDir = options.outDir();
        long start = System.nanoTime();
        long deadline = maxMillis >= Long.MAX_VALUE / 2_000_000 ? Long.MAX_VALUE : start + maxMillis * 1_000_000;
        WireReader reader = new WireReader(MessageOracle.LIMITS);
        Stats stats = new Stats();
        List<Seed> pool = Corpus.pool(seed);
        MessageOracle poolOracle = new MessageOracle(reader, stats, options.heap());
        for (Seed s : pool) { // the pool itself must read back (but for the two deliberately over the limits)
            try {
                Outcome o = poolOracle.check(s.bytes());
                if (o == Outcome.REJECTED && !s.name().startsWith("too many")) {
                    fail(stats, seed, -1, "a pool message is rejected: " + poolOracle.lastRule, "pool: " + s.name(), null, s.bytes(), outDir);
                }
            } catch (Throwable t) {
                fail(stats, seed, -1, "a pool message fails: " + t, "pool: " + s.name(), stackTrace(t), s.bytes(), outDir);
            }
        }
        stats.maxValidateAllocation.set(0);
        AtomicLong next = new AtomicLong();
        List<Worker> workers = new ArrayList<>();
        for (int i = 0; i < options.threads(); i++) workers.add(startWorker(new Worker(seed, iterations, deadline, pool, reader, stats, next, options)));
        int hangs = 0;
        boolean stoppedEarly = false;
        while (true) {
            boolean alive = false;
            for (int i = 0; i < workers.size(); i++) {
                Worker w = workers.get(i);
                if (w.thread.isAlive()) alive = true;
                long it = w.current;
                long began = w.began;
                if (it >= 0 && System.nanoTime() - began > options.hangMillis() * 1_000_000 && !w.abandoned) {
                    w.abandoned = true; // it cannot be stopped: leave it (a daemon) and carry on without it
                    hangs++;
                    stats.iterations.increment();
                    fail(stats, seed, it, "hang: one validate and read took more than " + options.hangMillis() + " ms", w.origin,
                            stackTrace(w.thread), w.bytes, outDir);
                    if (hangs >= MAX_HANGS) {
                        stoppedEarly = true;
                        next.set(Long.MAX_VALUE / 2);
                    } else {
                        workers.set(i, startWorker(new Worker(seed, iterations, deadline, pool, reader, stats, next, options)));
                        alive = true;
                    }
                }
            }
            if (!alive) break;
            if (stoppedEarly && workers.stream().allMatch(w -> w.abandoned || !w.thread.isAlive())) break;
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                next.set(Long.MAX_VALUE / 2);
                stoppedEarly = true;
            }
        }
        Map<String, Long> rules = new TreeMap<>();
        stats.rules.forEach((k, v) -> rules.put(k, v.sum()));
        Map<String, Long> kinds = new TreeMap<>();
        stats.failureKinds.forEach((k, v) -> kinds.put(k, v.sum()));
        long elapsed = (System.nanoTime() - start) / 1_000_000;
        List<Failure> failures;
        synchronized (stats.reported) {
            failures = List.copyOf(stats.reported);
        }
        return new CampaignResult(seed, stats.iterations.sum(), stats.mutated.sum(), stats.random.sum(), stats.accepted.sum(), stats.rejected.sum(),
                stats.nullRoots.sum(), stats.unreadableRoots.sum(), stats.recordCycles.sum(), rules, stats.scribbled.sum(),
                stats.scribbledRefused.sum(), stats.failures.sum(), kinds, failures,
                MessageOracle.allocationCounter() == null ? -1 : stats.maxValidateAllocation.get(), elapsed, stoppedEarly);
    }

    private static Worker startWorker(Worker w) {
        w.thread.start();
        return w;
    }

    /** Takes iterations from a shared counter; publishes the case in progress for the watchdog. */
    private static final class Worker implements Runnable {
        final Thread thread;
        final long seed, iterations, deadline;
        final List<Seed> pool;
        final Stats stats;
        final AtomicLong next;
        final Path outDir;
        final java.util.function.LongConsumer beforeCase;
        final MessageOracle oracle;
        volatile long current = -1;
        volatile long began;
        volatile byte[] bytes;
        volatile String origin;
        volatile boolean abandoned;

        Worker(long seed, long iterations, long deadline, List<Seed> pool, WireReader reader, Stats stats, AtomicLong next, Options options) {
            this.seed = seed;
            this.iterations = iterations;
            this.deadline = deadline;
            this.pool = pool;
            this.stats = stats;
            this.next = next;
            this.outDir = options.outDir();
            this.beforeCase = options.beforeCase();
            this.oracle = new MessageOracle(reader, stats, options.heap());
            this.thread = new Thread(this, "verbatim-fuzz");
            thread.setDaemon(true);
        }

        @Override
        public void run() {
            while (!abandoned) {
                long it = next.getAndIncrement();
                if (it >= iterations || deadline != Long.MAX_VALUE && System.nanoTime() - deadline > 0) return;
                Case c = makeCase(pool, seed, it);
                bytes = c.bytes();
                origin = c.origin();
                began = System.nanoTime();
                current = it;
                Outcome o = null;
                Throwable failure = null;
                try {
                    if (beforeCase != null) beforeCase.accept(it);
                    o = oracle.check(c.bytes(), c.scribble());
                } catch (Throwable t) {
                    failure = t;
                }
                current = -1;
                if (abandoned) return; // the watchdog reported this case as a hang already
                stats.iterations.increment();
                (c.random() ? stats.random : stats.mutated).increment();
                if (failure != null) {
                    String what = failure instanceof Broken b ? b.getMessage() : "escaped: " + failure;
                    String detail = failure instanceof Broken b ? b.detail : stackTrace(failure);
                    fail(stats, seed, it, what, c.origin(), detail, c.bytes(), outDir);
                    continue;
                }
                switch (o) {
                    case REJECTED -> {
                        stats.rejected.increment();
                        stats.rules.computeIfAbsent(oracle.lastRule, k -> new LongAdder()).increment();
                    }
                    case ACCEPTED_NULL_ROOT -> { stats.accepted.increment(); stats.nullRoots.increment(); }
                    case ACCEPTED_UNREADABLE_ROOT -> { stats.accepted.increment(); stats.unreadableRoots.increment(); }
                    case ACCEPTED_RECORD_CYCLE -> { stats.accepted.increment(); stats.recordCycles.increment(); }
                    case ACCEPTED_READ -> stats.accepted.increment();
                }
            }
        }
    }

    /** A failure's kind: its description with numbers left out. */
    static String kind(String what) { return what.replaceAll("-?\\d+", "N"); }

    private static void fail(Stats stats, long seed, long iteration, String what, String origin, String detail, byte[] bytes, Path outDir) {
        stats.failures.increment();
        stats.failureKinds.computeIfAbsent(kind(what), k -> new LongAdder()).increment();
        if (stats.reported.size() >= MAX_REPORTED_FAILURES) return;
        Path file = null;
        try {
            Files.createDirectories(outDir);
            file = outDir.resolve("fuzz-" + seed + "-" + (iteration < 0 ? "pool" + stats.reported.size() : Long.toString(iteration)) + ".hex");
            StringBuilder b = new StringBuilder();
            b.append("# ").append(what.replace('\n', ' ')).append('\n');
            b.append("# case: ").append(origin).append('\n');
            b.append("# reproduce: verbatim fuzz --seed ").append(seed).append(" --replay ").append(iteration).append('\n');
            b.append("# ").append(bytes.length).append(" bytes\n");
            HexFormat hex = HexFormat.of();
            for (int i = 0; i < bytes.length; i += 32) b.append(hex.formatHex(bytes, i, Math.min(bytes.length, i + 32))).append('\n');
            if (detail != null) b.append("\n# detail\n").append(detail.length() > 200_000 ? detail.substring(0, 200_000) + "..." : detail).append('\n');
            Files.writeString(file, b.toString(), StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            file = null;
        }
        stats.reported.add(new Failure(seed, iteration, what, origin, detail, file));
    }

    static String stackTrace(Throwable t) {
        StringWriter s = new StringWriter();
        t.printStackTrace(new PrintWriter(s));
        if (t.getStackTrace().length == 0) s.append("(no stack trace: the JIT threw a preallocated exception; --replay shows where)\n");
        return s.toString();
    }

    private static String stackTrace(Thread t) {
        StringBuilder b = new StringBuilder("stack of the hung thread:\n");
        for (StackTraceElement e : t.getStackTrace()) b.append("  at ").append(e).append('\n');
        return b.toString();
    }

    /** What one case replayed came to: {@code verdict} is the outcome or the failure, {@code detail} a stack trace or the difference. */
    public record Replay(long seed, long iteration, String origin, byte[] bytes, boolean failed, String verdict, String detail) {}

    /** Runs case {@code iteration} of {@code seed} on this thread, as the campaign would. */
    public static Replay replay(long seed, long iteration, boolean heap) {
        Case c = makeCase(Corpus.pool(seed), seed, iteration);
        MessageOracle oracle = new MessageOracle(new WireReader(MessageOracle.LIMITS), new Stats(), heap);
        try {
            Outcome o = oracle.check(c.bytes(), c.scribble());
            return new Replay(seed, iteration, c.origin(), c.bytes(), false, o == Outcome.REJECTED ? "rejected: " + oracle.lastRule : "outcome: " + o, null);
        } catch (Broken b) {
            return new Replay(seed, iteration, c.origin(), c.bytes(), true, b.getMessage(), b.detail);
        } catch (Throwable t) {
            return new Replay(seed, iteration, c.origin(), c.bytes(), true, "escaped " + t, stackTrace(t));
        }
    }
}
