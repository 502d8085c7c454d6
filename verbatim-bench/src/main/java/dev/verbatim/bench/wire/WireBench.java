package dev.verbatim.bench.wire;

import com.sun.management.HotSpotDiagnosticMXBean;
import dev.verbatim.bench.fixtures.Graphs;
import dev.verbatim.bench.fixtures.Pair;
import dev.verbatim.bench.harness.BatchHarness;
import dev.verbatim.bench.harness.ChildProcess;
import dev.verbatim.bench.harness.SuiteArgs;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The wire suite: J-RPC Tables 3-4 (marshal and unmarshal cost and message size of byte arrays
 * and linked lists) and Jaguar's Figure 8 list, Verbatim side by side with Java serialization,
 * Kryo and Fory in one run; then issue 19's small string-heavy payloads ({@code trade},
 * {@code profile}, {@code batch-100}), where Kryo and Fory are also measured with reference
 * tracking off ({@link #NOREF}, payloads only).
 *
 * <p>Order of a run: every codec's round trip is verified on every case (and on a shared, cyclic
 * graph) in this JVM, and the run stops with exit code 1 at the first mismatch. Then each library
 * is measured in a JVM of its own, as JMH measures in forks: one child JVM per library
 * ({@link WireChild}), started one after another (never two at once), with this JVM's binary, class
 * path and options ({@link ChildProcess#startLikeThisJvm}), and a fixed heap touched at start unless
 * those options size the heap ({@link #childHeapFlags}: a heap growing under the measurements would
 * charge them for first touches of its memory). A child runs every workload of its
 * library briefly once, so that no case is timed on a JIT profile that a later case would
 * invalidate, waits for the JIT's compile queue to drain, measures its library's cases in table
 * order with {@link BatchHarness} and reports each result as a protocol line on its stdout; this JVM
 * collects them into one {@link Run}. Last the tables, the targets and the notes are printed
 * ({@link WireReport}).
 *
 * <p>Why forks: shared JDK code (the {@code MemorySegment} implementation classes, var handle
 * guards, call sites that see several kinds of segment or stream) gets JIT profiles from every
 * library that runs in a JVM, and code compiled for a polluted profile is slower, by different
 * amounts for different libraries. An application uses one serializer; a library's JVM here runs
 * that library only. A child that fails, or does not finish within a hard limit sized from the
 * harness settings ({@link Method#childLimit}), fails the run with exit code 1 and a message
 * naming the library; no child outlives the run. {@code -D}{@value #IN_PROCESS}{@code =true}
 * measures all libraries in this JVM instead, as the suite did before it forked (all workloads
 * touched first, then case by case, library by library), for debugging and profiling.
 *
 * <p>Each case gets fresh codec instances. A codec that once marshalled a large graph keeps a
 * large reference table that it clears on every later message: a Kryo instance that wrote one
 * 500-element list then pays about 2 us per 10-byte array for that clear, and Java serialization's
 * handle table behaves alike. Fresh instances per case measure each library at its best for that
 * message, which is the conservative comparison for Verbatim. (The JIT's profiles are still shared
 * by all cases of a library: that is what the touching pass equalizes.)
 */
public final class WireBench {
    /** Columns, in table order. */
    public static final List<String> LIBRARIES = List.of("verbatim", "verbatim-materialize", "jos", "kryo", "fory",
            "kryo-noref", "fory-noref", "verbatim-hand", "verbatim-hand-materialize");
    /** The peers, compared against {@code verbatim}. */
    public static final List<String> PEERS = List.of("jos", "kryo", "fory", "kryo-noref", "fory-noref");
    /** The columns with reference tracking off: measured on the payloads only (the lists' cycle check needs tracking). */
    public static final List<String> NOREF = List.of("kryo-noref", "fory-noref");
    /**
     * Verbatim's format written and read by hand ({@link HandCodec}): the format's floor beside the library, on the
     * payloads only (it knows their schemas and nothing else).
     */
    public static final List<String> HAND = List.of("verbatim-hand", "verbatim-hand-materialize");
    /** System property: {@code true} measures every library in this JVM, without forking. */
    public static final String IN_PROCESS = "verbatim.bench.wire.inProcess";

    private WireBench() {}

    /** Whether this run measures in this JVM ({@value #IN_PROCESS}) rather than one child JVM per library. */
    static boolean inProcess() {
        return Boolean.getBoolean(IN_PROCESS);
    }

    /** The codecs of one run, in {@link #LIBRARIES} order. */
    public static Map<String, Codec> codecs() {
        Map<String, Codec> m = new LinkedHashMap<>();
        for (String library : LIBRARIES) {
            m.put(library, codec(library));
        }
        return m;
    }

    /** A new codec of {@code library} (one of {@link #LIBRARIES}). */
    public static Codec codec(String library) {
        return switch (library) {
            case "verbatim" -> new VerbatimCodec();
            case "verbatim-materialize" -> new VerbatimMaterializeCodec();
            case "jos" -> new JosCodec();
            case "kryo" -> new KryoCodec();
            case "fory" -> new ForyCodec();
            case "kryo-noref" -> new KryoCodec(false);
            case "fory-noref" -> new ForyCodec(false);
            case "verbatim-hand" -> new HandCodec(false);
            case "verbatim-hand-materialize" -> new HandCodec(true);
            default -> throw new IllegalArgumentException("unknown library '" + library + "' (known: " + LIBRARIES + ")");
        };
    }

    /**
     * Whether {@code library} is measured on case {@code c}: every library on the payloads, all but
     * the {@link #NOREF} and {@link #HAND} columns on the byte arrays and lists (issue 19 asks tracking off for the
     * payloads; the lists' cases are J-RPC's tables with sharing kept; the hand-written codec knows the payloads only).
     */
    static boolean measures(String library, WireCase c) {
        return c.kind().payload() || !payloadsOnly(library);
    }

    /** Whether {@code library} is measured on the payloads only ({@link #NOREF}, {@link #HAND}). */
    static boolean payloadsOnly(String library) {
        return NOREF.contains(library) || HAND.contains(library);
    }

    /** The cases of {@code cases} that {@code library} is measured on, in order. */
    static List<WireCase> casesOf(String library, List<WireCase> cases) {
        return cases.stream().filter(c -> measures(library, c)).toList();
    }

    /**
     * Whether the suite measures {@code library}'s marshal and size ({@code verbatim-materialize}'s are verbatim's,
     * {@code verbatim-hand-materialize}'s {@code verbatim-hand}'s).
     */
    static boolean measuresMarshal(String library) {
        return !library.endsWith("-materialize");
    }

    /** Figures of one run: per case and library, the marshal and unmarshal results and the size. */
    public record Run(BatchHarness.Settings settings, List<WireCase> cases,
                      Map<String, Map<String, BatchHarness.Result>> marshal,
                      Map<String, Map<String, BatchHarness.Result>> unmarshal,
                      Map<String, Map<String, Long>> size,
                      double seconds) {}

    /**
     * How a run warms up and measures, in this JVM or a child: the harness settings, how long the
     * touching pass runs each workload, and the wait for the JIT to go quiet after it (quiet for
     * {@code quietNanos}, waiting at most {@code quietMaxNanos}).
     */
    public record Method(BatchHarness.Settings settings, long touchNanos, long quietNanos, long quietMaxNanos) {
        public static Method quick() {
            return new Method(BatchHarness.Settings.quick(), 15_000_000L, 200_000_000L, 3_000_000_000L);
        }

        public static Method full() {
            return new Method(BatchHarness.Settings.full(), 100_000_000L, 200_000_000L, 20_000_000_000L);
        }

        /**
         * The hard limit on one child's time, for {@code workloads} workloads: three times what the
         * harness settings allow at most (every warm-up hitting its bound, every measurement retried),
         * plus the touching pass, the JIT wait, and 15 s for starting the JVM and the libraries.
         * 79 s for a library of a quick run, 7 min of a full one.
         */
        public Duration childLimit(int workloads) {
            BatchHarness.Settings s = settings;
            long perWorkload = s.maxWarmupNanos() + (s.retries() + 1L) * s.batches() * s.batchNanos()
                    + 4 * s.batchNanos() + touchNanos;
            return Duration.ofNanos(3 * (workloads * perWorkload + quietMaxNanos + 15_000_000_000L));
        }
    }

    /** Where measured figures go: a {@link Figures} in the measuring JVM, protocol lines in a child. */
    interface Sink {
        void size(String caseName, String library, long bytes);

        void result(String caseName, String library, String op, BatchHarness.Result result);
    }

    /** Figures as they arrive, by case and library; {@link #toRun} puts them in table order. */
    static final class Figures implements Sink {
        private final Map<String, Map<String, BatchHarness.Result>> marshal = new HashMap<>();
        private final Map<String, Map<String, BatchHarness.Result>> unmarshal = new HashMap<>();
        private final Map<String, Map<String, Long>> size = new HashMap<>();

        @Override
        public void size(String caseName, String library, long bytes) {
            size.computeIfAbsent(caseName, k -> new HashMap<>()).put(library, bytes);
        }

        @Override
        public void result(String caseName, String library, String op, BatchHarness.Result result) {
            Map<String, Map<String, BatchHarness.Result>> byCase = switch (op) {
                case "marshal" -> marshal;
                case "unmarshal" -> unmarshal;
                default -> throw new IllegalArgumentException("unknown operation '" + op + "'");
            };
            byCase.computeIfAbsent(caseName, k -> new HashMap<>()).put(library, result);
        }

        /** The figures of {@code cases} that {@code library} should have and has not ({@code list-10/marshal}, ...). */
        List<String> missing(String library, List<WireCase> cases) {
            List<String> missing = new ArrayList<>();
            for (WireCase c : casesOf(library, cases)) {
                if (measuresMarshal(library)) {
                    if (!has(size, c.name(), library)) {
                        missing.add(c.name() + "/size");
                    }
                    if (!has(marshal, c.name(), library)) {
                        missing.add(c.name() + "/marshal");
                    }
                }
                if (!has(unmarshal, c.name(), library)) {
                    missing.add(c.name() + "/unmarshal");
                }
            }
            return missing;
        }

        private static boolean has(Map<String, ? extends Map<String, ?>> byCase, String caseName, String library) {
            Map<String, ?> byLibrary = byCase.get(caseName);
            return byLibrary != null && byLibrary.containsKey(library);
        }

        /** The run of {@code cases} and {@code libraries}, both in table order (every figure must be there). */
        Run toRun(BatchHarness.Settings settings, List<WireCase> cases, List<String> libraries, double seconds) {
            Map<String, Map<String, BatchHarness.Result>> m = new LinkedHashMap<>();
            Map<String, Map<String, BatchHarness.Result>> u = new LinkedHashMap<>();
            Map<String, Map<String, Long>> s = new LinkedHashMap<>();
            for (WireCase c : cases) {
                Map<String, BatchHarness.Result> mc = new LinkedHashMap<>();
                Map<String, BatchHarness.Result> uc = new LinkedHashMap<>();
                Map<String, Long> sc = new LinkedHashMap<>();
                for (String lib : libraries.stream().filter(l -> measures(l, c)).toList()) {
                    if (measuresMarshal(lib)) {
                        sc.put(lib, figure(size, c, lib, "size"));
                        mc.put(lib, figure(marshal, c, lib, "marshal"));
                    }
                    uc.put(lib, figure(unmarshal, c, lib, "unmarshal"));
                }
                m.put(c.name(), mc);
                u.put(c.name(), uc);
                s.put(c.name(), sc);
            }
            return new Run(settings, cases, m, u, s, seconds);
        }

        private static <T> T figure(Map<String, Map<String, T>> byCase, WireCase c, String library, String what) {
            T x = byCase.getOrDefault(c.name(), Map.of()).get(library);
            if (x == null) {
                throw new IllegalStateException("no " + c.name() + "/" + what + " figure for " + library);
            }
            return x;
        }
    }

    /** A child JVM that failed, timed out or reported nonsense; the message names its library. */
    static final class ForkFailure extends Exception {
        private static final long serialVersionUID = 1L;

        ForkFailure(String message) {
            super(message);
        }
    }

    /** Runs the suite and prints it; returns the process exit code. */
    public static int run(boolean quick, boolean json, PrintStream out, PrintStream err) throws Exception {
        long start = System.nanoTime();
        Method method = quick ? Method.quick() : Method.full();
        List<WireCase> cases = WireCase.all();

        err.println("verbatim bench wire: verifying round trips ...");
        try {
            verify(cases);
        } catch (VerificationError e) {
            err.println("verbatim bench wire: ROUND TRIP FAILED: " + e.getMessage());
            return 1;
        }

        Figures figures;
        if (inProcess()) {
            figures = measureInProcess(cases, method, err);
        } else {
            try {
                figures = measureForked(cases, method, LIBRARIES, null, err);
            } catch (ForkFailure e) {
                err.println("verbatim bench wire: FAILED: " + e.getMessage());
                return 1;
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        Run run = figures.toRun(method.settings(), cases, LIBRARIES, seconds);
        return new SuiteArgs(quick, json, null).finish("wire", o -> WireReport.printJson(run, o),
                o -> WireReport.printTables(run, o), null, false, out, err);
    }

    /**
     * Measures {@code libraries} on {@code cases}, each library in a child JVM of its own, one after
     * another; progress goes to {@code err}. {@code limit} bounds each child's time (null: the
     * {@linkplain Method#childLimit method's}). Every child is gone when this returns or throws.
     *
     * @throws ForkFailure when a child fails, passes its limit, or leaves figures out
     */
    static Figures measureForked(List<WireCase> cases, Method method, List<String> libraries, Duration limit,
                                 PrintStream err) throws ForkFailure, IOException, InterruptedException {
        err.println("verbatim bench wire: measuring each library in a JVM of its own, one after another ("
                + method.settings().name() + " run) ...");
        // the verification pass leaves a compile queue: this JVM's compiler threads would compete with the first child
        new BatchHarness(method.settings()).awaitJitQuiet(200_000_000L, 2_000_000_000L);
        List<String> heapDefaults = childHeapFlags();
        Figures figures = new Figures();
        for (String library : libraries) {
            for (List<WireCase> own : groups(casesOf(library, cases))) {
                measureInChild(library, own, method, limit, heapDefaults, figures, err);
            }
            List<String> missing = figures.missing(library, cases);
            if (!missing.isEmpty()) {
                throw new ForkFailure("measuring " + library + " in a JVM of its own: the child finished without"
                        + " figures for " + missing);
            }
        }
        return figures;
    }

    /**
     * A library's cases split into the JVMs that measure them: J-RPC's and Jaguar's (byte arrays, lists) in one, the
     * payloads of issue 19 in another, so that neither group's figures carry the other's JIT profile. In one JVM,
     * Verbatim's batch-100 marshal measured 15,530 ns after the bytes and list cases (5.96x Fory's time), against
     * 9,542 ns in a JVM of its own under JMH (3.0x, as an in-process A/B of thread CPU time said: 3.32x).
     * Empty groups are left out.
     */
    static List<List<WireCase>> groups(List<WireCase> own) {
        List<WireCase> tables = own.stream().filter(c -> !c.kind().payload()).toList();
        List<WireCase> payloads = own.stream().filter(c -> c.kind().payload()).toList();
        return java.util.stream.Stream.of(tables, payloads).filter(g -> !g.isEmpty()).toList();
    }

    /** Measures {@code library} on {@code own} in a child JVM, adding its figures to {@code figures}. */
    private static void measureInChild(String library, List<WireCase> own, Method method, Duration limit,
                                       List<String> heapDefaults, Figures figures, PrintStream err)
            throws ForkFailure, IOException, InterruptedException {
        Duration childLimit = limit != null ? limit
                : method.childLimit(own.size() * (measuresMarshal(library) ? 2 : 1));
        long started = System.nanoTime();
        long deadline = started + childLimit.toNanos();
        err.print("  " + library + ":");
        err.flush();
        try (ChildProcess child = ChildProcess.startLikeThisJvm("wire " + library, heapDefaults,
                WireChild.class.getName(), WireChild.args(library, own, method, childLimit.plusSeconds(10)))) {
            while (true) {
                String line;
                try {
                    line = child.nextLine(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
                } catch (ChildProcess.ChildFailure e) {
                    err.println();
                    boolean late = System.nanoTime() - deadline >= 0;
                    throw new ForkFailure("measuring " + library + " in a JVM of its own: "
                            + (late ? "the child did not finish within its hard limit of "
                                    + childLimit.toSeconds() + " s and was killed; " : "")
                            + e.getMessage());
                }
                if (line.equals("DONE")) {
                    break;
                }
                try {
                    WireChild.accept(line, library, figures, err);
                } catch (RuntimeException e) {
                    err.println();
                    throw new ForkFailure("measuring " + library + " in a JVM of its own: the child said '"
                            + line + "', which is not understood (" + e.getMessage() + ")");
                }
            }
            child.awaitExit(Duration.ofSeconds(5));
        }
        err.printf(Locale.ROOT, " (%.1f s)%n", (System.nanoTime() - started) / 1e9);
    }

    /** The heap a child gets when this JVM's options do not size the heap: fixed, and touched at start. */
    static final String CHILD_HEAP = "512m";

    /**
     * The heap options a child gets before this JVM's own ({@code inherited}): {@code -Xms512m -Xmx512m
     * -XX:+AlwaysPreTouch} unless {@code inherited} sizes the heap or sets {@code AlwaysPreTouch}
     * itself; and where this JVM runs G1 ({@code useG1} is {@code "true"}) and {@code inherited} sets
     * no region size, this JVM's region size ({@code regionSize}, bytes).
     *
     * <p>Why: a fresh JVM starts with a small heap (384 MB on the suite's 24 GB machine) that G1
     * grows while allocation-heavy workloads run (to about 2 GB under the 1 MiB arrays), and heap
     * memory used for the first time costs a page fault per 4 KiB page, several microseconds on a
     * VM. In a child that measures right after starting, that growth lands in the measurements: on
     * the 2-CPU VM, 1 MiB unmarshal took 10x longer in about a third of the children (0.6-0.8 ms
     * instead of 70 us) and list unmarshal up to 7x, at random. The suite's single JVM of before, and an
     * application that has run a while, have long grown and touched their heap. A fixed heap,
     * touched when the JVM starts, removes the growth. 512 MB is a compromise: touching it takes
     * 0.5-0.8 s per child on the 2-CPU VM (1 GB took 1.3-1.9 s, too much for {@code --quick}), and G1's
     * young collections stay rare enough (one of about 1 ms every ~25 ms under 1 MiB unmarshal, some
     * 4% of that case's time; about 1% in a heap grown to 2 GB; negligible for the lists). The region
     * size is this JVM's so that objects are placed as here: for a 512 MB heap G1 would pick 1 MB
     * regions, which makes a 1 MiB array a humongous object, allocated and reclaimed differently.
     */
    static List<String> childHeapFlags(List<String> inherited, String useG1, String regionSize) {
        List<String> flags = new ArrayList<>();
        boolean sized = inherited.stream().anyMatch(f -> f.startsWith("-Xms") || f.startsWith("-Xmx")
                || f.startsWith("-XX:InitialHeapSize=") || f.startsWith("-XX:MaxHeapSize=")
                || f.startsWith("-XX:MinHeapSize=") || f.endsWith("AlwaysPreTouch"));
        if (!sized) {
            flags.addAll(List.of("-Xms" + CHILD_HEAP, "-Xmx" + CHILD_HEAP, "-XX:+AlwaysPreTouch"));
        }
        if ("true".equals(useG1) && regionSize != null
                && inherited.stream().noneMatch(f -> f.startsWith("-XX:G1HeapRegionSize="))) {
            long bytes = Long.parseLong(regionSize);
            flags.add("-XX:G1HeapRegionSize=" + (bytes % (1 << 20) == 0 ? (bytes >> 20) + "m" : regionSize));
        }
        return flags;
    }

    /** {@link #childHeapFlags(List, String, String)} for this JVM. */
    static List<String> childHeapFlags() {
        return childHeapFlags(ChildProcess.inheritedJvmFlags(), vmOption("UseG1GC"), vmOption("G1HeapRegionSize"));
    }

    /** The value of a HotSpot option of this JVM, or null where there is no such option. */
    static String vmOption(String name) {
        try {
            return ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).getVMOption(name).getValue();
        } catch (RuntimeException e) {
            return null;
        }
    }

    /**
     * Measures every library in this JVM ({@value #IN_PROCESS}), as the suite did before it forked:
     * every workload of every library touched once, the JIT quiet, then case by case, library by library.
     */
    static Figures measureInProcess(List<WireCase> cases, Method method, PrintStream err) throws Exception {
        BatchHarness harness = new BatchHarness(method.settings());
        err.println("verbatim bench wire: all libraries in this JVM (-D" + IN_PROCESS + "=true); touching every"
                + " workload once (" + harness.settings().name() + " run) ...");
        Map<String, Codec> touching = codecs();
        for (WireCase c : cases) {
            for (Codec codec : touching.values()) {
                if (measures(codec.name(), c)) {
                    touch(harness, codec, c, method.touchNanos());
                }
            }
        }
        long waited = System.nanoTime();
        boolean quiet = harness.awaitJitQuiet(method.quietNanos(), method.quietMaxNanos());
        err.printf(Locale.ROOT, "verbatim bench wire: %s after %.1f s; measuring ...%n",
                quiet ? "JIT quiet" : "JIT still compiling", (System.nanoTime() - waited) / 1e9);
        Figures figures = new Figures();
        for (WireCase c : cases) {
            err.print("  " + c.name() + ":");
            for (Codec codec : codecs().values()) { // fresh per case: see the class comment
                if (!measures(codec.name(), c)) {
                    continue;
                }
                err.print(" " + codec.name());
                err.flush();
                measureCase(harness, codec, c, figures);
            }
            err.println();
        }
        return figures;
    }

    /** Runs {@code codec}'s workloads of case {@code c} briefly, recording nothing (the touching pass). */
    static void touch(BatchHarness harness, Codec codec, WireCase c, long nanos) throws Exception {
        codec.receive(c.root());
        if (measuresMarshal(codec.name())) {
            harness.touch((n, bh) -> codec.marshalBatch(c.root(), n, bh), nanos);
        }
        harness.touch((n, bh) -> codec.unmarshalBatch(c.kind(), n, bh), nanos);
    }

    /** Measures {@code codec} (a fresh one) on case {@code c}: its size, marshal and unmarshal, in that order. */
    static void measureCase(BatchHarness harness, Codec codec, WireCase c, Sink sink) throws Exception {
        long size = codec.receive(c.root());
        if (measuresMarshal(codec.name())) {
            sink.size(c.name(), codec.name(), size);
            sink.result(c.name(), codec.name(), "marshal", harness.measure(c.name() + "/marshal/" + codec.name(),
                    (n, bh) -> codec.marshalBatch(c.root(), n, bh)));
        }
        sink.result(c.name(), codec.name(), "unmarshal", harness.measure(c.name() + "/unmarshal/" + codec.name(),
                (n, bh) -> codec.unmarshalBatch(c.kind(), n, bh)));
    }

    /** A failed start-up check. */
    static final class VerificationError extends Exception {
        private static final long serialVersionUID = 1L;

        VerificationError(String message) {
            super(message);
        }
    }

    /**
     * Checks every codec on every case it is measured on: the message decodes to the original (read
     * the way the timed unmarshal reads it), repeatedly through the reused streams, the timed
     * unmarshal reads the original's fields, marshal is deterministic in size; and sharing and
     * cycles survive (the codecs with reference tracking on).
     */
    static void verify(List<WireCase> cases) throws Exception {
        Map<String, Codec> codecs = codecs(); // one set for all cases: reuse across shapes is checked too
        for (WireCase c : cases) {
            long expected = Graphs.touch(c.root());
            for (Codec codec : codecs.values()) {
                if (!measures(codec.name(), c)) {
                    continue;
                }
                String where = codec.name() + " on " + c.name();
                long size = codec.receive(c.root());
                for (int round = 0; round < 3; round++) {
                    check(where, codec.verifyReceived(c.root()));
                    check(where, Graphs.diff(c.root(), codec.decode()));
                    long got = codec.unmarshal(c.kind());
                    if (got != expected) {
                        throw new VerificationError(where + ": unmarshal read fields summing to " + got
                                + ", the original's sum to " + expected);
                    }
                    long again = codec.marshal(c.root());
                    if (again != size) {
                        throw new VerificationError(where + ": marshal wrote " + again + " bytes, earlier " + size);
                    }
                }
            }
        }
        for (Codec codec : codecs.values()) {
            if (payloadsOnly(codec.name())) {
                continue; // a ring without tracking never ends, the hand-written codec knows the payloads only
            }
            codec.receive(Graphs.sharedRing());
            Object back = codec.decode();
            if (!(back instanceof Pair p) || !Graphs.isSharedRing(p)) {
                throw new VerificationError(codec.name() + " did not preserve sharing and cycles (a pair of"
                        + " references to one node of a three-node ring)");
            }
        }
    }

    private static void check(String where, String diff) throws VerificationError {
        if (diff != null) {
            throw new VerificationError(where + ": " + diff);
        }
    }

    /**
     * For running the suite without the CLI: {@code [--quick] [--json]} (the JVM options of
     * {@code ./verbatim}, which the children inherit, are up to the caller).
     */
    public static void main(String[] args) throws Exception {
        SuiteArgs a = SuiteArgs.parse(args);
        System.exit(run(a.quick(), a.json(), System.out, System.err));
    }
}
