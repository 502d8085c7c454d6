package dev.verbatim.bench.wire;

import dev.verbatim.bench.harness.BatchHarness;
import dev.verbatim.bench.harness.Host;
import dev.verbatim.bench.harness.Json;
import dev.verbatim.bench.harness.ReportText;
import dev.verbatim.bench.harness.Target;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.DoubleFunction;
import java.util.function.Predicate;

/**
 * Prints a {@link WireBench.Run}: the papers' tables with the peers as extra columns, or one JSON
 * object per line; then the targets, evaluated on this run's figures, and the notes that say what
 * each column measures. Ratios are always peer / verbatim, so above 1 means Verbatim is faster
 * (or smaller).
 *
 * <p>JSON lines: one per case and figure, {@code {"suite":"wire","case":"list-100/unmarshal",
 * "unit":"ns/elem","results":{lib: median},"ratios":{lib: lib/verbatim}, ...}}; time lines also carry
 * {@code "spread"} (interquartile range of the batches over their median), {@code "cpu"} (the
 * measuring thread's CPU share, see {@link BatchHarness.Result#cpuShare()}), {@code "unstable"}
 * (libraries whose warm-up hit its time bound) and {@code "mode"} ({@code quick} or {@code full}).
 * Then one line per target: {@code {"suite":"wire","target":...,"measured":...,"need":...,"pass":...}}.
 */
final class WireReport {
    private WireReport() {}

    // ---- figures --------------------------------------------------------------------------

    /** Median time per reported unit (per message for byte arrays, per element for lists). */
    static Map<String, Double> times(WireBench.Run run, WireCase c, String op) {
        Map<String, BatchHarness.Result> results = (op.equals("marshal") ? run.marshal() : run.unmarshal()).get(c.name());
        Map<String, Double> m = new LinkedHashMap<>();
        results.forEach((lib, r) -> m.put(lib, r.median() / c.perUnit()));
        return m;
    }

    static Map<String, Double> sizes(WireBench.Run run, WireCase c) {
        Map<String, Double> m = new LinkedHashMap<>();
        run.size().get(c.name()).forEach((lib, s) -> m.put(lib, (double) s));
        return m;
    }

    /** peer / verbatim for every column but verbatim's own. */
    static Map<String, Double> ratios(Map<String, Double> figures) {
        double v = figures.get("verbatim");
        Map<String, Double> m = new LinkedHashMap<>();
        figures.forEach((lib, x) -> {
            if (!lib.equals("verbatim")) {
                m.put(lib, x / v);
            }
        });
        return m;
    }

    static WireCase find(WireBench.Run run, String name) {
        return run.cases().stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow();
    }

    // ---- targets --------------------------------------------------------------------------

    static List<Target> targets(WireBench.Run run) {
        List<Target> t = new ArrayList<>();
        double big = times(run, find(run, "bytes-1048576"), "unmarshal").get("verbatim");
        double small = times(run, find(run, "bytes-10"), "unmarshal").get("verbatim");
        t.add(Target.atMost("bytes-1048576/unmarshal over bytes-10/unmarshal (verbatim)", big / small, 1.5, "<= 1.5x"));
        List<WireCase> lists = run.cases().stream().filter(c -> c.kind() == MessageKind.LIST).toList();
        for (WireCase c : lists) {
            Map<String, Double> r = ratios(times(run, c, "unmarshal"));
            t.add(ratio(c.name() + "/unmarshal jos/verbatim", r.get("jos"), 20));
            t.add(ratio(c.name() + "/unmarshal kryo/verbatim", r.get("kryo"), 2));
            t.add(ratio(c.name() + "/unmarshal fory/verbatim", r.get("fory"), 2));
        }
        for (WireCase c : lists) {
            Map<String, Double> r = ratios(times(run, c, "marshal"));
            t.add(ratio(c.name() + "/marshal jos/verbatim", r.get("jos"), 10));
            t.add(ratio(c.name() + "/marshal kryo/verbatim", r.get("kryo"), 1));
        }
        for (WireCase c : run.cases().stream().filter(c -> c.kind() == MessageKind.BYTES).toList()) {
            Map<String, Double> r = ratios(sizes(run, c));
            t.add(ratio(c.name() + "/size jos/verbatim", r.get("jos"), 1));
        }
        t.addAll(payloadTargets(run));
        return t;
    }

