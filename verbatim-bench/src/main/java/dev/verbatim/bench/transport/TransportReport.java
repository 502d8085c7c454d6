package dev.verbatim.bench.transport;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;
import java.util.function.Function;

/**
 * Prints a {@link TransportBench.Run}: a table per figure (rows are cases, columns contenders, then
 * each contender's ratio to the floor), or one JSON object per line; then the targets, evaluated on
 * this run, and notes.
 *
 * <p>JSON lines: {@code {"suite":"transport","case":"shm/rtt-8","unit":"ns","results":{name: figure},
 * "ratios":{name: figure/floor},"cpu":{name: share},"mode":"quick"}} ({@code cpu}: the measuring side's
 * CPU share while recording, below 0.9 marked '!' in the tables: the host was busy) for the cases {@code M/rtt-8} (p50),
 * {@code M/rtt-8/p99}, {@code M/rtt-8/p999}, {@code M/rtt-8/mean}, {@code M/rtt-N} (p50 of N-byte
 * messages), {@code M/per-byte} (ns/byte) and {@code M/rtt-fixed} (ns, the fit's intercept) for
 * {@code M} = {@code shm} and {@code tcp}, and {@code shm/bw-N} (MB/s, median of batches). Then one
 * line per target: {@code {"suite":"transport","target":...,"measured":x|null,"need":...,"pass":true|false|null}}
 * ({@code null}: a contender it needs is missing), and one line per failed contender:
 * {@code {"suite":"transport","failed":id,"error":...}}.
 */
public final class TransportReport {
    private TransportReport() {}

    public static final String FLOOR = "floor";

    /**
     * One row of a table / one JSON case: a figure per contender; {@code paired}, when not null, the
     * ratios to the floor measured round by round (see {@link TransportBench#pairedRatio}).
     */
    public record Case(String name, String label, String unit, Map<String, Double> results, Map<String, Double> cpu,
                       Map<String, Double> paired) {
        public Case(String name, String label, String unit, Map<String, Double> results, Map<String, Double> cpu) {
            this(name, label, unit, results, cpu, null);
        }

        /** Each contender's ratio to the floor: paired by round when known, else figure over figure (empty without a floor). */
        public Map<String, Double> ratios() {
            if (paired != null) {
                return paired;
            }
            Map<String, Double> m = new LinkedHashMap<>();
            Double f = results.get(FLOOR);
            if (f != null && f != 0) {
                results.forEach((k, v) -> {
                    if (!k.equals(FLOOR)) {
                        m.put(k, v / f);
                    }
                });
            }
            return m;
        }
    }

    static Map<String, Double> cpu(List<TransportBench.RttResult> rs, int size) {
        Map<String, Double> m = new LinkedHashMap<>();
        rs.forEach(r -> {
            Double c = r.cpu().get(size);
            if (c != null && !c.isNaN()) {
                m.put(r.name(), c);
            }
        });
        return m;
    }

    static Map<String, Double> per(List<TransportBench.RttResult> rs, Function<TransportBench.RttResult, Double> f) {
        Map<String, Double> m = new LinkedHashMap<>();
        rs.forEach(r -> m.put(r.name(), f.apply(r)));
        return m;
    }

    /** Each contender's ratio to the floor, round by round, of a per-turn figure {@code f} of {@code size}-byte round trips. */
    static Map<String, Double> paired(List<TransportBench.RttResult> rs, int size,
                                      java.util.function.ToDoubleFunction<LatencyHistogram> f) {
        Map<String, Double> m = new LinkedHashMap<>();
        rs.stream().filter(r -> r.name().equals(FLOOR)).findFirst().ifPresent(floor -> rs.forEach(r -> {
            if (!r.name().equals(FLOOR)) {
                m.put(r.name(), TransportBench.pairedRatio(r.turns(size, f), floor.turns(size, f)));
            }
        }));
        return m;
    }

    /** A case of a quantile of {@code size}-byte round trips, its ratios paired by round. */
    private static Case quantileCase(String name, String label, List<TransportBench.RttResult> rs, int size, double q) {
        return new Case(name, label, "ns", per(rs, r -> r.quantile(size, q)), cpu(rs, size),
                paired(rs, size, h -> h.quantile(q)));
    }

