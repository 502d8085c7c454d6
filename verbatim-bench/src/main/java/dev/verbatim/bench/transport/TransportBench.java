package dev.verbatim.bench.transport;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * The transport suite, {@code verbatim bench transport}: Javia's Tables 1-2 (round-trip latency of
 * small messages, per-byte cost) and Figures 3/6 (round trip and bandwidth against message size),
 * every contender of {@link Contenders} side by side in one run, each one's two sides in two
 * child processes ({@link ChildProcess}, {@link Peer}), one contender at a time (the host has two
 * cores and each side spins on one).
 *
 * <p>Order of a run: a private directory under {@code /dev/shm}; for every round-trip contender, the
 * pong process, then the ping process, which measures each message size (warm-up, then every round
 * trip into a {@link LatencyHistogram}) and reports the histograms; then for every stream contender,
 * the consumer, then the producer, the consumer timing batches; last the tables (or JSON lines), the
 * targets and, with a plot path, the PNG ({@link TransportPlot}). The directory is deleted and every
 * child is gone when {@link #run} returns, whatever happened. A contender that fails is reported and
 * left out of the figures; the run goes on and exits with code 1.
 */
public final class TransportBench {
    private TransportBench() {}

    /** Round-trip message sizes: 8 B (Tables 1-2) up to 64 KiB (the per-byte fit). */
    static final List<Integer> RTT_SIZES = List.of(8, 64, 256, 1024, 4096, 16384, 65536);
    /** Streaming message sizes, 64 B to 1 MiB. */
    static final List<Integer> BW_SIZES = List.of(64, 256, 1024, 4096, 8192, 65536, 1 << 20);
    static final int RTT_8 = 8;
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);
    private static final AtomicInteger RUNS = new AtomicInteger();

    /** Round trips of one contender: a histogram per message size, or the error that stopped it. */
    public record RttResult(Medium medium, String name, Map<Integer, LatencyHistogram> bySize,
                            Map<Integer, Double> cpu, String error) {
        public boolean ok() {
            return error == null;
        }

        /** The median round trip of {@code size}-byte messages, ns. */
        public double p50(int size) {
            return bySize.get(size).quantile(0.5);
        }

        /** Least-squares line through the medians against size: slope = per-byte cost (ns/byte). */
        public LinearFit fit() {
            double[] x = bySize.keySet().stream().mapToDouble(Integer::doubleValue).toArray();
            double[] y = bySize.keySet().stream().mapToDouble(this::p50).toArray();
            return LinearFit.of(x, y);
        }
    }

    /** One-way streaming of one contender: per message size, MB/s of each timed batch. */
    public record BwResult(Medium medium, String name, Map<Integer, double[]> bySize, Map<Integer, Double> cpu,
                           String error) {
        public boolean ok() {
            return error == null;
        }

        /** The median batch, MB/s (10^6 bytes per second). */
        public double median(int size) {
            double[] s = bySize.get(size).clone();
            java.util.Arrays.sort(s);
            return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
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

    static List<Plan.Rtt> rttPlan(boolean quick) {
        List<Plan.Rtt> p = new ArrayList<>();
        for (int size : RTT_SIZES) {
            if (size == RTT_8) {
                p.add(quick ? new Plan.Rtt(size, 250, 600) : new Plan.Rtt(size, 1000, 5000));
            } else {
                p.add(quick ? new Plan.Rtt(size, 40, 120) : new Plan.Rtt(size, 200, 1000));
            }
        }
        return p;
    }

    static List<Plan.Bw> bwPlan(boolean quick) {
        long batchBytes = quick ? 24L << 20 : 64L << 20;
        int batches = quick ? 5 : 11;
        List<Plan.Bw> p = new ArrayList<>();
        for (int size : BW_SIZES) {
            long perBatch = Math.max(16, batchBytes / size);
            p.add(new Plan.Bw(size, quick ? perBatch : 2 * perBatch, perBatch, batches));
        }
        return p;
    }

    /** Runs the suite without a plot. */
    public static int run(boolean quick, boolean json, PrintStream out, PrintStream err) throws Exception {
        return run(quick, json, null, out, err);
    }

    /** Runs the suite, prints it, writes the plot to {@code plot} when not null; returns the exit code. */
    public static int run(boolean quick, boolean json, Path plot, PrintStream out, PrintStream err) throws Exception {
        long start = System.nanoTime();
        List<Plan.Rtt> rttPlan = rttPlan(quick);
        List<Plan.Bw> bwPlan = bwPlan(quick);
        List<RttResult> rtt = new ArrayList<>();
        List<BwResult> bw = new ArrayList<>();
        Path base = privateDir();
        Run run;
        Thread cleaner = new Thread(() -> deleteTree(base), "verbatim-bench-cleanup");
        Runtime.getRuntime().addShutdownHook(cleaner);
        try {
            double before = loadAverage();
            for (PingPongContender c : Contenders.pingPong()) {
                if (!selected(Contenders.id(c))) {
                    continue;
                }
                err.printf(Locale.ROOT, "verbatim bench transport: %s round trips ...%n", Contenders.id(c));
                RttResult r = runPingPong(c, rttPlan, quick ? 1 : 2, base);
                if (!r.ok()) {
                    err.println("  FAILED: " + r.error());
                }
                rtt.add(r);
            }
            for (StreamContender c : Contenders.stream()) {
                if (!selected(Contenders.id(c))) {
                    continue;
                }
                err.printf(Locale.ROOT, "verbatim bench transport: %s streaming ...%n", Contenders.id(c));
                BwResult r = runStream(c, bwPlan, base);
                if (!r.ok()) {
                    err.println("  FAILED: " + r.error());
                }
                bw.add(r);
            }
            run = new Run(quick ? "quick" : "full", rttPlan, bwPlan, rtt, bw, (System.nanoTime() - start) / 1e9,
                    before, loadAverage());
        } finally {
            ChildProcess.closeAll();
            deleteTree(base);
            try {
                Runtime.getRuntime().removeShutdownHook(cleaner);
            } catch (IllegalStateException e) {
                // shutting down already
            }
        }
        if (json) {
            TransportReport.printJson(run, out);
        } else {
            TransportReport.printTables(run, out);
        }
        if (plot != null) {
            TransportPlot.write(run, plot);
            err.println("verbatim bench transport: plot written to " + plot.toAbsolutePath());
        }
        return run.failures().isEmpty() ? 0 : 1;
    }

    /** One round-trip contender: pong process, ping process, histograms back. */
    static RttResult runPingPong(PingPongContender c, List<Plan.Rtt> plan, int retries, Path base) {
        String id = Contenders.id(c);
        Map<Integer, LatencyHistogram> bySize = new LinkedHashMap<>();
        Map<Integer, Double> cpu = new LinkedHashMap<>();
        Path dir = null;
        try {
            dir = sessionDir(base, id);
            long budget = Plan.rttMillis(plan) * (1 + retries) + 60_000;
            Map<String, String> common = common(dir, Plan.maxRttSize(plan), budget + 2 * READY_TIMEOUT.toMillis());
            try (ChildProcess pong = ChildProcess.start("pong " + id, c.jvmFlags(), Peer.class.getName(),
                    args("pong", id, common))) {
                Map<String, String> published = props(last(pong.awaitLine("READY", READY_TIMEOUT)));
                Map<String, String> pingArgs = new LinkedHashMap<>(common);
                pingArgs.putAll(published);
                pingArgs.put("rtt", Plan.encodeRtt(plan));
                pingArgs.put("retries", Integer.toString(retries));
                try (ChildProcess ping = ChildProcess.start("ping " + id, c.jvmFlags(), Peer.class.getName(),
                        args("ping", id, pingArgs))) {
                    ping.awaitLine("READY", READY_TIMEOUT);
                    for (String line : ping.awaitLine("DONE", Duration.ofMillis(budget))) {
                        if (line.startsWith("RTT ")) {
                            Map<String, String> p = props(line);
                            int size = Integer.parseInt(p.get("size"));
                            bySize.put(size, LatencyHistogram.decode(p.get("hist")));
                            cpu.put(size, Double.parseDouble(p.get("cpu")));
                        }
                    }
                }
                pong.awaitLine("DONE", Duration.ofSeconds(10)); // the ping's close ended the pong's loop
            }
            return new RttResult(c.medium(), c.name(), bySize, cpu, null);
        } catch (Exception e) {
            return new RttResult(c.medium(), c.name(), bySize, cpu, String.valueOf(e.getMessage()));
        } finally {
            if (dir != null) {
                deleteTree(dir);
            }
        }
    }

    /** One stream contender: consumer process, producer process, batch figures back. */
    static BwResult runStream(StreamContender c, List<Plan.Bw> plan, Path base) {
        String id = Contenders.id(c);
        Map<Integer, double[]> bySize = new LinkedHashMap<>();
        Map<Integer, Double> cpu = new LinkedHashMap<>();
        Path dir = null;
        try {
            dir = sessionDir(base, id);
            long budget = 120_000;
            Map<String, String> common = common(dir, Plan.maxBwSize(plan), budget + 2 * READY_TIMEOUT.toMillis());
            common.put("bw", Plan.encodeBw(plan));
            try (ChildProcess consumer = ChildProcess.start("consumer " + id, c.jvmFlags(), Peer.class.getName(),
                    args("consumer", id, common))) {
                Map<String, String> producerArgs = new LinkedHashMap<>(common);
                producerArgs.putAll(props(last(consumer.awaitLine("READY", READY_TIMEOUT))));
                try (ChildProcess producer = ChildProcess.start("producer " + id, c.jvmFlags(), Peer.class.getName(),
                        args("producer", id, producerArgs))) {
                    producer.awaitLine("READY", READY_TIMEOUT);
                    for (String line : consumer.awaitLine("DONE", Duration.ofMillis(budget))) {
                        if (line.startsWith("BW ")) {
                            Map<String, String> p = props(line);
                            int size = Integer.parseInt(p.get("size"));
                            bySize.put(size, Stream.of(p.get("mbps").split(",")).mapToDouble(Double::parseDouble).toArray());
                            cpu.put(size, Double.parseDouble(p.get("cpu")));
                        }
                    }
                    producer.awaitLine("SENT", Duration.ofSeconds(10));
                    producer.send("STOP");
                    producer.awaitLine("DONE", Duration.ofSeconds(10));
                }
            }
            return new BwResult(c.medium(), c.name(), bySize, cpu, null);
        } catch (Exception e) {
            return new BwResult(c.medium(), c.name(), bySize, cpu, String.valueOf(e.getMessage()));
        } finally {
            if (dir != null) {
                deleteTree(dir);
            }
        }
    }

    /** Contender ids to run, from {@value #ONLY} (comma-separated, e.g. {@code shm/floor,shm/aeron}); all when unset. */
    public static final String ONLY = "verbatim.bench.only";

    public static boolean selected(String id) {
        String only = System.getProperty(ONLY);
        return only == null || only.isBlank() || List.of(only.split(",")).contains(id);
    }

    /** The host's 1-minute load average (NaN where unknown): above ~2 on a 2-core host, spinning sides get descheduled. */
    public static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    /** The harness's session properties for one contender's run: directory, unique name, largest message, deadline. */
    public static Map<String, String> common(Path dir, int maxSize, long deadlineMillis) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(Session.DIR, dir.toString());
        m.put(Session.NAME, "vb" + ProcessHandle.current().pid() + "-" + RUNS.incrementAndGet());
        m.put(Session.MAX_SIZE, Integer.toString(maxSize));
        m.put("deadlineMs", Long.toString(deadlineMillis));
        return m;
    }

    /** A child's arguments: {@code ROLE ID key=value...}. */
    public static List<String> args(String role, String id, Map<String, String> props) {
        List<String> a = new ArrayList<>(List.of(role, id));
        props.forEach((k, v) -> a.add(k + "=" + v));
        return a;
    }

    private static String last(List<String> lines) {
        return lines.getLast();
    }

    /** The {@code key=value} words of a protocol line (the keyword dropped). */
    public static Map<String, String> props(String line) {
        Map<String, String> m = new LinkedHashMap<>();
        String[] words = line.trim().split("\\s+");
        for (int i = 1; i < words.length; i++) {
            int eq = words[i].indexOf('=');
            if (eq > 0) {
                m.put(words[i].substring(0, eq), words[i].substring(eq + 1));
            }
        }
        return m;
    }

    /** A new owner-only directory under /dev/shm (or the temporary directory where there is none). */
    public static Path privateDir() throws IOException {
        Path shm = Path.of("/dev/shm");
        Path parent = Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
        return Files.createTempDirectory(parent, "verbatim-bench-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }

    /** A new owner-only directory for one contender's run under {@code base}. */
    public static Path sessionDir(Path base, String id) throws IOException {
        return Files.createDirectory(base.resolve(id.replace('/', '-') + "-" + RUNS.incrementAndGet()),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }

    /** Deletes {@code root} and everything under it; quiet about what is already gone. */
    public static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    // reported below if the root survives
                }
            });
        } catch (IOException e) {
            // fall through
        }
        if (Files.exists(root)) {
            System.err.println("verbatim bench transport: could not delete " + root);
        }
    }

    /** For running the suite without the CLI: {@code [--quick] [--json] [--plot PATH]}. */
    public static void main(String[] args) throws Exception {
        List<String> a = new ArrayList<>(List.of(args));
        Path plot = null;
        int i = a.indexOf("--plot");
        if (i >= 0) {
            plot = Path.of(a.get(i + 1));
            a.remove(i + 1);
            a.remove(i);
        }
        System.exit(run(a.remove("--quick"), a.remove("--json"), plot, System.out, System.err));
    }
}