    /** Issue 19's payload targets against Fory (tracking on): its time over Verbatim's at least, or ours over its at most. */
    static final double MARSHAL_AT_LEAST = 1, UNMARSHAL_AT_LEAST = 1.5, MATERIALIZE_AT_MOST = 1.2, SIZE_AT_MOST = 1.3;

    /**
     * Issue 19's targets on each payload, against Fory with reference tracking on (the like-for-like
     * column: Verbatim always keeps sharing): marshal no slower, unmarshal (validate + views) at least
     * 1.5x faster, materialize at most 1.2x Fory's time, size at most 1.3x Fory's.
     */
    static List<Target> payloadTargets(WireBench.Run run) {
        List<Target> t = new ArrayList<>();
        for (WireCase c : run.cases().stream().filter(c -> c.kind().payload()).toList()) {
            Map<String, Double> m = times(run, c, "marshal");
            Map<String, Double> u = times(run, c, "unmarshal");
            Map<String, Double> s = sizes(run, c);
            t.add(ratio(c.name() + "/marshal fory/verbatim", m.get("fory") / m.get("verbatim"), MARSHAL_AT_LEAST));
            t.add(ratio(c.name() + "/unmarshal fory/verbatim", u.get("fory") / u.get("verbatim"), UNMARSHAL_AT_LEAST));
            t.add(Target.atMost(c.name() + "/unmarshal verbatim-materialize/fory",
                    u.get("verbatim-materialize") / u.get("fory"), MATERIALIZE_AT_MOST,
                    "<= " + ReportText.ratio(MATERIALIZE_AT_MOST)));
            t.add(Target.atMost(c.name() + "/size verbatim/fory", s.get("verbatim") / s.get("fory"), SIZE_AT_MOST,
                    "<= " + ReportText.ratio(SIZE_AT_MOST)));
        }
        return t;
    }

    private static Target ratio(String what, double measured, double atLeast) {
        return Target.atLeast(what, measured, atLeast, ">= " + ReportText.ratio(atLeast));
    }

    // ---- human form -----------------------------------------------------------------------

    static void printTables(WireBench.Run run, PrintStream out) {
        BatchHarness.Settings s = run.settings();
        out.println("Verbatim wire benchmark: J-RPC Tables 3-4 and Jaguar Figure 8, side by side with peers");
        out.printf(Locale.ROOT, "%s; %s run: median of %d batches of ~%d ms after warm-up until stable (%d-%d ms)%n",
                Host.jvm(), s.name(),
                s.batches(), s.batchNanos() / 1_000_000, s.minWarmupNanos() / 1_000_000,
                s.maxWarmupNanos() / 1_000_000);
        out.println("Round trips verified for every library and case; every library preserved sharing and cycles.");
        out.println("Ratios are peer / verbatim: above 1 means Verbatim is faster (smaller).");
        out.println();

        Predicate<WireCase> bytes = c -> c.kind() == MessageKind.BYTES;
        Predicate<WireCase> payloads = c -> c.kind().payload();
        Predicate<WireCase> lists = bytes.negate().and(payloads.negate());
        table(out, run, "Table 3a. Byte arrays, marshal (ns per message)", "bytes", bytes, "marshal");
        table(out, run, "Table 3b. Byte arrays, unmarshal (ns per message)", "bytes", bytes, "unmarshal");
        table(out, run, "Table 3c. Linked lists, marshal (ns per element)", "case", lists, "marshal");
        table(out, run, "Table 3d. Linked lists, unmarshal (ns per element)", "case", lists, "unmarshal");
        table(out, run, "Table 4. Message size (bytes)", "case", payloads.negate(), "size");
        table(out, run, "Table 5a. Payloads, marshal (ns per message)", "payload", payloads, "marshal");
        table(out, run, "Table 5b. Payloads, unmarshal (ns per message)", "payload", payloads, "unmarshal");
        table(out, run, "Table 5c. Payloads, message size (bytes)", "payload", payloads, "size");
        sizeBound(run, out);
        formatFloor(run, out);

        Target.print(out, targets(run), 60, ReportText::ratio, Target.Missing.FIGURE);
        out.println();
        unstableNote(run, out);
        ReportText.closing(out, List.of(), notes(), run.seconds());
    }