    /** Table 1-2 rows of a medium: 8-byte percentiles, mean, per-byte cost, fixed cost. */
    static List<Case> rtt8(TransportBench.Run run, Medium m) {
        List<TransportBench.RttResult> rs = run.rtt(m).stream().filter(r -> r.bySize().containsKey(TransportBench.RTT_8)).toList();
        String p = m.key() + "/rtt-8";
        List<Case> c = new ArrayList<>();
        Map<String, Double> cpu = cpu(rs, 8);
        c.add(quantileCase(p, "p50", rs, 8, 0.5));
        c.add(quantileCase(p + "/p99", "p99", rs, 8, 0.99));
        c.add(quantileCase(p + "/p999", "p99.9", rs, 8, 0.999));
        c.add(new Case(p + "/mean", "mean", "ns", per(rs, r -> r.mean(8)), cpu, paired(rs, 8, LatencyHistogram::mean)));
        List<TransportBench.RttResult> fitted = run.rtt(m).stream().filter(r -> r.bySize().size() >= 2).toList();
        c.add(new Case(m.key() + "/per-byte", "per-byte (ns/B)", "ns/byte", per(fitted, r -> r.fit().slope()), Map.of()));
        c.add(new Case(m.key() + "/rtt-fixed", "fixed (ns)", "ns", per(fitted, r -> r.fit().intercept()), Map.of()));
        return c;
    }

    /** p50 round trip per message size. */
    static List<Case> rttBySize(TransportBench.Run run, Medium m) {
        List<Case> c = new ArrayList<>();
        for (int size : TransportBench.RTT_SIZES) {
            List<TransportBench.RttResult> rs = run.rtt(m).stream().filter(r -> r.bySize().containsKey(size)).toList();
            if (!rs.isEmpty()) {
                c.add(quantileCase(m.key() + "/rtt-" + size, Integer.toString(size), rs, size, 0.5));
            }
        }
        return c;
    }

    static List<Case> bandwidth(TransportBench.Run run, Medium m) {
        List<Case> c = new ArrayList<>();
        for (int size : TransportBench.BW_SIZES) {
            Map<String, Double> f = new LinkedHashMap<>();
            Map<String, Double> cpu = new LinkedHashMap<>();
            Map<String, Double> paired = new LinkedHashMap<>();
            List<TransportBench.BwResult> rs = run.bw(m).stream().filter(r -> r.bySize().containsKey(size)).toList();
            rs.stream().filter(r -> r.name().equals(FLOOR)).findFirst().ifPresent(floor -> rs.forEach(r -> {
                if (!r.name().equals(FLOOR)) {
                    paired.put(r.name(), TransportBench.pairedRatio(r.turns(size), floor.turns(size)));
                }
            }));
            rs.forEach(r -> {
                f.put(r.name(), r.median(size));
                Double share = r.cpu().get(size);
                if (share != null && !share.isNaN()) {
                    cpu.put(r.name(), share);
                }
            });
            if (!f.isEmpty()) {
                c.add(new Case(m.key() + "/bw-" + size, Integer.toString(size), "MB/s", f, cpu, paired));
            }
        }
        return c;
    }

    static List<Case> allCases(TransportBench.Run run) {
        List<Case> all = new ArrayList<>();
        for (Medium m : Medium.values()) {
            all.addAll(rtt8(run, m));
            all.addAll(rttBySize(run, m).stream().filter(c -> !c.label().equals("8")).toList());
            all.addAll(bandwidth(run, m));
        }
        return all;
    }

    // ---- targets --------------------------------------------------------------------------

    /** A target; {@code measured} empty when a contender it needs is missing. */
    public record Target(String what, Optional<Double> measured, String need, boolean pass) {
        public String status() {
            return measured.isEmpty() ? "n/a" : pass ? "PASS" : "MISS";
        }
    }

    /** The ratio of two contenders' p50 round trips of {@code size} bytes, paired by round. */
    private static Optional<Double> rttRatio(TransportBench.Run run, Medium m, String a, String b, int size) {
        Optional<TransportBench.RttResult> ra = rtt(run, m, a, size);
        Optional<TransportBench.RttResult> rb = rtt(run, m, b, size);
        return ra.isPresent() && rb.isPresent()
                ? Optional.of(TransportBench.pairedRatio(ra.get().turns(size, h -> h.quantile(0.5)),
                        rb.get().turns(size, h -> h.quantile(0.5))))
                : Optional.empty();
    }

    private static Optional<TransportBench.RttResult> rtt(TransportBench.Run run, Medium m, String name, int size) {
        return run.rtt(m).stream().filter(r -> r.name().equals(name) && r.bySize().containsKey(size)).findFirst();
    }

    /** The ratio of two contenders' bandwidth at {@code size}, paired by round. */
    private static Optional<Double> bwRatio(TransportBench.Run run, String a, String b, int size) {
        Optional<TransportBench.BwResult> ra = bwResult(run, a, size);
        Optional<TransportBench.BwResult> rb = bwResult(run, b, size);
        return ra.isPresent() && rb.isPresent()
                ? Optional.of(TransportBench.pairedRatio(ra.get().turns(size), rb.get().turns(size)))
                : Optional.empty();
    }

