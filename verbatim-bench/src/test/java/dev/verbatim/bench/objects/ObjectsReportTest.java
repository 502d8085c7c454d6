package dev.verbatim.bench.objects;

import dev.verbatim.bench.harness.JitTurns;
import dev.verbatim.bench.harness.LatencyHistogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The report of a made-up run: the cases and keys of issue 15 §4, the targets, the tables, the plot. No processes. */
@Timeout(20)
class ObjectsReportTest {
    private static final int N = 100;

    /** A turn whose calls all took {@code ns}. */
    private static LatencyHistogram turn(long ns) {
        LatencyHistogram h = new LatencyHistogram();
        for (int i = 0; i < 11; i++) {
            h.record(ns);
        }
        return h;
    }

    /** The human form of {@code r}. */
    private static String tables(ObjectsBench.Run r) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        ObjectsReport.printTables(r, new PrintStream(b, true, StandardCharsets.UTF_8));
        return b.toString(StandardCharsets.UTF_8);
    }

    private static void put(Map<String, Map<String, List<LatencyHistogram>>> t, ObjectsCase c, String contender, long... ns) {
        List<LatencyHistogram> l = new ArrayList<>();
        for (long v : ns) {
            l.add(turn(v));
        }
        t.computeIfAbsent(c.key(), k -> new LinkedHashMap<>()).put(contender, l);
    }

    /**
     * Null call: rpc 4000, objects 4400 (1.1x), rmi 500,000; forward 5000, its bytes alone 4800; hop 5200 ns per element (x100 elements), null
     * calls in a row 4000 per element.
     */
    private static ObjectsBench.Run run(boolean withHop) {
        Map<String, Map<String, List<LatencyHistogram>>> t = new LinkedHashMap<>();
        put(t, ObjectsCase.SHM_CALL_NULL, "rpc", 4000, 4000, 4000);
        put(t, ObjectsCase.SHM_CALL_NULL, "objects", 4400, 4400, 4400);
        put(t, ObjectsCase.SHM_CALL_NULL, "rmi", 500_000, 500_000, 500_000);
        put(t, ObjectsCase.TCP_CALL_NULL, "objects", 20_000, 20_000, 20_000);
        put(t, ObjectsCase.FORWARD_REF, "objects", 5000, 5000, 5000);
        put(t, ObjectsCase.FORWARD_REF, "bytes", 4800, 4800, 4800);
        put(t, ObjectsCase.FORWARD_REF, "rmi", 700_000, 700_000, 700_000);
        if (withHop) {
            put(t, ObjectsCase.HOP, "objects", 5200 * N, 5200 * N, 5200 * N);
            put(t, ObjectsCase.HOP, "rmi", 200_000L * N, 200_000L * N, 200_000L * N);
            put(t, ObjectsCase.HOP, "null-run", 4000L * N, 4000L * N, 4000L * N);
        }
        put(t, ObjectsCase.list(Layout.COMPACT, Traversal.SERIAL, 2), "objects", 9000L * N, 9000L * N, 9000L * N);
        put(t, ObjectsCase.list(Layout.COMPACT, Traversal.SERIAL, 2), "rmi", 12_000L * N, 12_000L * N, 12_000L * N);
        Map<String, String> failures = new LinkedHashMap<>();
        if (!withHop) {
            failures.put("objects " + ObjectsCase.HOP.key(), "not run: a chain that comes back");
            failures.put("objects list/scattered/serial/b2", "not run: a chain that comes back");
        }
        return new ObjectsBench.Run("quick", 3, N, 4400, t, failures, 12.5, 0.5, 0.6);
    }

    @Test
    void aWalksFigureIsItsTimePerElementAndACallsItsTimePerCall() {
        ObjectsBench.Run r = run(true);
        assertEquals(5200, r.figure(ObjectsCase.HOP, "objects"), 5200 * 0.01);
        assertEquals(4400, r.figure(ObjectsCase.SHM_CALL_NULL, "objects"), 4400 * 0.01);
        assertTrue(Double.isNaN(r.figure(ObjectsCase.TCP_CALL_NULL, "rpc")), "not measured");
    }

    @Test
    void theHopIsSetAgainstNullCallsInARowAndThePrintedNullCallsP50AndMean() {
        Map<String, Map<String, List<LatencyHistogram>>> t = new LinkedHashMap<>();
        List<LatencyHistogram> nulls = new ArrayList<>();
        for (int k = 0; k < 3; k++) {
            LatencyHistogram h = new LatencyHistogram(); // p50 400 ns, mean 600: one call in ten takes 2,400
            for (int i = 0; i < 90; i++) {
                h.record(400);
            }
            for (int i = 0; i < 10; i++) {
                h.record(2400);
            }
            nulls.add(h);
        }
        t.computeIfAbsent(ObjectsCase.SHM_CALL_NULL.key(), k -> new LinkedHashMap<>()).put("objects", nulls);
        put(t, ObjectsCase.HOP, "objects", 720 * N, 720 * N, 720 * N);
        put(t, ObjectsCase.HOP, "null-run", 600 * N, 600 * N, 600 * N); // the null calls in a row: their mean, tails in
        ObjectsBench.Run r = new ObjectsBench.Run("quick", 3, N, 4400, t, Map.of(), 1, 0, 0);
        assertEquals(1.2, ObjectsReport.targets(r).get(3).measured(), 0.05, "the target: against the calls in a row");
        assertEquals(1.2, ObjectsReport.ratios(r, ObjectsCase.HOP).get("objects/null-run"), 0.05);
        assertEquals(1.2, r.hopOverNullMean(), 0.05, "against the mean");
        String text = tables(r);
        assertTrue(text.contains("objects p50: 1.80x, over its mean per call: 1.20x"), text);
        assertTrue(text.matches("(?s).*scattered b2 w0\\s+720\\s+600\n.*"), "the null calls in a row beside the walk:\n" + text);
        assertTrue(Double.isNaN(run(false).hopOverNullMean()), "no hop, no figure");
    }

    /**
     * The forward beside the same call carrying the reference's bytes as a plain byte[]: its column in the calls table,
     * the ratios printed under the targets (the call and its argument over the null call; the forward over that), and
     * the JSON ratio.
     */
    @Test
    void theForwardIsPrintedBesideTheSameCallCarryingTheReferencesBytes() {
        ObjectsBench.Run r = run(true);
        assertEquals(List.of("objects", "bytes", "rmi"), ObjectsCase.FORWARD_REF.columns());
        assertEquals(5000.0 / 4800, ObjectsReport.ratios(r, ObjectsCase.FORWARD_REF).get("objects/bytes"), 0.01);
        String text = tables(r);
        assertTrue(text.matches("(?s).*shm/forward-ref\\s+-\\s+5000\\s+700000\\s+4800\n.*"), "the bytes column:\n" + text);
        assertTrue(text.contains("(bytes) over the shm/call-null objects p50: 1.09x, the call and its argument alone;"
                + " the forward over it: 1.04x, the objects layer's work on the reference; \"<= 1.50x the null call\" leaves"
                + " it 1.38x in this run.)"), text);
        assertEquals(0, ObjectsCase.FORWARD_REF.expected("bytes", N));
    }

    /** The turns run again while the compilers were busy, and those kept busy, are in the report. */
    @Test
    void theTurnsTheCompilersDisturbedAreCounted() {
        ObjectsBench.Run base = run(true);
        ObjectsBench.Run r = new ObjectsBench.Run(base.mode(), base.rounds(), base.elements(), base.work(), base.turns(),
                base.failures(), base.seconds(), base.loadBefore(), base.loadAfter(), new JitTurns(7, 2));
        String text = tables(r);
        assertTrue(text.contains("took >= 10 ms of CPU during them (still warming up): 7; kept with the compilers still busy"
                + " after the retries: 2."), text);
        assertEquals(JitTurns.NONE, base.jit(), "a run made without the count disturbed none");
    }

    /** {@link #run}'s run (with the hop) with the shm null call's turns of these contenders at these p50s, and this work. */
    private static ObjectsBench.Run withNullCalls(Map<String, Long> p50s, long work) {
        Map<String, Map<String, List<LatencyHistogram>>> t = new LinkedHashMap<>(run(true).turns());
        Map<String, List<LatencyHistogram>> nul = new LinkedHashMap<>(t.get(ObjectsCase.SHM_CALL_NULL.key()));
        p50s.forEach((contender, p50) -> nul.put(contender, List.of(turn(p50), turn(p50), turn(p50))));
        t.put(ObjectsCase.SHM_CALL_NULL.key(), nul);
        return new ObjectsBench.Run("quick", 3, N, work, t, Map.of(), 1, 0, 0);
    }

    /** The shm floor measured beside the null calls: its column, its ratios, and what "100x RMI" asks of the call. */
    @Test
    void theFloorIsPrintedBesideTheNullCallWithWhatTheRmiTargetAsksOfIt() {
        ObjectsBench.Run r = withNullCalls(Map.of("floor", 2000L), 4400);
        assertEquals(List.of("floor", "rpc", "objects", "rmi"), ObjectsCase.SHM_CALL_NULL.columns());
        assertEquals(2.2, ObjectsReport.ratios(r, ObjectsCase.SHM_CALL_NULL).get("objects/floor"), 0.01);
        assertEquals(250, ObjectsReport.ratios(r, ObjectsCase.SHM_CALL_NULL).get("rmi/floor"), 0.5);
        String text = tables(r);
        assertTrue(text.matches("(?s).*shm/call-null\\s+2000\\s+4000\\s+4400\\s+500000\\s.*"), "the floor's column:\n" + text);
        assertTrue(text.contains("2,000 ns p50; the objects null call is 2.20x it, RMI's 250x: \">= 100x RMI\" asks the call to be"
                + " within 2.50x the floor in this run."), text);
        assertEquals(125, ObjectsReport.ratios(r, ObjectsCase.SHM_CALL_NULL).get("rmi/rpc"), 0.5);
        assertTrue(text.contains("(RMI's null call over the plain RPC null call beside it, the call an objects call stands on:"
                + " 125x; the objects layer cannot beat it: \">= 100x RMI\" is within the RPC call's reach in this run.)"), text);
        ByteArrayOutputStream j = new ByteArrayOutputStream();
        ObjectsReport.printJson(r, new PrintStream(j, true, StandardCharsets.UTF_8));
        assertTrue(j.toString(StandardCharsets.UTF_8).lines().findFirst().orElseThrow().contains("\"objects/floor\":2.200"), j.toString());
    }

    /**
     * Where RMI is under 100x the plain RPC call the objects call stands on, the report says the target is out of that
     * call's reach in the run (a bound measured beside it, DESIGN §8), and the target itself still misses.
     */
    @Test
    void anRmiTargetOutOfTheRpcCallsReachIsSaidSo() {
        ObjectsBench.Run r = withNullCalls(Map.of("rpc", 5400L, "objects", 5600L), 5600);
        assertEquals(92.6, ObjectsReport.ratios(r, ObjectsCase.SHM_CALL_NULL).get("rmi/rpc"), 0.1);
        assertEquals("MISS", ObjectsReport.targets(r).get(1).status(), "rmi/objects 89x < 100x");
        String text = tables(r);
        assertTrue(text.contains("(RMI's null call over the plain RPC null call beside it, the call an objects call stands on:"
                + " 92.6x; the objects layer cannot beat it: \">= 100x RMI\" is out of the RPC call's reach in this run.)"), text);
    }

    @Test
    void theNullRunReturnsNothingAndAWalkItsSum() {
        assertEquals(0, ObjectsCase.HOP.expected("null-run", N));
        assertEquals((long) N * (N - 1) / 2, ObjectsCase.HOP.expected("objects", N));
        assertEquals(0, ObjectsCase.SHM_CALL_NULL.expected("objects", N));
        assertEquals(List.of("objects", "rmi", "null-run"), ObjectsCase.HOP.columns());
    }

    @Test
    void theTargetsAreTheRatiosOfIssue15InOneRun() {
        var targets = ObjectsReport.targets(run(true));
        assertEquals(5, targets.size());
        assertEquals("PASS", targets.get(0).status(), "objects/rpc 1.1x <= 1.25x");
        assertEquals(1.1, targets.get(0).measured(), 0.02);
        assertEquals("PASS", targets.get(1).status(), "rmi/objects 114x >= 100x");
        assertEquals("PASS", targets.get(2).status(), "forward 5000 / null 4400 = 1.14x <= 1.5x");
        assertEquals("PASS", targets.get(3).status(), "hop 5200 / null calls in a row 4000 = 1.3x <= 1.5x");
        assertEquals(1.3, targets.get(3).measured(), 0.01);
        assertEquals("MISS", targets.get(4).status(), "rmi/objects hop 38x < 50x");
        assertEquals(38.5, targets.get(4).measured(), 0.5);
        var without = ObjectsReport.targets(run(false));
        assertEquals("n/a", without.get(3).status(), "no hop figure: neither pass nor miss");
        assertEquals("n/a", without.get(4).status());
    }

    @Test
    void jsonHasALinePerCaseThenTargetsThenFailures() {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        ObjectsReport.printJson(run(false), new PrintStream(b, true, StandardCharsets.UTF_8));
        List<String> lines = b.toString(StandardCharsets.UTF_8).lines().toList();
        int cases = ObjectsCase.all().size();
        assertEquals(4 + 36, cases, "the calls, the hop, 3 layouts x 3 walks x 4 bases");
        assertEquals(cases + 5 + 2, lines.size(), String.join("\n", lines));
        assertTrue(lines.getFirst().startsWith("{\"suite\":\"objects\",\"case\":\"shm/call-null\",\"unit\":\"ns\","
                + "\"results\":{\"rpc\":4000.000,\"objects\":4400.000,\"rmi\":500000.000},\"ratios\":{\"objects/rpc\":1.100,"
                + "\"rmi/objects\":113.636,\"rmi/rpc\":125.000}"), lines.getFirst());
        String compact = lines.stream().filter(l -> l.contains("\"list/compact/serial/b2\"")).findFirst().orElseThrow();
        assertTrue(compact.contains("\"unit\":\"ns/element\",\"results\":{\"objects\":9000.000,\"rmi\":12000.000}"), compact);
        assertTrue(compact.contains("\"work\":4400,\"elements\":100,\"mode\":\"quick\""), compact);
        assertTrue(lines.stream().anyMatch(l -> l.contains("\"case\":\"list/scattered/serial/b2/w0\"") && l.contains("\"work\":0")));
        assertTrue(lines.get(cases).contains("\"target\":\"shm/call-null p50 objects/rpc\""), lines.get(cases));
        assertTrue(lines.getLast().startsWith("{\"suite\":\"objects\",\"failed\":\"objects list/scattered/serial/b2\""),
                lines.getLast());
    }

    @Test
    void tablesShowTheListAgainstTheBasesAndOneLinePerFailureReason(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        ObjectsBench.Run r = run(false);
        ObjectsReport.printTables(r, new PrintStream(b, true, StandardCharsets.UTF_8));
        String text = b.toString(StandardCharsets.UTF_8);
        assertTrue(text.matches("(?s).*layout/walk\\s+b2\n.*"), "a column per number of bases measured:\n" + text);
        assertTrue(text.matches("(?s).*\n  compact/serial\\s+9000\n.*"), text);
        assertTrue(text.matches("(?s).*\n  compact/serial rmi\\s+12000\n.*"), text);
        assertTrue(text.contains("objects list/scattered/serial/b2/w0, objects list/scattered/serial/b2: not run"), text);
        Path png = dir.resolve("objects.png");
        ObjectsPlot.write(r, png);
        assertTrue(Files.size(png) > 1000);
    }

    @Test
    void theWorkPerElementIsTheFastestNullCallWithinBounds() {
        assertEquals(3_120, ObjectsBench.work(new double[] {4_000, 3_123, 9_000}));
        assertEquals(ObjectsBench.MAX_WORK, ObjectsBench.work(new double[] {2_000_000}), "a loaded host's call is capped");
        assertEquals(1_000, ObjectsBench.work(new double[] {300}));
        assertEquals(10_000, ObjectsBench.work(new double[0]));
    }
}
