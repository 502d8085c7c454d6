package dev.verbatim.bench.rpc;

import dev.verbatim.bench.transport.ChildProcess;
import dev.verbatim.bench.transport.LatencyHistogram;
import dev.verbatim.bench.transport.Medium;
import dev.verbatim.bench.transport.Session;
import dev.verbatim.bench.transport.TransportBench;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The rpc suite, {@code verbatim bench rpc [--quick] [--json] [--plot PATH]}: J-RPC Table 2 (null
 * call, four int arguments, one remote-interface argument) and Figure 7 (an 8 KiB array argument's
 * bandwidth), and Jaguar Figure 8's 128-element list as an argument, every contender of
 * {@link RpcContenders} side by side in one run: the transport floors, Verbatim (added with the
 * RPC module), Java RMI and gRPC-java on loopback, Aeron IPC echo.
 *
 * <p>The machinery is the transport suite's ({@link ChildProcess}, {@link Session},
 * {@link LatencyHistogram}, {@link dev.verbatim.bench.transport.Peer#host}): for every contender, one
 * at a time, its server process ({@link RpcPeer} {@code server}), then its client process, which
 * runs the contender's cases one after the other (warm-up, then every call timed) and reports a
 * histogram per case; then the tables or JSON lines and the targets ({@link RpcReport}) and, with a
 * plot path, the PNG ({@link RpcPlot}). The private directory under {@code /dev/shm} is deleted and
 * every child is gone when {@link #run} returns, whatever happened. A contender that fails is
 * reported and left out of the figures; the run goes on and exits with code 1.
 * {@code -Dverbatim.bench.only=shm/floor,tcp/rmi} runs only those contenders.
 */
public final class RpcBench {
    private RpcBench() {}

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);
    /** {@code -Dverbatim.bench.trace=true}: each case's warm-up and call counts on stderr. */
    private static final boolean TRACE = Boolean.getBoolean("verbatim.bench.trace");

    /** One contender's calls: a histogram per case, or the error that stopped it. */
    public record Result(String id, String name, Medium medium, Set<Medium> shownIn, boolean spins,
                         Map<RpcCase, LatencyHistogram> byCase, Map<RpcCase, Double> cpu, String error) {
        public boolean ok() {
            return error == null;
        }

        public boolean has(RpcCase c) {
            return byCase.containsKey(c) && byCase.get(c).count() > 0;
        }

        /** The q-quantile of case {@code c}'s calls, ns. */
        public double quantile(RpcCase c, double q) {
            return byCase.get(c).quantile(q);
        }
    }

    /** Figures of one run. */
    public record Run(String mode, long warmMillis, long measureMillis, List<Result> results, double seconds,
                      double loadBefore, double loadAfter) {
        /** The contenders that produced figures and are shown in {@code m}'s tables, in column order. */
        public List<Result> shownIn(Medium m) {
            return results.stream().filter(r -> r.ok() && r.shownIn().contains(m)).toList();
        }

        public List<String> failures() {
            return results.stream().filter(r -> !r.ok()).map(r -> r.id() + ": " + r.error()).toList();
        }
    }

    /** Warm-up and measuring time per case (ms); the first case of a contender warms up longer (the JIT). */
    static long warmMillis(boolean quick) {
        return quick ? 100 : 1000;
    }

    static long measureMillis(boolean quick) {
        return quick ? 300 : 2500;
    }

    static long firstWarmExtraMillis(boolean quick) {
        return quick ? 350 : 1000;
    }

    /** Warm-up calls at least: a contender's first case warms up the shared paths (the JIT: gRPC needs ~20,000). */
    static long warmCalls(boolean quick, boolean first) {
        return first ? (quick ? 12_000 : 30_000) : (quick ? 2_000 : 5_000);
    }

    /** Warm-up time at most, whatever the calls. */
    static long maxWarmMillis(boolean quick, boolean first) {
        return first ? (quick ? 8_000 : 15_000) : (quick ? 1_000 : 3_000);
    }

    /** A contender's plan: its cases in {@link RpcCase} order. */
    static List<RpcPeer.Step> plan(RpcContender c, boolean quick) {
        List<RpcPeer.Step> p = new ArrayList<>();
        for (RpcCase rc : RpcCase.values()) {
            if (c.cases().contains(rc)) {
                boolean first = p.isEmpty();
                long warm = warmMillis(quick) + (first ? firstWarmExtraMillis(quick) : 0);
                p.add(new RpcPeer.Step(rc, warm, warmCalls(quick, first), maxWarmMillis(quick, first),
                        measureMillis(quick)));
            }
        }
        return p;
    }

    /** Runs the suite, prints it, writes the plot to {@code plot} when not null; returns the exit code. */
    public static int run(boolean quick, boolean json, Path plot, PrintStream out, PrintStream err) throws Exception {
        long start = System.nanoTime();
        List<Result> results = new ArrayList<>();
        Path base = TransportBench.privateDir();
        Thread cleaner = new Thread(() -> TransportBench.deleteTree(base), "verbatim-bench-cleanup");
        Runtime.getRuntime().addShutdownHook(cleaner);
        Run run;
        try {
            double before = TransportBench.loadAverage();
            for (RpcContender c : RpcContenders.all()) {
                String id = RpcContenders.id(c);
                if (!TransportBench.selected(id)) {
                    continue;
                }
                err.printf(Locale.ROOT, "verbatim bench rpc: %s calls ...", id);
                long t0 = System.nanoTime();
                Result r = runContender(c, plan(c, quick), base);
                err.printf(Locale.ROOT, " %.1f s%n", (System.nanoTime() - t0) / 1e9);
                if (!r.ok()) {
                    err.println("  FAILED: " + r.error());
                }
                results.add(r);
            }
            run = new Run(quick ? "quick" : "full", warmMillis(quick), measureMillis(quick), results,
                    (System.nanoTime() - start) / 1e9, before, TransportBench.loadAverage());
        } finally {
            ChildProcess.closeAll();
            TransportBench.deleteTree(base);
            try {
                Runtime.getRuntime().removeShutdownHook(cleaner);
            } catch (IllegalStateException e) {
                // shutting down already
            }
        }
        if (json) {
            RpcReport.printJson(run, out);
        } else {
            RpcReport.printTables(run, out);
        }
        if (plot != null) {
            RpcPlot.write(run, plot);
            err.println("verbatim bench rpc: plot written to " + plot.toAbsolutePath());
        }
        return run.failures().isEmpty() ? 0 : 1;
    }

    /** The session properties of one contender's run (the harness's, plus the floor's one-word reply). */
    static Map<String, String> common(Path dir, long deadlineMillis) {
        Map<String, String> m = TransportBench.common(dir, RpcCase.BYTES, deadlineMillis);
        m.put(Session.REPLY_MAX, Integer.toString(PingPongRpc.REPLY));
        return m;
    }

    /**
     * Starts {@code c}'s server process and waits for it to be ready; returns the process and, in
     * {@code session}, the properties for the client (the common ones plus what the server published).
     */
    static ChildProcess startServer(RpcContender c, Map<String, String> common, Map<String, String> session)
            throws Exception {
        String id = RpcContenders.id(c);
        ChildProcess server = ChildProcess.start("server " + id, c.jvmFlags(), RpcPeer.class.getName(),
                TransportBench.args("server", id, common));
        try {
            Map<String, String> published = TransportBench.props(server.awaitLine("READY", READY_TIMEOUT).getLast());
            session.putAll(common);
            session.putAll(published);
            return server;
        } catch (Exception | Error e) {
            server.close();
            throw e;
        }
    }

    /** Stops a server process whose client is done: STOP, then its DONE (it closed cleanly). */
    static void stopServer(ChildProcess server) throws Exception {
        server.send("STOP");
        server.awaitLine("DONE", Duration.ofSeconds(10));
    }

    /** One contender: server process, client process, histograms back. */
    static Result runContender(RpcContender c, List<RpcPeer.Step> plan, Path base) {
        String id = RpcContenders.id(c);
        Map<RpcCase, LatencyHistogram> byCase = new EnumMap<>(RpcCase.class);
        Map<RpcCase, Double> cpu = new EnumMap<>(RpcCase.class);
        Path dir = null;
        try {
            dir = TransportBench.sessionDir(base, id);
            long budget = plan.stream().mapToLong(s -> Math.max(s.warmMillis(), s.maxWarmMillis()) + s.measureMillis())
                    .sum() + 60_000;
            Map<String, String> common = common(dir, budget + 2 * READY_TIMEOUT.toMillis());
            Map<String, String> clientArgs = new LinkedHashMap<>();
            try (ChildProcess server = startServer(c, common, clientArgs)) {
                clientArgs.put(RpcPeer.PLAN, RpcPeer.encode(plan));
                try (ChildProcess client = ChildProcess.start("client " + id, c.jvmFlags(), RpcPeer.class.getName(),
                        TransportBench.args("client", id, clientArgs))) {
                    client.awaitLine("READY", READY_TIMEOUT);
                    for (String line : client.awaitLine("DONE", Duration.ofMillis(budget))) {
                        if (line.startsWith("CALLS ")) {
                            Map<String, String> p = TransportBench.props(line);
                            RpcCase rc = RpcCase.of(p.get("case"));
                            byCase.put(rc, LatencyHistogram.decode(p.get("hist")));
                            cpu.put(rc, Double.parseDouble(p.get("cpu")));
                            if (TRACE) {
                                System.err.printf(Locale.ROOT, "%n  %s %s: %s warm-up calls in %s ms, %d calls", id,
                                        rc.key(), p.get("warm"), p.get("warmMs"), byCase.get(rc).count());
                            }
                        }
                    }
                }
                stopServer(server);
            }
            return new Result(id, c.name(), c.medium(), c.shownIn(), c.spins(), byCase, cpu, null);
        } catch (Exception e) {
            return new Result(id, c.name(), c.medium(), c.shownIn(), c.spins(), byCase, cpu, String.valueOf(e.getMessage()));
        } finally {
            if (dir != null) {
                TransportBench.deleteTree(dir);
            }
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