    private static Optional<TransportBench.BwResult> bwResult(TransportBench.Run run, String name, int size) {
        return run.bw(Medium.SHM).stream().filter(r -> r.name().equals(name) && r.bySize().containsKey(size)).findFirst();
    }

    /** The targets, each a ratio of two contenders measured in the same rounds (paired by round). */
    static List<Target> targets(TransportBench.Run run) {
        List<Target> t = new ArrayList<>();
        Optional<Double> r1 = rttRatio(run, Medium.SHM, "buffer", FLOOR, 8);
        t.add(new Target("shm/rtt-8 p50 buffer/floor", r1, "<= 1.30x", r1.map(x -> x <= 1.30).orElse(false)));
        Optional<Double> r2 = rttRatio(run, Medium.SHM, "buffer", "aeron", 8);
        t.add(new Target("shm/rtt-8 p50 buffer/aeron", r2, "< 1.00x", r2.map(x -> x < 1.0).orElse(false)));
        Optional<Double> r3 = bwRatio(run, "buffer", FLOOR, 8192);
        t.add(new Target("shm/bw-8192 buffer/floor", r3, ">= 0.80x", r3.map(x -> x >= 0.80).orElse(false)));
        Optional<Double> r4 = rttRatio(run, Medium.TCP, "verbatim", FLOOR, 8);
        t.add(new Target("tcp/rtt-8 p50 verbatim/floor (raw NIO)", r4, "<= 1.15x", r4.map(x -> x <= 1.15).orElse(false)));
        return t;
    }

    // ---- human form -----------------------------------------------------------------------

    static void printTables(TransportBench.Run run, PrintStream out) {
        out.println("Verbatim transport benchmark: Javia Tables 1-2 and Figures 3/6, with peers");
        out.printf(Locale.ROOT, "JVM %s (%s), %s, %d CPUs; %s run; every contender's two sides in two processes,"
                        + " contenders taking turns%n", System.getProperty("java.vm.version"),
                System.getProperty("java.vm.name"), System.getProperty("os.arch"),
                Runtime.getRuntime().availableProcessors(), run.mode());
        Plan.Rtt first = run.rttPlan().getFirst();
        Plan.Rtt other = run.rttPlan().size() > 1 ? run.rttPlan().get(1) : first;
        Plan.Bw bw = run.bwPlan().getFirst();
        out.printf(Locale.ROOT, "Round trips: %d-byte messages %d turns of %d ms recorded, other sizes %d of %d ms;"
                        + " every echo checked. Streams: %d turns of %d batch(es) of %d MiB per size.%n",
                first.size(), first.rounds(), first.measureMillis(), other.rounds(), other.measureMillis(),
                bw.rounds(), bw.batches(), bw.perBatch() * bw.size() >> 20);
        out.println("Figures are medians over a contender's turns; ratios are contender / floor, the median over rounds of the"
                + " ratio within a round (times: above 1 is slower than the floor; bandwidth: below 1).");
        out.println();
        table(out, "Table 1. shm round trip, 8-byte messages (ns), and per-byte cost (least squares, 8 B - 64 KiB)",
                "figure", rtt8(run, Medium.SHM));
        table(out, "Table 2. shm round trip by message size (p50, ns)", "bytes", rttBySize(run, Medium.SHM));
        table(out, "Table 3. tcp loopback round trip, 8-byte messages (ns); floor = raw Java NIO", "figure",
                rtt8(run, Medium.TCP));
        table(out, "Table 4. tcp loopback round trip by message size (p50, ns)", "bytes", rttBySize(run, Medium.TCP));
        table(out, "Table 5. shm one-way streaming bandwidth (MB/s = 10^6 B/s, median batch)", "bytes",
                bandwidth(run, Medium.SHM));
        out.println("Targets (evaluated on this run)");
        for (Target t : targets(run)) {
            out.printf(Locale.ROOT, "  %-4s  %-44s %8s  (need %s)%s%n", t.status(), t.what(),
                    t.measured().map(TransportReport::fmtRatio).orElse("-"), t.need(),
                    t.measured().isEmpty() ? "  n/a (contender missing)" : "");
        }
        out.println();
        busyNote(run, out);
        List<String> failures = run.failures();
        if (!failures.isEmpty()) {
            out.println("FAILED contenders (left out of the figures)");
            failures.forEach(f -> out.println("  - " + f));
            out.println();
        }
        out.println("Notes");
        for (String n : notes()) {
            out.println("  - " + n);
        }
        out.printf(Locale.ROOT, "%nfinished in %.1f s%n", run.seconds());
    }

