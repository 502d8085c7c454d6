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
 * p50 with the connections against the same without them (measured before they open and after they
 * closed: the lower of the two, as the other processes on a shared host only ever make it higher). Targets: at most 256 KiB and no thread per idle connection (at most
 * 0.1), p50 at most 1.2 times the unloaded one. {@code --quick}: 200 connections and shorter windows (the
 * report says so). {@code -Dverbatim.bench.scale.connections=N} changes the count (how far it goes).
 */
public final class ScaleIdle {
    private ScaleIdle() {}

    /** The case's name in tables and JSON (whatever the count: the name). */
    static final String CASE = "scale/idle-1000";
    static final String KIB = "kib-per-connection";
    static final String THREADS = "threads-per-connection";
    static final String LOADED = "p50-loaded";
    static final String UNLOADED = "p50-unloaded";
    private static final Duration READY = Duration.ofSeconds(60);
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
     * and with them; p50s in ns; {@code error} if it failed (then the figures are NaN).
     */
    public record Result(int connections, boolean quick, long rssBeforeKib, long rssLoadedKib, int threadsBefore,
                         int threadsLoaded, int fdsBefore, int fdsLoaded, double p50Loaded, double p50Unloaded,
                         String error) {
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
            return new Result(connections, quick, 0, 0, 0, 0, 0, 0, Double.NaN, Double.NaN, error);
        }
    }

    /** The connection count: 1,000 (quick: 200), or the system property's. */
    static int connections(boolean quick) {
        return Integer.getInteger("verbatim.bench.scale.connections", quick ? 200 : 1000);
    }

    /** Runs the case (server, measuring client, load processes); every child is gone when it returns. */
    static Result measure(boolean quick, PrintStream err) {
        int n = connections(quick);
        long window = quick ? 300 : 2000;
        long settle = quick ? 1000 : 4000;
        err.printf(Locale.ROOT, "verbatim bench rpc: %s with %,d connections%s ...%n", CASE, n,
                quick ? " (quick: fewer connections, " + window + " ms windows)" : "");
        List<ChildProcess> children = new ArrayList<>();
        long t0 = System.nanoTime();
        try {
            ChildProcess server = start(children, "scale server", List.of("server", Integer.toString(n)));
            String address = ChildMain.props(server.awaitLine("READY", READY).getLast()).get("address");
            ChildProcess meter = start(children, "scale meter", List.of("meter", address, quick ? "5000" : "20000"));
            meter.awaitLine("READY", READY);
            double before = p50(meter, window);
            Map<String, String> s0 = stats(server);
            List<ChildProcess> loads = new ArrayList<>();
            for (int left = n; left > 0; left -= PER_PROCESS) {
                loads.add(start(children, "scale load " + loads.size(), List.of("load", address,
                        Integer.toString(Math.min(PER_PROCESS, left)), Long.toString(PERIOD_MILLIS))));
            }
            for (ChildProcess l : loads) {
                l.awaitLine("READY", READY);
            }
            Thread.sleep(settle); // every connection made its calls of a second or more, and went idle between
            Map<String, String> s1 = stats(server);
            double loaded = p50(meter, window);
            for (ChildProcess l : loads) {
                l.close();
                children.remove(l);
            }
            long until = System.nanoTime() + 30_000_000_000L; // until the node dropped them (closing a thousand takes a while)
            while (Long.parseLong(stats(server).get("fds")) > Long.parseLong(s0.get("fds")) + 8 && System.nanoTime() < until) {
                Thread.sleep(100);
            }
            Thread.sleep(settle / 4);
            double after = p50(meter, window);
            err.printf(Locale.ROOT, "verbatim bench rpc: %s done in %.1f s (null call p50 %.0f ns before the connections,"
                    + " %.0f with them, %.0f after)%n", CASE, (System.nanoTime() - t0) / 1e9, before, loaded, after);
            return new Result(n, quick, Long.parseLong(s0.get("rss")), Long.parseLong(s1.get("rss")),
                    Integer.parseInt(s0.get("threads")), Integer.parseInt(s1.get("threads")),
                    Integer.parseInt(s0.get("fds")), Integer.parseInt(s1.get("fds")), loaded, Math.min(before, after), null);
        } catch (Exception e) {
            err.println("verbatim bench rpc: " + CASE + " failed: " + e);
            return Result.failed(n, quick, String.valueOf(e));
        } finally {
            children.forEach(ChildProcess::close);
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

    static void printJson(Result r, PrintStream out) {
        Map<String, Double> results = new java.util.LinkedHashMap<>();
        results.put(KIB, r.kibPerConnection());
        results.put(THREADS, r.threadsPerConnection());
        results.put(LOADED, r.p50Loaded());
        results.put(UNLOADED, r.p50Unloaded());
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
            out.printf(Locale.ROOT, "  null call p50: %.0f ns with them, %.0f ns without (the lower of before and after): %.2fx%n",
                    r.p50Loaded(), r.p50Unloaded(), r.ratio());
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
                    ChildMain.say("STATS rss=" + status("VmRSS") + " threads=" + status("Threads") + " fds=" + fds());
                }
            }
        }
    }

    /** {@code n} connections (a node each), each calling once every {@code periodMillis}, spread evenly over it. */
    private static void load(String address, int n, long periodMillis, BufferedReader in) throws IOException {
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
