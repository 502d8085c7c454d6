package dev.verbatim.bench.transport;

import dev.verbatim.bench.harness.ChildMain;
import dev.verbatim.bench.harness.ChildProcess;
import dev.verbatim.bench.harness.Host;
import dev.verbatim.bench.harness.LatencyHistogram;
import dev.verbatim.bench.harness.Medium;
import dev.verbatim.bench.harness.ScratchDir;
import dev.verbatim.bench.harness.Session;
import dev.verbatim.bench.harness.Stats;
import dev.verbatim.bench.harness.SuiteArgs;
import dev.verbatim.bench.harness.TurnSides;
import dev.verbatim.bench.harness.Turns;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The transport suite, {@code verbatim bench transport}: Javia's Tables 1-2 (round-trip latency of
 * small messages, per-byte cost) and Figures 3/6 (round trip and bandwidth against message size),
 * every contender of {@link Contenders} side by side in one run, each one's two sides in two
 * child processes ({@link ChildProcess}, {@link Peer}).
 *
 * <p>Contenders take turns: all of a figure's processes are started once and wait (without
 * spinning) while one pair at a time measures a short slice; for each message size there are
 * several rounds, each giving every contender one turn, in an order that rotates. On a shared
 * virtual machine the host changes under a run (load from others, and the two virtual CPUs moving
 * nearer or further apart, which changes a round trip 3-4x for seconds at a time): measured one
 * after the other, a contender and the floor could see different hosts and their ratio would mean
 * nothing; taking turns gives them the same mixture.
 *
 * <p>Order of a run: a private directory under {@code /dev/shm}; the shm round-trip contenders,
 * then the tcp ones, then the streams; last the tables (or JSON lines), the targets and, with a
 * plot path, the PNG ({@link TransportPlot}). The directory is deleted and every child is gone when
 * {@link #run} returns, whatever happened. A contender that fails is reported and left out of the
 * figures; the run goes on and exits with code 1.
 */
public final class TransportBench {
    private TransportBench() {}

    /** Round-trip message sizes: 8 B (Tables 1-2) up to 64 KiB (the per-byte fit). */
    static final List<Integer> RTT_SIZES = List.of(8, 64, 256, 1024, 4096, 16384, 65536);
    /** Streaming message sizes, 64 B to 1 MiB. */
    static final List<Integer> BW_SIZES = List.of(64, 256, 1024, 4096, 8192, 65536, 1 << 20);
    static final int RTT_8 = 8;
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);

    /**
     * Round trips of one contender: per message size, a histogram of each of its turns (in round
     * order), or the error that stopped it. A figure is the median of the turns' figures, so every
     * turn counts alike (a fast turn has more round trips; added up, it would outweigh the others).
     */
    public record RttResult(Medium medium, String name, Map<Integer, List<LatencyHistogram>> bySize,
                            Map<Integer, Double> cpu, String error) {
        public boolean ok() {
            return error == null;
        }

        /** The median over turns of each turn's {@code q}-quantile of {@code size}-byte round trips, ns. */
        public double quantile(int size, double q) {
            return Stats.median(turns(size, h -> h.quantile(q)));
        }

        /** The median round trip of {@code size}-byte messages (the median of the turns' medians), ns. */
        public double p50(int size) {
            return quantile(size, 0.5);
        }

        /** The median over turns of each turn's mean, ns. */
        public double mean(int size) {
            return Stats.median(turns(size, LatencyHistogram::mean));
        }

        /** One figure per turn, in round order. */
        public double[] turns(int size, java.util.function.ToDoubleFunction<LatencyHistogram> f) {
            return bySize.get(size).stream().mapToDouble(f).toArray();
        }

        /** Least-squares line through the medians against size: slope = per-byte cost (ns/byte). */
        public LinearFit fit() {
            double[] x = bySize.keySet().stream().mapToDouble(Integer::doubleValue).toArray();
            double[] y = bySize.keySet().stream().mapToDouble(this::p50).toArray();
            return LinearFit.of(x, y);
        }
    }

    /**
     * One-way streaming of one contender: per message size, the MB/s of each timed batch of each of
     * its turns (in round order).
     */
    public record BwResult(Medium medium, String name, Map<Integer, List<double[]>> bySize, Map<Integer, Double> cpu,
                           String error) {
        public boolean ok() {
            return error == null;
        }

        /** The median over turns of each turn's median batch, MB/s (10^6 bytes per second). */
        public double median(int size) {
            return Stats.median(turns(size));
        }

        /** Each turn's median batch, in round order. */
        public double[] turns(int size) {
            return bySize.get(size).stream().mapToDouble(Stats::median).toArray();
        }
    }

    /** Figures of one run. */
    public record Run(String mode, List<Plan.Rtt> rttPlan, List<Plan.Bw> bwPlan, List<RttResult> rtt,
                      List<BwResult> bw, double seconds, double loadBefore, double loadAfter) {

        public List<RttResult> rtt(Medium m) {
            return rtt.stream().filter(r -> r.medium() == m && r.ok()).toList();
        }

        public List<BwResult> bw(Medium m) {
            return bw.stream().filter(r -> r.medium() == m && r.ok()).toList();
        }

        public List<String> failures() {
            List<String> f = new ArrayList<>();
            rtt.stream().filter(r -> !r.ok()).forEach(r -> f.add(r.medium().key() + "/" + r.name() + " round trips: " + r.error()));
            bw.stream().filter(r -> !r.ok()).forEach(r -> f.add(r.medium().key() + "/" + r.name() + " streaming: " + r.error()));
            return f;
        }
    }

    /**
     * Round trips: 8 bytes in 30 turns of 150 ms (10 of 50 ms quick), other sizes in 8 turns of 100 ms
     * (3 of 40 ms quick). Many short turns keep each round within a stretch of one host behaviour;
     * the first turn of a size warms up longer (the JIT, the first size), the others briefly.
     */
    static List<Plan.Rtt> rttPlan(boolean quick) {
        List<Plan.Rtt> p = new ArrayList<>();
        for (int size : RTT_SIZES) {
            if (size == RTT_8) {
                p.add(quick ? new Plan.Rtt(size, 10, 250, 20, 50) : new Plan.Rtt(size, 30, 1000, 30, 150));
            } else {
                p.add(quick ? new Plan.Rtt(size, 3, 40, 10, 40) : new Plan.Rtt(size, 8, 200, 20, 100));
            }
        }
        return p;
    }

    /**
     * Streams: per size, batches of 64 MiB (24 MiB quick), 6 turns of 2 batches (4 turns of 1 quick),
     * each turn after one batch's worth of warm-up (two in the first turn).
     */
    static List<Plan.Bw> bwPlan(boolean quick) {
        long batchBytes = quick ? 24L << 20 : 64L << 20;
        List<Plan.Bw> p = new ArrayList<>();
        for (int size : BW_SIZES) {
            long perBatch = Math.max(16, batchBytes / size);
            p.add(quick ? new Plan.Bw(size, 4, 2 * perBatch, perBatch, perBatch, 1)
                    : new Plan.Bw(size, 6, 2 * perBatch, perBatch, perBatch, 2));
        }
        return p;
    }

    /** Runs the suite, prints it, writes the plot to {@code plot} when not null; returns the exit code. */
    public static int run(boolean quick, boolean json, Path plot, PrintStream out, PrintStream err) throws Exception {
        SuiteArgs args = new SuiteArgs(quick, json, plot);
        long start = System.nanoTime();
        List<Plan.Rtt> rttPlan = rttPlan(quick);
        List<Plan.Bw> bwPlan = bwPlan(quick);
        Run run;
        try (ScratchDir scratch = ScratchDir.create()) {
            double before = Host.loadAverage();
            List<PingPongContender> pp = Contenders.pingPong().stream().filter(c -> SuiteArgs.selected(Contenders.id(c))).toList();
            List<StreamContender> st = Contenders.stream().stream().filter(c -> SuiteArgs.selected(Contenders.id(c))).toList();
            List<RttResult> rtt = new ArrayList<>();
            for (Medium m : Medium.values()) { // shm and tcp apart: the tcp contenders do not slow the shm ones down
                List<PingPongContender> of = pp.stream().filter(c -> c.medium() == m).toList();
                if (!of.isEmpty()) {
                    rtt.addAll(runPingPongs(of, rttPlan, quick ? 1 : 2, scratch.path(), err));
                }
            }
            List<BwResult> bw = st.isEmpty() ? List.of() : runStreams(st, bwPlan, scratch.path(), err);
            run = new Run(args.mode(), rttPlan, bwPlan, rtt, bw, (System.nanoTime() - start) / 1e9, before,
                    Host.loadAverage());
        }
        Run done = run;
        return args.finish("transport", o -> TransportReport.printJson(done, o), o -> TransportReport.printTables(done, o),
                file -> TransportPlot.write(done, file), !run.failures().isEmpty(), out, err);
    }

    /** {@code -Dverbatim.bench.trace=true}: every turn's figure on stderr (which contender, round, size, result). */
    static final boolean TRACE = Boolean.getBoolean("verbatim.bench.trace");

    /**
     * A contender's two processes, up for the whole suite, and what it measured. The first side
     * (pong, consumer) and the second (ping, producer).
     */
    private static final class Pair extends TurnSides {
        final Medium medium;
        final String name;
        final Map<Integer, List<LatencyHistogram>> histograms = new LinkedHashMap<>();
        final Map<Integer, List<double[]>> batches = new LinkedHashMap<>();
        final Map<Integer, List<Double>> cpu = new LinkedHashMap<>();

        Pair(String id, Medium medium, String name) {
            super(id);
            this.medium = medium;
            this.name = name;
        }

        Map<Integer, Double> meanCpu() {
            return meanShares(cpu, new LinkedHashMap<>());
        }
    }

    /** The turns of round {@code round}: every pair still up, the order rotated by the round. */
    private static List<Pair> turns(List<Pair> pairs, int round) {
        return Turns.rotation(pairs.stream().filter(Pair::ok).toList(), round);
    }

    /**
     * Round trips of several contenders of one medium, taking turns: every pong and ping is started
     * once and waits, paused, while the others measure (a paused pong sleeps; nothing spins but the
     * pair whose turn it is); for each size, round after round, each pair in turn is resumed, measures
     * one slice and is paused again. The host changes under a long run (on this project's virtual
     * machine the two CPUs' distance, and so every round trip, changes by 3-4x for seconds at a time):
     * turns of a fraction of a second give every contender the same mixture. A contender's figure is the
     * median of its turns' figures; a ratio, the median of the ratios of the turns of a round.
     */
    static List<RttResult> runPingPongs(List<PingPongContender> contenders, List<Plan.Rtt> plan, int retries,
                                        Path base, PrintStream err) {
        long deadline = (Plan.rttMillis(plan) * (1 + retries) + 20_000) * contenders.size() + 120_000;
        List<Pair> pairs = new ArrayList<>();
        for (PingPongContender c : contenders) {
            Pair p = new Pair(Contenders.id(c), c.medium(), c.name());
            pairs.add(p);
            err.printf(Locale.ROOT, "verbatim bench transport: %s round trips: starting ...%n", p.id);
            try {
                p.dir = ScratchDir.sessionDir(base, p.id);
                Map<String, String> common = Session.properties(p.dir, Plan.maxRttSize(plan), deadline);
                p.start(c, Peer.class, "pong", "ping", common, READY_TIMEOUT);
                pause(p);
            } catch (Exception e) {
                p.fail(e, err);
            }
        }
        try {
            for (Plan.Rtt r : plan) {
                err.printf(Locale.ROOT, "verbatim bench transport: round trips of %d bytes, %d rounds ...%n", r.size(), r.rounds());
                for (int round = 0; round < r.rounds(); round++) {
                    for (Pair p : turns(pairs, round)) {
                        try {
                            long warm = round == 0 ? r.firstWarmMillis() : r.warmMillis();
                            p.first.send("RESUME");
                            p.second.send("RTT " + r.size() + " " + warm + " " + r.measureMillis() + " " + retries);
                            Map<String, String> m = ChildMain.props(last(p.second.awaitLine("RTT",
                                    Duration.ofMillis((warm + r.measureMillis()) * (1 + retries) + 30_000))));
                            p.trips = Long.parseLong(m.get("trips"));
                            LatencyHistogram h = LatencyHistogram.decode(m.get("hist"));
                            p.histograms.computeIfAbsent(r.size(), k -> new ArrayList<>()).add(h);
                            p.cpu.computeIfAbsent(r.size(), k -> new ArrayList<>()).add(Double.parseDouble(m.get("cpu")));
                            if (TRACE) {
                                err.printf(Locale.ROOT, "  %-12s rtt-%-6d round %2d  p50 %8.0f ns  p99 %8.0f ns  cpu %s%n", p.id,
                                        r.size(), round, h.quantile(0.5), h.quantile(0.99), m.get("cpu"));
                            }
                            pause(p);
                        } catch (Exception e) {
                            p.fail(e, err);
                        }
                    }
                }
            }
            for (Pair p : pairs) {
                if (p.ok()) {
                    try {
                        p.first.send("RESUME");
                        p.second.send("STOP"); // the ping closes, which ends the pong's echo loop
                        p.second.awaitLine("DONE", Duration.ofSeconds(10));
                        p.first.awaitLine("DONE", Duration.ofSeconds(10));
                    } catch (Exception e) {
                        p.fail(e, err);
                    }
                }
            }
        } finally {
            pairs.forEach(Pair::close);
        }
        List<RttResult> out = new ArrayList<>();
        for (Pair p : pairs) {
            out.add(new RttResult(p.medium, p.name, p.histograms, p.meanCpu(), p.error));
        }
        return out;
    }

    /** Puts a pair to sleep: the pong after one more echo, for which the ping makes one round trip. */
    private static void pause(Pair p) throws Exception {
        p.trips = Turns.pause(p.first, p.second, p.trips);
    }

    /**
     * Streams of several contenders, taking turns as {@link #runPingPongs} does: every consumer and
     * producer is started once; a side waits for its next command without spinning, so only the pair
     * whose turn it is runs. A contender's figure is the
     * median of its turns' median batches.
     */
    static List<BwResult> runStreams(List<StreamContender> contenders, List<Plan.Bw> plan, Path base, PrintStream err) {
        long deadline = 180_000L * contenders.size() + 120_000;
        List<Pair> pairs = new ArrayList<>();
        for (StreamContender c : contenders) {
            Pair p = new Pair(Contenders.id(c), c.medium(), c.name());
            pairs.add(p);
            err.printf(Locale.ROOT, "verbatim bench transport: %s streaming: starting ...%n", p.id);
            try {
                p.dir = ScratchDir.sessionDir(base, p.id);
                Map<String, String> common = Session.properties(p.dir, Plan.maxBwSize(plan), deadline);
                p.start(c, Peer.class, "consumer", "producer", common, READY_TIMEOUT);
            } catch (Exception e) {
                p.fail(e, err);
            }
        }
        try {
            for (Plan.Bw b : plan) {
                err.printf(Locale.ROOT, "verbatim bench transport: streams of %d-byte messages, %d rounds ...%n", b.size(), b.rounds());
                for (int round = 0; round < b.rounds(); round++) {
                    for (Pair p : turns(pairs, round)) {
                        try {
                            long total = b.total(round);
                            p.second.send("SEND " + b.size() + " " + total);
                            p.first.send("BW " + b.size() + " " + (total - b.perBatch() * b.batches()) + " " + b.perBatch()
                                    + " " + b.batches());
                            Map<String, String> m = ChildMain.props(last(p.first.awaitLine("BW", Duration.ofSeconds(120))));
                            p.second.awaitLine("SENT", Duration.ofSeconds(10));
                            double[] got = Stream.of(m.get("mbps").split(",")).mapToDouble(Double::parseDouble).toArray();
                            p.batches.computeIfAbsent(b.size(), k -> new ArrayList<>()).add(got);
                            p.cpu.computeIfAbsent(b.size(), k -> new ArrayList<>()).add(Double.parseDouble(m.get("cpu")));
                            if (TRACE) {
                                err.printf(Locale.ROOT, "  %-12s bw-%-8d round %2d  MB/s %s  cpu %s%n", p.id, b.size(), round,
                                        m.get("mbps"), m.get("cpu"));
                            }
                        } catch (Exception e) {
                            p.fail(e, err);
                        }
                    }
                }
            }
            for (Pair p : pairs) {
                if (p.ok()) {
                    try {
                        p.first.send("STOP");
                        p.second.send("STOP");
                        p.first.awaitLine("DONE", Duration.ofSeconds(10));
                        p.second.awaitLine("DONE", Duration.ofSeconds(10));
                    } catch (Exception e) {
                        p.fail(e, err);
                    }
                }
            }
        } finally {
            pairs.forEach(Pair::close);
        }
        List<BwResult> out = new ArrayList<>();
        for (Pair p : pairs) {
            out.add(new BwResult(p.medium, p.name, p.batches, p.meanCpu(), p.error));
        }
        return out;
    }

    private static String last(List<String> lines) {
        return lines.getLast();
    }

    /** For running the suite without the CLI: {@code [--quick] [--json] [--plot PATH]}. */
    public static void main(String[] args) throws Exception {
        SuiteArgs a = SuiteArgs.parse(args);
        System.exit(run(a.quick(), a.json(), a.plot(), System.out, System.err));
    }
}
