package dev.verbatim.bench.rpc;

import dev.verbatim.bench.harness.ChildMain;
import dev.verbatim.bench.harness.ChildProcess;
import dev.verbatim.bench.harness.Json;
import dev.verbatim.bench.harness.Target;
import dev.verbatim.rpc.Node;
import dev.verbatim.rpc.Remote;
import dev.verbatim.transport.ConnectionOptions;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * Case {@code scale/idle-1000} of {@code bench rpc} (issue 18 §1): one node (a server process) holds 1,000
 * tcp connections from client processes, each making one null call per second, while one more connection,
 * from its own process, measures the null call. The node's resident memory and threads per connection
 * (its {@code /proc/self/status} before the connections and with them), and the measuring connection's
 * p50 with the connections against the same without them (measured in {@link #WINDOWS} windows before they open, as
 * many with them and as many after they closed; each side's lowest window, as the other processes on a shared host only
 * ever make a window's p50 higher). Targets: at most 256 KiB and no thread per idle connection (at most
 * 0.1), p50 at most 1.2 times the unloaded one. {@code --quick}: 200 connections and shorter windows (the
 * report says so). {@code -Dverbatim.bench.scale.connections=N} changes the count (how far it goes).
 * In {@code bench rpc} the processes are started ahead ({@link #start}, with the contenders', which took 2-3 s
 * off a quick run) and wait idle for the case after the turns ({@link #measure(Setup, PrintStream)}): the load
 * processes open their connections only then.
 */
public final class ScaleIdle {
    private ScaleIdle() {}

    /** The case's name in tables and JSON (whatever the count: the name). */
    static final String CASE = "scale/idle-1000";
    static final String KIB = "kib-per-connection";
    static final String THREADS = "threads-per-connection";
    static final String LOADED = "p50-loaded";
    static final String UNLOADED = "p50-unloaded";
    static final String CPU = "node-cpu-us-per-call";
    private static final Duration READY = Duration.ofSeconds(60);
    /**
     * Windows measured before the connections, with them and after them (full run; quick: {@link #QUICK_WINDOWS}); each
     * side's figure is its lowest window p50. One window a side made the ratio a draw of the host's state: the same code,
     * run after run on one host, gave 1.07-2.06x, and one run's 2 s windows without the connections moved 10.3-27.8 us.
     */
    static final int WINDOWS = 3;
    static final int QUICK_WINDOWS = 2;
    /** Milliseconds between two calls of one connection ({@code -Dverbatim.bench.scale.periodMillis}; the issue's: 1,000). */
    private static final long PERIOD_MILLIS = Long.getLong("verbatim.bench.scale.periodMillis", 1000);
    /** Connections per client process ({@code -Dverbatim.bench.scale.perProcess}, for runs of many thousands). */
    private static final int PER_PROCESS = Integer.getInteger("verbatim.bench.scale.perProcess", 250);

    /** The service: the null call. */
    public interface Ping extends Remote {
        void nothing();
    }

    /**
     * What one run measured: {@code connections} idle ones; the node's resident KiB and threads before
     * and with them; p50s in ns; the node's CPU time per call of the load connections (µs: user and system, while only
     * they called: what a sporadic call costs the node, and so how many a second its CPUs can take); {@code error} if
     * it failed (then the figures are NaN).
     */
    public record Result(int connections, boolean quick, long rssBeforeKib, long rssLoadedKib, int threadsBefore,
                         int threadsLoaded, int fdsBefore, int fdsLoaded, double p50Loaded, double p50Unloaded,
                         double cpuMicrosPerCall, String error) {
        double kibPerConnection() {
            return (double) (rssLoadedKib - rssBeforeKib) / connections;
        }

        double threadsPerConnection() {
            return (double) (threadsLoaded - threadsBefore) / connections;
        }

        double ratio() {
            return p50Loaded / p50Unloaded;
        }

        static Result failed(int connections, boolean quick, String error) {
            return new Result(connections, quick, 0, 0, 0, 0, 0, 0, Double.NaN, Double.NaN, Double.NaN, error);
        }
    }

    /** The connection count: 1,000 (quick: 200), or the system property's. */
    static int connections(boolean quick) {
        return Integer.getInteger("verbatim.bench.scale.connections", quick ? 200 : 1000);
    }

    /**
     * The case's processes, started ahead of it ({@link #start}, while {@code bench rpc}'s contenders start)
     * and idle until {@link #measure}: the node (a server process), the measuring connection's process
     * (warmed up), and the load processes, up but not yet connected (they connect on {@code CONNECT}).
     * Idle they cost nothing: the node and the meter wait in the kernel, the loads on their stdin.
     * {@link #close()} ends every one of them. Used by one thread at a time.
     */
    static final class Setup implements AutoCloseable {
        final int connections;
        final boolean quick;
        final List<ChildProcess> children = new ArrayList<>();
        ChildProcess server;
        ChildProcess meter;
        final List<ChildProcess> loads = new ArrayList<>();
        /** Why the processes could not be started, or null. */
        String error;
        /** When {@link #start} began (nanoTime), for the case's time. */
        final long startNanos = System.nanoTime();

        Setup(int connections, boolean quick) {
            this.connections = connections;
            this.quick = quick;
        }

        @Override
        public void close() {
            children.forEach(ChildProcess::close);
            children.clear();
        }
    }

    /**
     * Starts the case's processes (see {@link Setup}); returns once all are up, or with {@link Setup#error}
     * set (and every child that did start closed).
     */
    static Setup start(boolean quick) {
        Setup s = new Setup(connections(quick), quick);
        try {
            s.server = start(s.children, "scale server", List.of("server", Integer.toString(s.connections)));
            String address = ChildMain.props(s.server.awaitLine("READY", READY).getLast()).get("address");
            s.meter = start(s.children, "scale meter", List.of("meter", address, quick ? "5000" : "20000"));
            for (int left = s.connections; left > 0; left -= PER_PROCESS) {
                s.loads.add(start(s.children, "scale load " + s.loads.size(), List.of("load", address,
                        Integer.toString(Math.min(PER_PROCESS, left)), Long.toString(PERIOD_MILLIS))));
            }
            s.meter.awaitLine("READY", READY);
            for (ChildProcess l : s.loads) {
                l.awaitLine("STARTED", READY);
            }
        } catch (Exception e) {
            s.error = String.valueOf(e);
            s.close();
        }
        return s;
    }

    /**
     * Runs the case with the processes of {@code s} (started by {@link #start}); the loads are gone when it
     * returns, the node and the meter when {@code s} is closed.
     */
    static Result measure(Setup s, PrintStream err) {
        int n = s.connections;
        boolean quick = s.quick;
        long window = quick ? 300 : 2000;
        long settle = quick ? 1000 : 4000;
        int windows = quick ? QUICK_WINDOWS : WINDOWS;
        err.printf(Locale.ROOT, "verbatim bench rpc: %s with %,d connections%s ...%n", CASE, n,
                quick ? " (quick: fewer connections, " + window + " ms windows)" : "");
        long t0 = System.nanoTime();
        if (s.error != null) {
            err.println("verbatim bench rpc: " + CASE + " failed: " + s.error);
            return Result.failed(n, quick, s.error);
        }
        try {
            ChildProcess server = s.server;
            ChildProcess meter = s.meter;
            double[] before = p50s(meter, window, windows);
            Map<String, String> s0 = stats(server);
            for (ChildProcess l : s.loads) {
                l.send("CONNECT");
            }
            for (ChildProcess l : s.loads) {
                l.awaitLine("READY", READY);
            }
            Map<String, String> sa = stats(server);
            long settleStart = System.nanoTime();
            Thread.sleep(settle); // every connection made its calls of a second or more, and went idle between
            Map<String, String> s1 = stats(server);
            double loadCalls = (double) n * (System.nanoTime() - settleStart) / (PERIOD_MILLIS * 1e6);
            double cpuPerCall = cpuMicrosPerCall(Long.parseLong(sa.get("cpu")), Long.parseLong(s1.get("cpu")), loadCalls);
            double[] loaded = p50s(meter, window, windows);
            for (ChildProcess l : s.loads) {
                l.close();
                s.children.remove(l);
            }
            long until = System.nanoTime() + 30_000_000_000L; // until the node dropped them (closing a thousand takes a while)
            while (Long.parseLong(stats(server).get("fds")) > Long.parseLong(s0.get("fds")) + 8 && System.nanoTime() < until) {
                Thread.sleep(100);
            }
            Thread.sleep(settle / 4);
            double[] after = p50s(meter, window, windows);
            err.printf(Locale.ROOT, "verbatim bench rpc: %s done in %.1f s, its processes started %.1f s before"
                            + " (null call p50 per %d ms window, ns: %s before the connections, %s with them, %s after)%n",
                    CASE, (System.nanoTime() - t0) / 1e9, (t0 - s.startNanos) / 1e9, window, ns(before), ns(loaded), ns(after));
            return new Result(n, quick, Long.parseLong(s0.get("rss")), Long.parseLong(s1.get("rss")),
                    Integer.parseInt(s0.get("threads")), Integer.parseInt(s1.get("threads")),
                    Integer.parseInt(s0.get("fds")), Integer.parseInt(s1.get("fds")), lowest(loaded),
                    Math.min(lowest(before), lowest(after)), cpuPerCall, null);
        } catch (Exception e) {
            err.println("verbatim bench rpc: " + CASE + " failed: " + e);
            return Result.failed(n, quick, String.valueOf(e));
        }
    }

    private static ChildProcess start(List<ChildProcess> children, String label, List<String> args) throws IOException {
        ChildProcess c = ChildProcess.start(label, List.of(), ScaleIdle.class.getName(), args);
        children.add(c);
        return c;
    }

    private static Map<String, String> stats(ChildProcess server) throws Exception {
        server.send("STATS");
        return ChildMain.props(server.awaitLine("STATS", Duration.ofSeconds(30)).getLast());
    }

    /** The p50 of each of {@code k} windows in a row. */
    private static double[] p50s(ChildProcess meter, long window, int k) throws Exception {
        double[] p = new double[k];
        for (int i = 0; i < k; i++) {
            p[i] = p50(meter, window);
        }
        return p;
    }

    /** The lowest of the windows' p50s: a shared host's other work only ever adds to a window's. */
    static double lowest(double[] p50s) {
        return Arrays.stream(p50s).min().orElse(Double.NaN);
    }

    private static String ns(double[] p50s) {
        return Arrays.stream(p50s).mapToObj(v -> String.format(Locale.ROOT, "%.0f", v))
                .collect(java.util.stream.Collectors.joining("/"));
    }

    private static double p50(ChildProcess meter, long window) throws Exception {
        meter.send("MEASURE " + window);
        return Double.parseDouble(ChildMain.props(meter.awaitLine("P50", Duration.ofMillis(window + 30_000)).getLast()).get("ns"));
    }

    // ---- report ----------------------------------------------------------------------------------

    static List<Target> targets(Result r) {
        return List.of(
                Target.atMost(CASE + " resident KiB per idle connection", r.error == null ? r.kibPerConnection() : Double.NaN,
                        256, "<= 256 KiB"),
                Target.atMost(CASE + " threads per idle connection", r.error == null ? r.threadsPerConnection() : Double.NaN,
                        0.1, "<= 0.1 (none per connection)"),
                Target.atMost(CASE + " null call p50 loaded / unloaded", r.error == null ? r.ratio() : Double.NaN,
                        1.2, "<= 1.20x"));
    }

    /**
     * The node's CPU time per load call in microseconds, from its process CPU time in ns before and after ({@code -1}:
     * the platform did not give it, {@code ProcessHandle.Info.totalCpuDuration} being empty): NaN when either is unknown.
     */
    static double cpuMicrosPerCall(long cpuBeforeNanos, long cpuAfterNanos, double calls) {
        if (cpuBeforeNanos < 0 || cpuAfterNanos < 0) {
            return Double.NaN;
        }
        return (cpuAfterNanos - cpuBeforeNanos) / 1e3 / calls;
    }

    static void printJson(Result r, PrintStream out) {
        Map<String, Double> results = new java.util.LinkedHashMap<>();
        results.put(KIB, r.kibPerConnection());
        results.put(THREADS, r.threadsPerConnection());
        results.put(LOADED, r.p50Loaded());
        results.put(UNLOADED, r.p50Unloaded());
        results.put(CPU, r.cpuMicrosPerCall());
        if (r.error() != null) {
            out.println(Json.line("rpc").string("failed", CASE).string("error", r.error()));
        } else {
            out.println(Json.line("rpc").string("case", CASE).string("unit", "mixed").raw("connections",
                    Integer.toString(r.connections())).numbers("results", results, Json.decimals(3)));
        }
        for (Target t : targets(r)) {
            out.println(t.jsonLine("rpc"));
        }
    }

    static void printTable(Result r, PrintStream out) {
        out.println();
        out.printf(Locale.ROOT, "Table 9. %s: %,d tcp connections from %d client processes to one node, one null call"
                        + " every %,d ms each, and one more connection measuring the null call%s%n", CASE, r.connections(),
                (r.connections() + PER_PROCESS - 1) / PER_PROCESS, PERIOD_MILLIS,
                r.quick() ? " (quick: fewer connections, shorter windows)" : "");
        if (r.error() != null) {
            out.println("  failed: " + r.error());
        } else {
            out.printf(Locale.ROOT, "  node resident memory: %,d KiB before, %,d KiB with them: %.1f KiB per connection%n",
                    r.rssBeforeKib(), r.rssLoadedKib(), r.kibPerConnection());
            out.printf(Locale.ROOT, "  node threads: %d before, %d with them: %.3f per connection%n", r.threadsBefore(),
                    r.threadsLoaded(), r.threadsPerConnection());
            out.printf(Locale.ROOT, "  node descriptors: %d before, %d with them: %.2f per connection%n", r.fdsBefore(),
                    r.fdsLoaded(), (double) (r.fdsLoaded() - r.fdsBefore()) / r.connections());
            out.printf(Locale.ROOT, "  null call p50: %.0f ns with them, %.0f ns without (the lowest window of each): %.2fx%n",
                    r.p50Loaded(), r.p50Unloaded(), r.ratio());
            double callsPerSecond = r.connections() * 1000.0 / PERIOD_MILLIS;
            if (Double.isNaN(r.cpuMicrosPerCall())) {
                out.println("  node CPU per load call: unknown (the platform gives no process CPU time)");
            } else {
                out.printf(Locale.ROOT, "  node CPU per load call: %.1f us (%.2f of a CPU for their %,d calls a second; the host has %d)%n",
                        r.cpuMicrosPerCall(), r.cpuMicrosPerCall() * callsPerSecond / 1e6, Math.round(callsPerSecond),
                        Runtime.getRuntime().availableProcessors());
            }
        }
        Target.print(out, targets(r), 48, x -> String.format(Locale.ROOT, "%.2f", x), Target.Missing.FIGURE);
    }

    // ---- the child processes --------------------------------------------------------------------

    /** {@code server N} | {@code load ADDRESS N PERIOD_MS} | {@code meter ADDRESS WARM}; commands on stdin, answers as protocol lines. */
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        switch (args[0]) {
            case "server" -> server(Integer.parseInt(args[1]), in);
            case "load" -> load(args[1], Integer.parseInt(args[2]), Long.parseLong(args[3]), in);
            case "meter" -> meter(args[1], Integer.parseInt(args[2]), in);
            default -> throw new IllegalArgumentException("unknown role " + args[0]);
        }
        System.exit(0);
    }

    /** A node for {@code n} connections and a few more (a listener holds 1,024 by default). */
    private static void server(int n, BufferedReader in) throws IOException {
        ConnectionOptions options = Node.DEFAULT_OPTIONS.withListenerLimits(Math.max(1024, n + 64), Duration.ofSeconds(5));
        try (Node node = Node.listen(options, "tcp://127.0.0.1:0")) {
            node.export("ping", Ping.class, () -> { });
            ChildMain.say("READY address=" + node.addresses().getFirst());
            for (String line = in.readLine(); line != null && !line.equals("STOP"); line = in.readLine()) {
                if (line.equals("STATS")) {
                    ChildMain.say("STATS rss=" + status("VmRSS") + " threads=" + status("Threads") + " fds=" + fds()
                            + " cpu=" + ProcessHandle.current().info().totalCpuDuration().map(Duration::toNanos).orElse(-1L));
                }
            }
        }
    }

    /**
     * {@code n} connections (a node each), each calling once every {@code periodMillis}, spread evenly over it,
     * from the parent's {@code CONNECT} on (until then the process waits on its stdin: it is started ahead).
     */
    private static void load(String address, int n, long periodMillis, BufferedReader in) throws IOException {
        ChildMain.say("STARTED");
        if (!"CONNECT".equals(in.readLine())) {
            return; // STOP, or the parent is gone
        }
        List<Node> nodes = new ArrayList<>();
        Ping[] pings = new Ping[n];
        try {
            for (int i = 0; i < n; i++) {
                Node c = Node.create();
                nodes.add(c);
                pings[i] = c.lookup(address, "ping", Ping.class, Duration.ofSeconds(30));
            }
            Thread caller = Thread.ofPlatform().daemon().name("scale-load").start(() -> {
                long period = periodMillis * 1_000_000L / n;
                long next = System.nanoTime();
                for (int i = 0; !Thread.currentThread().isInterrupted(); i = (i + 1) % n) {
                    next += period;
                    long wait = next - System.nanoTime();
                    if (wait > 0) {
                        LockSupport.parkNanos(wait);
                    }
                    pings[i].nothing();
                }
            });
            ChildMain.say("READY");
            while (in.readLine() != null) {
                // until STOP or the parent is gone
            }
            caller.interrupt();
        } finally {
            nodes.forEach(Node::close);
        }
    }

    /** The measuring connection: {@code warm} calls, then a p50 per {@code MEASURE ms} command. */
    private static void meter(String address, int warm, BufferedReader in) throws IOException {
        try (Node node = Node.create()) {
            Ping ping = node.lookup(address, "ping", Ping.class, Duration.ofSeconds(30));
            for (int i = 0; i < warm; i++) {
                ping.nothing(); // warm-up (the JIT)
            }
            ChildMain.say("READY");
            for (String line = in.readLine(); line != null && !line.equals("STOP"); line = in.readLine()) {
                if (line.startsWith("MEASURE ")) {
                    long end = System.nanoTime() + Long.parseLong(line.substring(8)) * 1_000_000L;
                    long[] t = new long[1 << 16];
                    int k = 0;
                    for (long now = System.nanoTime(); now < end; ) {
                        ping.nothing();
                        long done = System.nanoTime();
                        if (k == t.length) {
                            t = Arrays.copyOf(t, 2 * k);
                        }
                        t[k++] = done - now;
                        now = done;
                    }
                    Arrays.sort(t, 0, k);
                    ChildMain.say("P50 ns=" + t[k / 2] + " calls=" + k);
                }
            }
        }
    }

    private static long status(String key) throws IOException {
        for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (l.startsWith(key + ":")) {
                return Long.parseLong(l.substring(key.length() + 1).trim().split("\\s+")[0]);
            }
        }
        return -1;
    }

    private static long fds() throws IOException {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return s.count();
        }
    }
}