    /** Below this CPU share of the measuring side, a figure is marked with '!'. */
    public static final double BUSY_SHARE = 0.9;

    private static void busyNote(TransportBench.Run run, PrintStream out) {
        double lowest = 1;
        String where = "";
        for (Case c : allCases(run)) {
            for (var e : c.cpu().entrySet()) {
                if (e.getValue() < lowest) {
                    lowest = e.getValue();
                    where = c.name() + " " + e.getKey();
                }
            }
        }
        out.printf(Locale.ROOT, "Host load average (1 min) %.2f before, %.2f after; the measuring side's lowest CPU share"
                + " while recording: %.0f%%%s.%n", run.loadBefore(), run.loadAfter(), lowest * 100,
                where.isEmpty() ? "" : " (" + where + ")");
        if (lowest < BUSY_SHARE || run.loadBefore() > 1.5) {
            out.println("WARNING: the host was busy (figures marked '!' had the measuring side off its CPU for more than"
                    + " 10% of the time): spinning sides were descheduled, tails and means are inflated; rerun on a"
                    + " quiet host before quoting them.");
        }
        out.println();
    }

    /**
     * Prints one table: a row per case, a column per contender (in order of first appearance), then
     * each contender's ratio to the floor where the table has one; figures whose measuring side had
     * less than {@value #BUSY_SHARE} of a CPU are marked '!'.
     */
    public static void table(PrintStream out, String title, String firstColumn, List<Case> cases) {
        out.println(title);
        if (cases.stream().allMatch(c -> c.results().isEmpty())) {
            out.println("  (no contender produced this figure)");
            out.println();
            return;
        }
        List<String> cols = new ArrayList<>();
        cases.forEach(c -> c.results().keySet().forEach(k -> {
            if (!cols.contains(k)) {
                cols.add(k);
            }
        }));
        List<String> ratioCols = cols.stream().filter(k -> !k.equals(FLOOR)).toList();
        boolean hasFloor = cols.contains(FLOOR);
        StringBuilder head = new StringBuilder(String.format(Locale.ROOT, "  %-16s", firstColumn));
        cols.forEach(k -> head.append(String.format(Locale.ROOT, " %10s", k)));
        if (hasFloor) {
            ratioCols.forEach(k -> head.append(String.format(Locale.ROOT, " %9s", k + "/fl")));
        }
        out.println(head);
        for (Case c : cases) {
            StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "  %-16s", c.label()));
            cols.forEach(k -> {
                Double v = c.results().get(k);
                Double share = c.cpu().get(k);
                String mark = share != null && share < BUSY_SHARE ? "!" : "";
                row.append(String.format(Locale.ROOT, " %10s", v == null ? "-" : fmt(v, c.unit()) + mark));
            });
            if (hasFloor) {
                Map<String, Double> r = c.ratios();
                ratioCols.forEach(k -> row.append(String.format(Locale.ROOT, " %9s",
                        r.containsKey(k) ? fmtRatio(r.get(k)) : "-")));
            }
            out.println(row);
        }
        out.println();
    }

    static List<String> notes() {
        return List.of(
                "Round trip: System.nanoTime() around one call that sends a message and waits for its echo, every"
                        + " one recorded in a log-linear histogram (0.4% resolution); p50/p99/p99.9 by nearest rank."
                        + " The ping copies its message in and the echo out (every byte read); stamps in the first and"
                        + " last 8 bytes are checked outside the timed region.",
                "shm floor: two processes map one owner-only file under /dev/shm (FFM, no Unsafe, no JNI) and spin"
                        + " with getAcquire/setRelease on their own cache line, 128 bytes apart; messages up to 48 bytes"
                        + " ride in the line, larger ones are copied into a payload area, from there into the reverse"
                        + " area by the pong, and out by the ping (three MemorySegment.copy per round trip).",
                "aeron: Aeron IPC (aeron:ipc, aeron-all " + aeronVersion() + "), embedded media driver in the pong"
                        + " process (threading: " + AeronPingPong.mode() + ", IPC term 16 MiB), ping and pong busy-spin"
                        + " (BusySpinIdleStrategy) on ExclusivePublication.offer and Subscription.poll through a"
                        + " FragmentAssembler; default IPC MTU, so messages above ~1.4 KB are fragmented and reassembled.",
                "tcp floor: raw Java NIO on loopback, blocking SocketChannels, TCP_NODELAY, a 4-byte length before"
                        + " each message, one write per message.",
                "per-byte: the slope of a least-squares line through the p50 round trips of 8 B to 64 KiB (Javia"
                        + " Tables 1-2); fixed: its intercept.",
                "Streaming: one-way, the producer copies each message into a shared single-producer/single-consumer"
                        + " ring (4 MiB, 8-byte record headers), the consumer copies it out and checks its stamps; each"
                        + " batch is timed at the consumer.",
                "Turns: every contender's processes stay up for the whole figure; for each message size the"
                        + " contenders take turns (round after round, the order rotating), only the pair whose turn it is"
                        + " running; a figure is the median of its turns' and a ratio the median of the ratios within a round. On a shared virtual machine the host changes under a"
                        + " run (the two CPUs' distance alone moves an 8-byte round trip 3-4x, for seconds at a time):"
                        + " turns give the floor and every contender the same mixture. -Dverbatim.bench.trace=true prints"
                        + " each turn.",
                "Children run with -XX:+UseSerialGC (no concurrent GC threads on a 2-core host); nothing is pinned to"
                        + " a CPU. Each side spins on one core, so other load on the host shows in the tails.");
    }

    private static String aeronVersion() {
        Package p = io.aeron.Aeron.class.getPackage();
        String v = p == null ? null : p.getImplementationVersion();
        return v == null ? "1.49.3" : v;
    }

    // ---- JSON -----------------------------------------------------------------------------

    static void printJson(TransportBench.Run run, PrintStream out) {
        for (Case c : allCases(run)) {
            printCase("transport", c, run.mode(), out);
        }
        for (Target t : targets(run)) {
            printTarget("transport", t, out);
        }
        for (var r : run.rtt()) {
            if (!r.ok()) {
                out.println("{\"suite\":\"transport\",\"failed\":" + quote(r.medium().key() + "/" + r.name())
                        + ",\"figure\":\"rtt\",\"error\":" + quote(r.error()) + "}");
            }
        }
        for (var r : run.bw()) {
            if (!r.ok()) {
                out.println("{\"suite\":\"transport\",\"failed\":" + quote(r.medium().key() + "/" + r.name())
                        + ",\"figure\":\"bw\",\"error\":" + quote(r.error()) + "}");
            }
        }
    }

    /** One case as a JSON line of suite {@code suite} (the format every bench suite prints). */
    public static void printCase(String suite, Case c, String mode, PrintStream out) {
        StringJoiner r = new StringJoiner(",", "{", "}");
        c.results().forEach((k, v) -> r.add(quote(k) + ":" + num(v)));
        StringJoiner q = new StringJoiner(",", "{", "}");
        c.ratios().forEach((k, v) -> q.add(quote(k) + ":" + String.format(Locale.ROOT, "%.3f", v)));
        StringJoiner cpu = new StringJoiner(",", "{", "}");
        c.cpu().forEach((k, v) -> cpu.add(quote(k) + ":" + String.format(Locale.ROOT, "%.3f", v)));
        out.println("{\"suite\":" + quote(suite) + ",\"case\":" + quote(c.name()) + ",\"unit\":" + quote(c.unit())
                + ",\"results\":" + r + ",\"ratios\":" + q + (c.cpu().isEmpty() ? "" : ",\"cpu\":" + cpu)
                + ",\"mode\":" + quote(mode) + "}");
    }

    /** One target as a JSON line of suite {@code suite}. */
    public static void printTarget(String suite, Target t, PrintStream out) {
        out.println("{\"suite\":" + quote(suite) + ",\"target\":" + quote(t.what()) + ",\"measured\":"
                + t.measured().map(x -> String.format(Locale.ROOT, "%.3f", x)).orElse("null")
                + ",\"need\":" + quote(t.need()) + ",\"pass\":"
                + (t.measured().isEmpty() ? "null" : Boolean.toString(t.pass())) + "}");
    }

    private static String num(double v) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%.3f", v) : "null";
    }

    public static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char ch : s.toCharArray()) {
            switch (ch) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                default -> {
                    if (ch < 0x20) {
                        b.append(String.format(Locale.ROOT, "\\u%04x", (int) ch));
                    } else {
                        b.append(ch);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    // ---- formatting -----------------------------------------------------------------------

    public static String fmt(double v, String unit) {
        if (unit.equals("ns/byte")) {
            return String.format(Locale.ROOT, "%.3f", v);
        }
        if (Math.abs(v) >= 100) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        return String.format(Locale.ROOT, "%.1f", v);
    }

    public static String fmtRatio(double r) {
        return r >= 10 ? String.format(Locale.ROOT, "%.1fx", r) : String.format(Locale.ROOT, "%.2fx", r);
    }
}