    private static void table(PrintStream out, WireBench.Run run, String title, String firstColumn,
                              Predicate<WireCase> rows, String op) {
        List<WireCase> cases = run.cases().stream().filter(rows).toList();
        if (cases.isEmpty()) {
            return;
        }
        List<String> libs = WireBench.LIBRARIES.stream()
                .filter(lib -> cases.stream().allMatch(c -> WireBench.measures(lib, c)))
                .filter(lib -> !(op.equals("size") || op.equals("marshal")) || WireBench.measuresMarshal(lib))
                .toList();
        out.println(title);
        StringBuilder head = new StringBuilder(String.format(Locale.ROOT, "  %-10s", firstColumn));
        for (String lib : libs) {
            head.append(String.format(Locale.ROOT, " %11s", lib.equals("verbatim-materialize") ? "v-materialize" : lib));
        }
        for (String lib : libs.subList(1, libs.size())) {
            head.append(String.format(Locale.ROOT, " %8s", (lib.equals("verbatim-materialize") ? "mat" : lib) + "/v"));
        }
        out.println(head);
        for (WireCase c : cases) {
            Map<String, Double> f = op.equals("size") ? sizes(run, c) : times(run, c, op);
            Map<String, BatchHarness.Result> results = op.equals("size") ? Map.of()
                    : (op.equals("marshal") ? run.marshal() : run.unmarshal()).get(c.name());
            String label = c.kind() == MessageKind.BYTES && !op.equals("size") ? Integer.toString(c.n()) : c.name();
            StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "  %-10s", label));
            for (String lib : libs) {
                BatchHarness.Result r = results.get(lib);
                String mark = r == null ? "" : (r.stable() ? "" : "*") + (r.cpuShare() < BatchHarness.BUSY_SHARE ? "!" : "");
                row.append(String.format(Locale.ROOT, " %11s",
                        (op.equals("size") ? Long.toString(Math.round(f.get(lib))) : fmtTime(f.get(lib))) + mark));
            }
            Map<String, Double> r = ratios(f);
            for (String lib : libs.subList(1, libs.size())) {
                row.append(String.format(Locale.ROOT, " %8s", ReportText.ratio(r.get(lib))));
            }
            out.println(row);
        }
        out.println();
    }

    /**
     * The format's share of each payload's size ({@link MessageAnatomy}): the header, type and object
     * tables and the strings' alignment padding, and the objects' own bytes measured against Fory's
     * message, which is the best the size target could reach without changing the format.
     */
    private static void sizeBound(WireBench.Run run, PrintStream out) {
        List<WireCase> payloads = run.cases().stream().filter(c -> c.kind().payload()).toList();
        if (payloads.isEmpty()) {
            return;
        }
        out.println("Format bound on size: the 8-byte header, 8 bytes per type and per object (the object table),"
                + " the strings' padding to 8");
        out.printf(Locale.ROOT, "  %-10s %9s %8s %8s %8s %9s %14s %8s%n", "payload", "verbatim", "objects", "tables",
                "padding", "objBytes", "objBytes/fory", "v/fory");
        for (WireCase c : payloads) {
            MessageAnatomy a = MessageAnatomy.of(c.root());
            double fory = sizes(run, c).get("fory");
            out.printf(Locale.ROOT, "  %-10s %9d %8d %8d %8d %9d %14s %8s%n", c.name(), a.size(), a.objects(),
                    a.tables(), a.stringPadding(), a.withoutTablesAndPadding(),
                    ReportText.ratio(a.withoutTablesAndPadding() / fory), ReportText.ratio(a.size() / fory));
        }
        out.println();
    }

    /** One payload target measured on the hand-written codec: the format's floor against the target's need. */
    record Floor(String payload, String op, double fory, double hand, double verbatim, boolean handMeets) {
        /** What the library spends beyond the floor, ns per message. */
        double overHand() {
            return verbatim - hand;
        }
    }

    /**
     * Each payload's time targets evaluated on {@code verbatim-hand} (the format written and read by hand) instead of
     * Verbatim: a target the hand-written format misses is out of reach of the format as far as this run can show (it
     * is one implementation: an upper bound of the floor); one it meets is not, and Verbatim's figure beyond it is the
     * library's own cost. Empty when the run has no hand-written figures.
     */
    static List<Floor> floors(WireBench.Run run) {
        List<Floor> f = new ArrayList<>();
        for (WireCase c : run.cases().stream().filter(c -> c.kind().payload()).toList()) {
            Map<String, Double> m = times(run, c, "marshal");
            Map<String, Double> u = times(run, c, "unmarshal");
            if (!m.containsKey("verbatim-hand") || !u.containsKey("verbatim-hand-materialize")) {
                continue;
            }
            f.add(new Floor(c.name(), "marshal", m.get("fory"), m.get("verbatim-hand"), m.get("verbatim"),
                    m.get("fory") / m.get("verbatim-hand") >= MARSHAL_AT_LEAST));
            f.add(new Floor(c.name(), "unmarshal", u.get("fory"), u.get("verbatim-hand"), u.get("verbatim"),
                    u.get("fory") / u.get("verbatim-hand") >= UNMARSHAL_AT_LEAST));
            f.add(new Floor(c.name(), "materialize", u.get("fory"), u.get("verbatim-hand-materialize"),
                    u.get("verbatim-materialize"), u.get("verbatim-hand-materialize") / u.get("fory") <= MATERIALIZE_AT_MOST));
        }
        return f;
    }

    private static void formatFloor(WireBench.Run run, PrintStream out) {
        List<Floor> floors = floors(run);
        if (floors.isEmpty()) {
            return;
        }
        out.println("Format floor on time: the payloads written and read by hand in Verbatim's format (verbatim-hand:"
                + " the same bytes, validation by the format's rules, fields read straight from the message; no identity"
                + " index, queue, views or generated code), against each time target's need (ns per message)");
        out.printf(Locale.ROOT, "  %-10s %-12s %9s %9s %9s %-14s %-12s %s%n", "payload", "target", "fory", "hand",
                "verbatim", "need", "hand meets?", "verbatim beyond hand");
        for (Floor x : floors) {
            String need = switch (x.op()) {
                case "marshal" -> "<= " + fmtTime(x.fory() / MARSHAL_AT_LEAST);
                case "unmarshal" -> "<= " + fmtTime(x.fory() / UNMARSHAL_AT_LEAST);
                default -> "<= " + fmtTime(MATERIALIZE_AT_MOST * x.fory());
            };
            out.printf(Locale.ROOT, "  %-10s %-12s %9s %9s %9s %-14s %-12s %s (%s)%n", x.payload(), x.op(),
                    fmtTime(x.fory()), fmtTime(x.hand()), fmtTime(x.verbatim()), need, x.handMeets() ? "yes" : "NO",
                    fmtTime(x.overHand()), ReportText.ratio(x.verbatim() / x.hand()));
        }
        out.println("  (materialize: v-materialize beside verbatim-hand-materialize, validated and built as heap objects.)");
        out.println();
    }

    private static void unstableNote(WireBench.Run run, PrintStream out) {
        List<String> unstable = new ArrayList<>();
        double worst = 0;
        String worstName = "";
        for (var byOp : List.of(run.marshal(), run.unmarshal())) {
            for (var byLib : byOp.values()) {
                for (BatchHarness.Result r : byLib.values()) {
                    if (!r.stable()) {
                        unstable.add(r.name());
                    }
                    if (r.relativeSpread() > worst) {
                        worst = r.relativeSpread();
                        worstName = r.name();
                    }
                }
            }
        }
        List<BatchHarness.Result> all = new ArrayList<>();
        run.marshal().values().forEach(m -> all.addAll(m.values()));
        run.unmarshal().values().forEach(m -> all.addAll(m.values()));
        double[] shares = all.stream().mapToDouble(BatchHarness.Result::cpuShare).filter(x -> !Double.isNaN(x)).sorted().toArray();
        if (shares.length > 0) {
            double median = shares[shares.length / 2];
            BatchHarness.Result lowest = all.stream().filter(r -> !Double.isNaN(r.cpuShare()))
                    .min(Comparator.comparingDouble(BatchHarness.Result::cpuShare)).orElseThrow();
            out.printf(Locale.ROOT, "The measuring thread was on a CPU for %.0f%% of the measured time (median over"
                            + " workloads; lowest %.0f%%, %s).%n", median * 100, lowest.cpuShare() * 100, lowest.name());
            if (median < 0.9) {
                out.println("WARNING: the machine was busy (other processes, or GC): the figures are inflated and"
                        + " noisy; rerun on a quiet machine before quoting them.");
            }
        }
        if (!unstable.isEmpty()) {
            out.println("* warm-up hit its time bound before the last batches agreed within "
                    + Math.round(run.settings().stableSpread() * 100) + "% with the JIT quiet: "
                    + names(unstable));
        }
        List<String> busy = all.stream().filter(r -> r.cpuShare() < BatchHarness.BUSY_SHARE).map(BatchHarness.Result::name).toList();
        if (!busy.isEmpty()) {
            out.printf(Locale.ROOT, "! the measuring thread had less than %.0f%% of a CPU in every attempt (busy machine,"
                    + " or GC pauses): %s%n", BatchHarness.BUSY_SHARE * 100, names(busy));
        }
        out.printf(Locale.ROOT, "Largest batch spread (interquartile range / median): %.1f%% (%s)%n%n",
                worst * 100, worstName);
    }

    private static String names(List<String> names) {
        return names.size() <= 8 ? String.join(", ", names)
                : String.join(", ", names.subList(0, 8)) + ", ... (" + names.size() + " in all)";
    }

    static List<String> notes() {
        return List.of(
                "verbatim marshal: WireWriter.write into a reused off-heap segment already large enough (no"
                        + " sizeOf pass; the peers likewise write into already-grown buffers).",
                "verbatim unmarshal: WireReader.validate of the received message (its own off-heap segment),"
                        + " then every field read through views, walking the list; for byte arrays the view's"
                        + " length and first and last byte, no copy.",
                "v-materialize (verbatim-materialize): validate, materialize to heap objects, read every field.",
                "peers' unmarshal: deserialize to heap objects, read every field (byte arrays: length, first and"
                        + " last byte of the deserialized copy).",
                "jos: one ObjectOutputStream and one ObjectInputStream per connection over reused byte arrays;"
                        + " a message is reset() (TC_RESET) + writeObject, so class descriptors travel in every"
                        + " message and the 4-byte stream header is not counted.",
                "kryo 5.6.2: registration required, references ON (setReferences(true): sharing and cycles"
                        + " preserved, as in Verbatim), writeClassAndObject/readClassAndObject, Output/Input reused.",
                "fory 1.6.0: Java mode, registration required, ref tracking ON (sharing and cycles preserved, as"
                        + " in Verbatim), codegen on (default, synchronous), max depth raised from 50 to "
                        + ForyCodec.MAX_DEPTH + " (list-500 nests 500 deep), MemoryBuffers reused.",
                "pso-128: Jaguar Figure 8's list element (four bytes, four ints, next), 128 elements.",
                "payloads (issue 19), figures per message: trade (one record: 3 longs, 2 doubles, an enum, two"
                        + " short strings, an Instant, a UUID), profile (a person with an address, 5 tags, a"
                        + " Map<String, String> of 5, a LocalDate, a nickname and a null address), batch-100 (a"
                        + " list of 100 events: a long, an enum, two short strings). Unmarshal reads every field,"
                        + " strings char by char as CharSequence (views: in place; peers: the String copies).",
                "verbatim-hand, verbatim-hand-materialize (payloads only): Verbatim's format written and read by"
                        + " code that knows each payload's schema (HandWriter, HandValidator, HandReader): the bytes"
                        + " WireWriter writes (no identity index: the payloads share nothing), the format's"
                        + " validation rules, fields read straight from the message. Not a library: one hand-written"
                        + " implementation's time, so an upper bound of the format's floor (a faster one may exist).",
                "kryo-noref, fory-noref: the same with reference tracking OFF (no sharing or cycles kept), on"
                        + " the payloads only; the targets compare with tracking ON, as Verbatim always keeps sharing.",
                WireBench.inProcess()
                        ? "Same JVM for all libraries (-D" + WireBench.IN_PROCESS + "=true), measured one after"
                                + " another, case by case; every workload ran once before timing began, so every"
                                + " library was timed on JIT profiles shared with the others. Single figures, no"
                                + " confidence interval: see the JSON spread or the JMH benchmarks"
                                + " (dev.verbatim.bench.jmh) for rigour."
                        : "Each library in a JVM of its own (one child JVM per library, run one after another,"
                                + " with this JVM's options" + childHeap() + ", like JMH's forks): no library is"
                                + " timed on JIT profiles that another library's code polluted. In its JVM, every"
                                + " workload of the library ran once before timing began, then its cases were"
                                + " measured in table order. Single figures, no confidence interval: see the JSON"
                                + " spread or the JMH benchmarks (dev.verbatim.bench.jmh) for rigour.");
    }

    /** What the children get besides this JVM's options, for the notes. */
    private static String childHeap() {
        List<String> flags = WireBench.childHeapFlags();
        return flags.isEmpty() ? "" : " plus " + String.join(" ", flags);
    }

    // ---- JSON -----------------------------------------------------------------------------

    static void printJson(WireBench.Run run, PrintStream out) {
        String mode = run.settings().name();
        for (WireCase c : run.cases()) {
            for (String op : List.of("marshal", "unmarshal")) {
                Map<String, BatchHarness.Result> results = (op.equals("marshal") ? run.marshal() : run.unmarshal()).get(c.name());
                Map<String, Double> f = times(run, c, op);
                Map<String, Double> spread = new LinkedHashMap<>();
                Map<String, Double> cpu = new LinkedHashMap<>();
                List<String> unstable = new ArrayList<>();
                results.forEach((lib, r) -> {
                    spread.put(lib, r.relativeSpread());
                    if (!Double.isNaN(r.cpuShare())) {
                        cpu.put(lib, r.cpuShare());
                    }
                    if (!r.stable()) {
                        unstable.add(lib);
                    }
                });
                out.println(caseLine(c.name() + "/" + op, c.timeUnit(), f, Json.decimals(3))
                        .numbers("spread", spread, Json.decimals(4)).numbers("cpu", cpu, Json.decimals(3))
                        .array("unstable", unstable).string("mode", mode));
            }
            Json size = caseLine(c.name() + "/size", "bytes", sizes(run, c), x -> Long.toString(Math.round(x)));
            if (c.kind().payload()) {
                MessageAnatomy a = MessageAnatomy.of(c.root());
                Map<String, Double> anatomy = new LinkedHashMap<>();
                anatomy.put("objects", (double) a.objects());
                anatomy.put("tables", (double) a.tables());
                anatomy.put("stringPadding", (double) a.stringPadding());
                anatomy.put("objectBytes", (double) a.withoutTablesAndPadding());
                size.numbers("verbatimAnatomy", anatomy, x -> Long.toString(Math.round(x)));
            }
            out.println(size.string("mode", mode));
        }
        for (Target t : targets(run)) {
            out.println(t.jsonLine("wire"));
        }
    }

    /** The start of a case line: its name, unit, results in {@code format} and ratios to verbatim. */
    private static Json caseLine(String name, String unit, Map<String, Double> figures, DoubleFunction<String> format) {
        return Json.line("wire").string("case", name).string("unit", unit).numbers("results", figures, format)
                .numbers("ratios", ratios(figures), Json.decimals(3));
    }

    // ---- formatting -----------------------------------------------------------------------

    static String fmtTime(double ns) {
        if (ns >= 100) {
            return String.format(Locale.ROOT, "%.0f", ns);
        }
        if (ns >= 10) {
            return String.format(Locale.ROOT, "%.1f", ns);
        }
        return String.format(Locale.ROOT, "%.2f", ns);
    }
}
