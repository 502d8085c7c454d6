package dev.verbatim.bench.objects;

import dev.verbatim.bench.harness.CallLoop;
import dev.verbatim.bench.harness.ChildMain;
import dev.verbatim.bench.harness.ChildProcess;
import dev.verbatim.bench.harness.Host;
import dev.verbatim.bench.harness.JitTime;
import dev.verbatim.bench.harness.JitTurns;
import dev.verbatim.bench.harness.LatencyHistogram;
import dev.verbatim.bench.harness.ScratchDir;
import dev.verbatim.bench.harness.Session;
import dev.verbatim.bench.harness.Stats;
import dev.verbatim.bench.harness.SuiteArgs;
import dev.verbatim.bench.harness.Turns;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The objects suite, {@code verbatim bench objects [--quick] [--json] [--plot PATH]} (issue 15 §4, paper
 * 003 §5): a null call through plain RPC, distributed objects and Java RMI, a reference forwarded to a
 * third base, and the distributed list walked serially, threaded and hybrid over 1 to 4 bases in three
 * layouts, side by side in one run.
 *
 * <p>Every base is a process of its own: four {@link ObjectsPeer} processes, each hosting all three
 * contenders ({@link BaseProcess}), up for the whole run. Process 0 makes every call; the parent sends it
 * one turn at a time ({@link CallLoop}: warm-up, then every call timed). The contenders take turns as in
 * the rpc suite: for each case, round after round, every contender that has the case takes one turn, in
 * an order rotating from round to round, after the processes fell quiet ({@link Turns#settle}); a turn during which
 * the processes' JIT compilers ran is run again, as still warming up ({@link JitTime}, {@link JitTurns}). A figure
 * is the median of a contender's turns' p50s; a ratio the median over rounds of the ratio within a
 * round ({@link Stats#pairedRatio}), also across the cases of the first phase, which run round by round
 * together. First phase: the calls, the forwarded reference and the hop ({@link ObjectsCase#calls()});
 * then the work per element is fixed at the objects null call over shm ({@link #work}, unless
 * {@code -Dverbatim.bench.objects.work=NANOS}); second phase: the list cases with that work.
 * {@code -Dverbatim.bench.cases=shm/forward-ref,list/scattered/serial/b2/w0} runs only those cases (and the shm null
 * call, when a list case needs its work per element), for an A/B of a few.
 *
 * <p>The private directory is deleted and every child is gone when {@link #run} returns. A contender's
 * case that fails is reported and left out; the others go on, and the run exits with code 1.
 */
public final class ObjectsBench {
    private ObjectsBench() {}

    /** {@code -Dverbatim.bench.objects.work=NANOS}: the work per element of the list cases, instead of the null call's p50. */
    static final String WORK = "verbatim.bench.objects.work";
    /** {@code -Dverbatim.bench.objects.elements=N}: the list's length instead of the plan's. */
    static final String ELEMENTS = "verbatim.bench.objects.elements";
    private static final boolean TRACE = Boolean.getBoolean("verbatim.bench.trace");
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    /** The hops of a list case's first warm-up, quick or full ({@link Plan#warmWalks}). */
    static final long WARM_HOPS = 20_000;
    /** JVM flags of the base processes: RMI's, and a deep stack (a walk nests a call per remote link). */
    static final List<String> FLAGS;

    static {
        List<String> f = new ArrayList<>(RmiFixtures.FLAGS);
        f.add("-Xss4m");
        f.add("-Xmx512m");
        FLAGS = List.copyOf(f);
    }

    /**
     * The turns of a run.
     *
     * @param rounds        turns per contender and case
     * @param elements      the list's length n
     * @param warmMillis    a turn's warm-up
     * @param measureMillis a turn's timed calls (at least one)
     * @param firstWarm     the warm-up of a contender's first turn in each case (the JIT; at least
     *                      {@code firstWarmCalls} calls, at most 10x as long)
     */
    record Plan(boolean quick, int rounds, int elements, long warmMillis, long measureMillis, long firstWarm,
                long firstWarmCalls, long settleMillis) {
        /** How often a turn is run again while the compilers are busy during it: once quick, {@link JitTurns#FULL_RETRIES} full. */
        int jitRetries() {
            return quick ? 1 : JitTurns.FULL_RETRIES;
        }

        CallLoop turn(boolean first, boolean list) {
            if (first) {
                return new CallLoop(firstWarm, list ? warmWalks() : firstWarmCalls, 10 * firstWarm, measureMillis);
            }
            return new CallLoop(warmMillis, 1, warmMillis, measureMillis);
        }

        /**
         * The walks of a list case's first warm-up: as many hops as a call case's first warm-up makes calls. One
         * walk was too few for the JIT: a quick run's hop (100 elements) measured 60-75 us per element, its walks
         * running interpreted all three rounds (the third turn's walks of 1,000 elements still 7 ms), against
         * 0.5-0.7 us warm.
         */
        long warmWalks() {
            return Math.max(1, (WARM_HOPS + elements - 1) / elements);
        }
    }

    /**
     * Quick: 3 rounds, a 100-element list, turns of 40 ms after 15; full: 9 rounds, 1,000 elements, 120 ms after 30.
     * Before a turn the bases get up to 300 ms (quick) or 600 ms (full) to fall quiet: with 50 ms in quick runs the
     * four bases' JIT compilers were still taking ~14 s of CPU in the run's first 20 s (2 CPUs), and the shm null
     * call measured 1.6-22 us from run to run (0.7 us warm and alone).
     */
    static Plan plan(boolean quick) {
        Plan p = quick ? new Plan(true, 3, 100, 15, 40, 150, 5_000, 300)
                : new Plan(false, 9, 1000, 30, 120, 600, 20_000, 600);
        int n = Integer.getInteger(ELEMENTS, p.elements());
        return new Plan(p.quick(), p.rounds(), n, p.warmMillis(), p.measureMillis(), p.firstWarm(), p.firstWarmCalls(),
                p.settleMillis());
    }

    /**
     * A run's figures: per case key, per contender, a histogram per turn (in round order; a walk's
     * histogram holds whole walks); {@code failures}: {@code "contender case"} to why.
     */
    public record Run(String mode, int rounds, int elements, long work, Map<String, Map<String, List<LatencyHistogram>>> turns,
                      Map<String, String> failures, double seconds, double loadBefore, double loadAfter, JitTurns jit) {
        /** A run whose turns the compilers never disturbed (or that could not tell). */
        public Run(String mode, int rounds, int elements, long work, Map<String, Map<String, List<LatencyHistogram>>> turns,
                   Map<String, String> failures, double seconds, double loadBefore, double loadAfter) {
            this(mode, rounds, elements, work, turns, failures, seconds, loadBefore, loadAfter, JitTurns.NONE);
        }

        /** Whether {@code contender} has turns of case {@code c}. */
        public boolean has(ObjectsCase c, String contender) {
            List<LatencyHistogram> l = turns.getOrDefault(c.key(), Map.of()).get(contender);
            return l != null && !l.isEmpty();
        }

        /** Per turn of {@code contender} in {@code c}: its p50, per call (ns), or per element for a walk. */
        public double[] perTurn(ObjectsCase c, String contender) {
            return perTurn(c, contender, h -> h.quantile(0.5));
        }

        /** Per turn of {@code contender} in {@code c}: its mean, per call (ns), or per element for a walk. */
        public double[] meanPerTurn(ObjectsCase c, String contender) {
            return perTurn(c, contender, LatencyHistogram::mean);
        }

        private double[] perTurn(ObjectsCase c, String contender, java.util.function.ToDoubleFunction<LatencyHistogram> of) {
            if (!has(c, contender)) {
                return new double[0];
            }
            double per = c.isList() ? elements : 1;
            return turns.get(c.key()).get(contender).stream().mapToDouble(h -> of.applyAsDouble(h) / per).toArray();
        }

        /**
         * The hop's figure over the objects null call's mean per call, paired by round (NaN if either is missing), printed
         * beside the target (which sets the walk against null calls in a row, {@link ObjectsCase#NULL_RUN}): a walk's p50
         * per element counts the tails of the calls inside it, a call's p50 leaves its own out, its mean counts them.
         */
        public double hopOverNullMean() {
            double[] x = perTurn(ObjectsCase.HOP, ObjectsCase.OBJECTS);
            double[] y = meanPerTurn(ObjectsCase.SHM_CALL_NULL, ObjectsCase.OBJECTS);
            return x.length == 0 || y.length == 0 ? Double.NaN : Stats.pairedRatio(x, y);
        }

        /** The figure of {@code contender} in {@code c}: the median of its turns' (NaN if none). */
        public double figure(ObjectsCase c, String contender) {
            return Stats.median(perTurn(c, contender));
        }

        /** {@code a}'s figure in case {@code ca} over {@code b}'s in {@code cb}, paired by round (NaN if either is missing). */
        public double ratio(ObjectsCase ca, String a, ObjectsCase cb, String b) {
            double[] x = perTurn(ca, a);
            double[] y = perTurn(cb, b);
            return x.length == 0 || y.length == 0 ? Double.NaN : Stats.pairedRatio(x, y);
        }
    }

    /** Runs the suite, prints it, writes the plot to {@code plot} when not null; returns the exit code. */
    public static int run(boolean quick, boolean json, Path plot, PrintStream out, PrintStream err) throws Exception {
        SuiteArgs args = new SuiteArgs(quick, json, plot);
        Plan plan = plan(quick);
        long t0 = System.nanoTime();
        double loadBefore = Host.loadAverage();
        Run run;
        try (ScratchDir scratch = ScratchDir.create()) {
            run = measure(plan, scratch.path(), err, t0, loadBefore);
        }
        Run r = run;
        return args.finish("objects", o -> ObjectsReport.printJson(r, o), o -> ObjectsReport.printTables(r, o),
                file -> ObjectsPlot.write(r, file), !r.failures().isEmpty(), out, err);
    }

    /** The four processes, the two phases, the run. */
    static Run measure(Plan plan, Path base, PrintStream err, long t0, double loadBefore) throws Exception {
        Path dir = ScratchDir.sessionDir(base, "objects");
        long deadline = 20 * 60_000L;
        Map<String, String> common = Session.properties(dir, 8, deadline);
        common.put(ObjectsPeer.ELEMENTS, Integer.toString(plan.elements()));
        List<ChildProcess> procs = new ArrayList<>();
        Map<String, Map<String, List<LatencyHistogram>>> turns = new LinkedHashMap<>();
        Map<String, String> failures = new LinkedHashMap<>();
        JitTurns.Count jit = new JitTurns.Count();
        long work;
        try {
            err.printf(Locale.ROOT, "verbatim bench objects: starting %d base processes ...%n", ObjectsCase.MAX_BASES);
            Map<String, String> zero = new LinkedHashMap<>(common);
            List<ChildProcess> others = new ArrayList<>();
            for (int k = 1; k < ObjectsCase.MAX_BASES; k++) {
                others.add(start(k, common));
            }
            procs.addAll(others);
            for (int k = 1; k < ObjectsCase.MAX_BASES; k++) {
                Map<String, String> published = ChildMain.props(others.get(k - 1).awaitLine("READY", READY_TIMEOUT).getLast());
                for (Map.Entry<String, String> e : published.entrySet()) {
                    zero.put(e.getKey() + k, e.getValue());
                }
            }
            ChildProcess p0 = start(0, zero);
            procs.addFirst(p0);
            p0.awaitLine("READY", READY_TIMEOUT);
            Turner turner = new Turner(plan, p0, procs, turns, failures, jit, err);
            Long fixed = Long.getLong(WORK);
            List<ObjectsCase> lists = selected(ObjectsCase.lists(), false);
            if (!turner.phase(selected(ObjectsCase.calls(), !lists.isEmpty() && fixed == null), 0)) {
                return partial(plan, turns, failures, jit, 0, t0, loadBefore);
            }
            Run soFar = new Run(plan.quick() ? "quick" : "full", plan.rounds(), plan.elements(), 0, turns, failures, 0, 0, 0);
            work = fixed != null ? fixed : work(soFar.perTurn(ObjectsCase.SHM_CALL_NULL, ObjectsCase.OBJECTS));
            err.printf(Locale.ROOT, "verbatim bench objects: work per element %,d ns%n", work);
            if (!turner.phase(lists, work)) {
                return partial(plan, turns, failures, jit, work, t0, loadBefore);
            }
            for (ChildProcess p : procs) {
                p.send("STOP");
            }
            for (ChildProcess p : procs) {
                p.awaitLine("DONE", Duration.ofSeconds(20));
            }
        } finally {
            procs.forEach(ChildProcess::close);
            ScratchDir.deleteTree(dir);
        }
        return partial(plan, turns, failures, jit, work, t0, loadBefore);
    }

    /** The run as far as it went. */
    private static Run partial(Plan plan, Map<String, Map<String, List<LatencyHistogram>>> turns, Map<String, String> failures,
                               JitTurns.Count jit, long work, long t0, double loadBefore) {
        return new Run(plan.quick() ? "quick" : "full", plan.rounds(), plan.elements(), work, turns, failures,
                (System.nanoTime() - t0) / 1e9, loadBefore, Host.loadAverage(), jit.turns());
    }

    /** The longest work per element the null call can set (a loaded host's null call says little of the call itself). */
    static final long MAX_WORK = 50_000;

    /**
     * The cases of {@code cases} that {@code -Dverbatim.bench.cases} selects ({@link SuiteArgs#caseSelected}: all when
     * unset), and {@link ObjectsCase#SHM_CALL_NULL} whenever {@code nullCall} (the lists' work per element is measured
     * by it).
     */
    static List<ObjectsCase> selected(List<ObjectsCase> cases, boolean nullCall) {
        return cases.stream().filter(c -> SuiteArgs.caseSelected(c.key()) || nullCall && c.equals(ObjectsCase.SHM_CALL_NULL)).toList();
    }

    /**
     * The work per element from the objects null call's turns over shm ({@code p50s}, ns): the fastest
     * turn's p50 (the least disturbed by other work on the host), to 10 ns, between 1 µs and
     * {@value #MAX_WORK} ns; 10 µs when there is none.
     */
    static long work(double[] p50s) {
        double min = Double.POSITIVE_INFINITY;
        for (double v : p50s) {
            min = Math.min(min, v);
        }
        if (Double.isInfinite(min)) {
            return 10_000;
        }
        return Math.max(1_000, Math.min(MAX_WORK, Math.round(min / 10) * 10));
    }

    private static ChildProcess start(int k, Map<String, String> props) throws Exception {
        Map<String, String> p = new LinkedHashMap<>(props);
        p.put(ObjectsPeer.INDEX, Integer.toString(k));
        return ChildProcess.start("base " + k, FLAGS, ObjectsPeer.class.getName(), ChildMain.args("base", "base-" + k, p));
    }

    /** The turns of a run: who goes when, what came back. Used by the suite's own thread. */
    private static final class Turner {
        private final Plan plan;
        private final ChildProcess p0;
        private final List<ChildProcess> all;
        private final Map<String, Map<String, List<LatencyHistogram>>> turns;
        private final Map<String, String> failures;
        /** Turns run again, turns kept busy. */
        private final JitTurns.Count jit;
        private final PrintStream err;
        private String previous;

        Turner(Plan plan, ChildProcess p0, List<ChildProcess> all, Map<String, Map<String, List<LatencyHistogram>>> turns,
               Map<String, String> failures, JitTurns.Count jit, PrintStream err) {
            this.plan = plan;
            this.p0 = p0;
            this.all = all;
            this.turns = turns;
            this.failures = failures;
            this.jit = jit;
            this.err = err;
        }

        /**
         * {@code plan.rounds()} rounds, each a turn of every contender of every case of {@code cases}; false
         * when base 0 failed (it died or did not answer): the run ends there, with what it measured.
         */
        boolean phase(List<ObjectsCase> cases, long work) throws InterruptedException {
            err.printf(Locale.ROOT, "verbatim bench objects: %d cases, %d rounds ...%n", cases.size(), plan.rounds());
            for (int round = 0; round < plan.rounds(); round++) {
                for (ObjectsCase c : cases) {
                    List<String> live = c.columns().stream().filter(n -> !failures.containsKey(n + " " + c.key())).toList();
                    for (String contender : Turns.rotation(live, round)) {
                        try {
                            turn(c, contender, round == 0, work);
                        } catch (IOException | RuntimeException e) {
                            failures.put(contender + " " + c.key(), "base 0 failed, the run ended here: " + e.getMessage());
                            err.println("  FAILED: " + e.getMessage());
                            return false;
                        }
                    }
                }
            }
            return true;
        }

        /**
         * One turn of {@code contender} in {@code c}, after the processes fell quiet; run again (up to {@link
         * Plan#jitRetries} times) while the compilers of the processes took {@link JitTurns#QUIET_NANOS} or more during it:
         * such a turn was still warming up ({@link JitTime}), and its figures are dropped.
         */
        private void turn(ObjectsCase c, String contender, boolean first, long work) throws IOException, InterruptedException {
            if (previous != null && !previous.equals(contender + c.key())) {
                Turns.settle(all, plan.settleMillis());
            }
            previous = contender + c.key();
            for (int attempt = 0; ; attempt++) {
                CallLoop loop = plan.turn(first && attempt == 0, c.isList());
                long jit0 = JitTime.nanos(all);
                p0.send("TURN " + contender + " " + c.key() + " " + work + " " + loop.words());
                long wait = 10 * loop.maxWarmMillis() + loop.measureMillis() + 120_000;
                String line = p0.nextLine(Duration.ofMillis(wait));
                if (!line.startsWith("TURN") && !line.startsWith("FAILED")) {
                    throw new IllegalStateException("base 0 said '" + line + "' to a TURN");
                }
                if (line.startsWith("FAILED")) {
                    String why = line.substring("FAILED".length()).trim();
                    failures.put(contender + " " + c.key(), why);
                    err.printf(Locale.ROOT, "  FAILED: %s %s: %s%n", contender, c.key(), why);
                    return;
                }
                long jit1 = JitTime.nanos(all);
                boolean again = jit.again(jit0, jit1, attempt, plan.jitRetries());
                Map<String, String> m = ChildMain.props(line);
                LatencyHistogram h = LatencyHistogram.decode(m.get("hist"));
                if (TRACE) {
                    err.printf(Locale.ROOT, "  %-8s %-30s warm %6s in %5s ms  %7d calls  p50 %,12.0f ns  cpu %s  jit %5.1f ms%s%n",
                            contender, c.key(), m.get("warm"), m.get("warmMs"), h.count(), h.quantile(0.5), m.get("cpu"),
                            (jit1 - jit0) / 1e6, again ? "  (again)" : "");
                }
                if (again) {
                    Turns.settle(all, plan.settleMillis());
                    continue;
                }
                turns.computeIfAbsent(c.key(), k -> new LinkedHashMap<>()).computeIfAbsent(contender, k -> new ArrayList<>()).add(h);
                return;
            }
        }
    }

    /** For running the suite without the CLI: {@code [--quick] [--json] [--plot PATH]}. */
    public static void main(String[] args) throws Exception {
        SuiteArgs a = SuiteArgs.parse(args);
        System.exit(run(a.quick(), a.json(), a.plot(), System.out, System.err));
    }
}
