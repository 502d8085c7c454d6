package dev.verbatim.bench.wire;

import dev.verbatim.bench.harness.BatchHarness;
import dev.verbatim.bench.harness.ChildMain;
import dev.verbatim.bench.harness.ChildProcess;
import dev.verbatim.bench.harness.Session;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The main class of the wire suite's child JVMs: {@code WireChild measure LIBRARY key=value...}
 * measures one library on the cases named in {@code cases=}, with the {@link WireBench.Method} its
 * other arguments encode ({@link #args}). Hosted by {@link ChildMain#host}: it exits when its stdin
 * ends or says {@code STOP} (the parent gone or done) and halts by itself at {@code deadlineMs}.
 *
 * <p>In the child: the library's workloads are touched once (one codec for all cases), the JIT
 * allowed to go quiet, then each case is measured with a fresh codec, in the order given
 * ({@link WireBench#measureCase}). Protocol lines on stdout ({@link ChildProcess#PREFIX}, then):
 * <pre>
 *   QUIET quiet=true|false seconds=S      the JIT went quiet (or not) S seconds after the touching pass
 *   CASE name                             measuring case name
 *   SIZE case=C bytes=N                   the library's message size for case C
 *   RESULT case=C op=marshal|unmarshal ops=N stable=B warmupNs=W cpu=X perOp=x1,x2,...
 *                                         one {@link BatchHarness.Result}, doubles in {@link Double#toString} form
 *   DONE | ERROR message                  (from {@link ChildMain#host})
 * </pre>
 * Doubles travel as {@link Double#toString} writes them, which {@link Double#parseDouble} reads back
 * exactly: the parent's figures are the child's, bit for bit.
 */
public final class WireChild {
    private WireChild() {}

    public static void main(String[] args) {
        ChildMain.host(args, WireChild::run);
    }

    /** The child's arguments for measuring {@code library} on {@code cases} with {@code method}, halting after {@code deadline}. */
    static List<String> args(String library, List<WireCase> cases, WireBench.Method method, Duration deadline) {
        BatchHarness.Settings s = method.settings();
        Map<String, String> props = new LinkedHashMap<>();
        props.put("cases", String.join(",", cases.stream().map(WireCase::name).toList()));
        props.put("harness", String.join(",", s.name(), Long.toString(s.minWarmupNanos()),
                Long.toString(s.maxWarmupNanos()), Long.toString(s.batchNanos()), Integer.toString(s.batches()),
                Integer.toString(s.stableWindow()), Double.toString(s.stableSpread()), Integer.toString(s.retries())));
        props.put("touchNanos", Long.toString(method.touchNanos()));
        props.put("quietNanos", Long.toString(method.quietNanos()));
        props.put("quietMaxNanos", Long.toString(method.quietMaxNanos()));
        props.put("deadlineMs", Long.toString(deadline.toMillis()));
        return ChildMain.args("measure", library, props);
    }

    static WireBench.Method method(Session s) {
        String[] h = s.require("harness").split(",");
        if (h.length != 8) {
            throw new IllegalArgumentException("harness=" + s.require("harness") + ": 8 fields expected");
        }
        BatchHarness.Settings settings = new BatchHarness.Settings(h[0], Long.parseLong(h[1]), Long.parseLong(h[2]),
                Long.parseLong(h[3]), Integer.parseInt(h[4]), Integer.parseInt(h[5]), Double.parseDouble(h[6]),
                Integer.parseInt(h[7]));
        return new WireBench.Method(settings, Long.parseLong(s.require("touchNanos")),
                Long.parseLong(s.require("quietNanos")), Long.parseLong(s.require("quietMaxNanos")));
    }

    /** The suite's cases named in {@code names} (comma-separated), in that order. */
    static List<WireCase> cases(String names) {
        Map<String, WireCase> all = new LinkedHashMap<>();
        for (WireCase c : WireCase.all()) {
            all.put(c.name(), c);
        }
        List<WireCase> cases = new ArrayList<>();
        for (String name : names.split(",")) {
            WireCase c = all.get(name);
            if (c == null) {
                throw new IllegalArgumentException("unknown case '" + name + "'");
            }
            cases.add(c);
        }
        return cases;
    }

    static void run(String role, String library, Session session) throws Exception {
        if (!role.equals("measure")) {
            throw new IllegalArgumentException("unknown role '" + role + "' (only 'measure')");
        }
        WireBench.Method method = method(session);
        List<WireCase> cases = cases(session.require("cases"));
        BatchHarness harness = new BatchHarness(method.settings());
        Codec touching = WireBench.codec(library); // one codec through every case, as a connection would see them
        for (WireCase c : cases) {
            WireBench.touch(harness, touching, c, method.touchNanos());
        }
        long waited = System.nanoTime();
        boolean quiet = harness.awaitJitQuiet(method.quietNanos(), method.quietMaxNanos());
        ChildMain.say(String.format(Locale.ROOT, "QUIET quiet=%b seconds=%.1f", quiet, (System.nanoTime() - waited) / 1e9));
        WireBench.Sink lines = new WireBench.Sink() {
            @Override
            public void size(String caseName, String lib, long bytes) {
                ChildMain.say("SIZE case=" + caseName + " bytes=" + bytes);
            }

            @Override
            public void result(String caseName, String lib, String op, BatchHarness.Result r) {
                ChildMain.say(resultLine(caseName, op, r));
            }
        };
        for (WireCase c : cases) {
            ChildMain.say("CASE " + c.name());
            WireBench.measureCase(harness, WireBench.codec(library), c, lines); // fresh per case
        }
    }

    static String resultLine(String caseName, String op, BatchHarness.Result r) {
        StringJoiner perOp = new StringJoiner(",");
        for (double x : r.nanosPerOp()) {
            perOp.add(Double.toString(x));
        }
        return "RESULT case=" + caseName + " op=" + op + " ops=" + r.opsPerBatch() + " stable=" + r.stable()
                + " warmupNs=" + r.warmupNanos() + " cpu=" + r.cpuShare() + " perOp=" + perOp;
    }

    /**
     * Takes one protocol line of {@code library}'s child (not {@code DONE}): figures into
     * {@code figures}, progress to {@code err}. Throws an unchecked exception on a line it does not understand.
     */
    static void accept(String line, String library, WireBench.Figures figures, PrintStream err) {
        Map<String, String> p = ChildMain.props(line);
        String keyword = line.split(" ", 2)[0];
        switch (keyword) {
            case "QUIET" -> {
                err.print((Boolean.parseBoolean(p.get("quiet")) ? " JIT quiet after " : " JIT still compiling after ")
                        + p.get("seconds") + " s;");
                err.flush();
            }
            case "CASE" -> {
                err.print(" " + line.substring(keyword.length()).trim());
                err.flush();
            }
            case "SIZE" -> figures.size(require(p, "case"), library, Long.parseLong(require(p, "bytes")));
            case "RESULT" -> {
                String caseName = require(p, "case");
                String op = require(p, "op");
                String[] words = require(p, "perOp").split(",");
                double[] perOp = new double[words.length];
                for (int i = 0; i < words.length; i++) {
                    perOp[i] = Double.parseDouble(words[i]);
                }
                figures.result(caseName, library, op, new BatchHarness.Result(caseName + "/" + op + "/" + library, perOp,
                        Integer.parseInt(require(p, "ops")), Boolean.parseBoolean(require(p, "stable")),
                        Long.parseLong(require(p, "warmupNs")), Double.parseDouble(require(p, "cpu"))));
            }
            default -> throw new IllegalArgumentException("unknown keyword '" + keyword + "'");
        }
    }

    private static String require(Map<String, String> p, String key) {
        String v = p.get(key);
        if (v == null) {
            throw new IllegalArgumentException("no " + key + "=");
        }
        return v;
    }
}
