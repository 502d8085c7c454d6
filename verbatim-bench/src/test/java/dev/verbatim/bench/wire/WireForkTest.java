package dev.verbatim.bench.wire;

import dev.verbatim.bench.harness.BatchHarness;
import dev.verbatim.bench.harness.ChildProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The wire suite's forks, with tiny harness settings: one child JVM per library reports every case's
 * figures; a child that fails or outlasts its limit is reported by library and is gone. No timing
 * assertions; every test that starts processes has a hard timeout.
 */
class WireForkTest {
    /** A few milliseconds per workload: figures are meaningless, the bookkeeping is what is tested. */
    private static final WireBench.Method TINY = new WireBench.Method(
            new BatchHarness.Settings("tiny", 1_000_000, 10_000_000, 1_000_000, 3, 2, 0.5, 0),
            1_000_000, 10_000_000, 100_000_000);

    private final ByteArrayOutputStream progress = new ByteArrayOutputStream();
    private final PrintStream err = new PrintStream(progress, true, StandardCharsets.UTF_8);

    @AfterEach
    void noChildLeft() {
        assertEquals(0, ChildProcess.liveCount(), "a child outlived its run");
        ChildProcess.closeAll();
    }

    @Test
    @Timeout(180)
    void everyLibraryReportsEveryCase() throws Exception {
        List<WireCase> cases = WireCase.all();
        WireBench.Figures figures = WireBench.measureForked(cases, TINY, WireBench.LIBRARIES, null, err);
        for (String lib : WireBench.LIBRARIES) {
            assertEquals(List.of(), figures.missing(lib, cases), lib + "; progress:\n" + progress);
        }
        WireBench.Run run = figures.toRun(TINY.settings(), cases, WireBench.LIBRARIES, 1.0);
        for (WireCase c : cases) {
            List<String> measured = WireBench.LIBRARIES.stream().filter(lib -> WireBench.measures(lib, c)).toList();
            assertEquals(c.kind().payload() ? WireBench.LIBRARIES : WireBench.LIBRARIES.subList(0, 5), measured, c.name());
            assertEquals(measured, List.copyOf(run.unmarshal().get(c.name()).keySet()), c.name());
            List<String> marshalling = measured.stream().filter(WireBench::measuresMarshal).toList();
            assertEquals(marshalling, List.copyOf(run.marshal().get(c.name()).keySet()), c.name());
            assertEquals(marshalling, List.copyOf(run.size().get(c.name()).keySet()), c.name());
            for (var byLib : List.of(run.marshal().get(c.name()), run.unmarshal().get(c.name()))) {
                byLib.forEach((lib, r) -> {
                    assertEquals(TINY.settings().batches(), r.nanosPerOp().length, r.name());
                    assertTrue(r.median() > 0, r.name());
                    assertTrue(r.name().startsWith(c.name() + "/") && r.name().endsWith("/" + lib), r.name());
                });
            }
            run.size().get(c.name()).forEach((lib, size) -> assertTrue(size > c.n(), c.name() + " " + lib));
        }
        // the sizes the children report are the ones this JVM's codecs write
        for (WireCase c : cases) {
            for (String lib : WireBench.LIBRARIES.stream().filter(lib -> WireBench.measures(lib, c)
                    && WireBench.measuresMarshal(lib)).toList()) {
                assertEquals(WireBench.codec(lib).receive(c.root()), run.size().get(c.name()).get(lib), c.name() + " " + lib);
            }
        }
        String text = progress.toString(StandardCharsets.UTF_8);
        for (String lib : WireBench.LIBRARIES) {
            assertTrue(text.contains("  " + lib + ":"), text);
        }
        assertFalse(text.substring(text.indexOf("  kryo-noref:")).contains("list-10"), "the noref columns measure payloads only");

        // the report takes the assembled run: one JSON line per case and figure, every library in it
        ByteArrayOutputStream json = new ByteArrayOutputStream();
        WireReport.printJson(run, new PrintStream(json, true, StandardCharsets.UTF_8));
        List<String> lines = json.toString(StandardCharsets.UTF_8).lines().toList();
        for (WireCase c : cases) {
            for (String op : List.of("marshal", "unmarshal", "size")) {
                String head = "{\"suite\":\"wire\",\"case\":\"" + c.name() + "/" + op + "\"";
                String line = lines.stream().filter(l -> l.startsWith(head)).findFirst().orElse(null);
                assertNotNull(line, head);
                for (String lib : WireBench.LIBRARIES) {
                    boolean expected = WireBench.measures(lib, c) && (op.equals("unmarshal") || WireBench.measuresMarshal(lib));
                    assertEquals(expected, line.contains("\"" + lib + "\":"), lib + " in " + line);
                }
            }
        }
        // every payload has its four targets, in the JSON with a verdict
        for (WireCase c : WireCase.payloads()) {
            for (String target : List.of("/marshal fory/verbatim", "/unmarshal fory/verbatim",
                    "/unmarshal verbatim-materialize/fory", "/size verbatim/fory")) {
                String head = "{\"suite\":\"wire\",\"target\":\"" + c.name() + target + "\"";
                String line = lines.stream().filter(l -> l.startsWith(head)).findFirst().orElse(null);
                assertNotNull(line, head);
                assertTrue(line.contains("\"pass\":true") || line.contains("\"pass\":false"), line);
            }
        }
        ByteArrayOutputStream tables = new ByteArrayOutputStream();
        WireReport.printTables(run, new PrintStream(tables, true, StandardCharsets.UTF_8));
        String text2 = tables.toString(StandardCharsets.UTF_8);
        assertTrue(text2.contains("Each library in a JVM of its own"));
        assertTrue(text2.contains("Table 5b. Payloads, unmarshal (ns per message)"), text2);
        assertTrue(text2.contains("batch-100/unmarshal verbatim-materialize/fory"), text2);
    }

    @Test
    @Timeout(60)
    void aChildThatFailsIsReportedByLibrary() {
        WireBench.ForkFailure f = assertThrows(WireBench.ForkFailure.class, () -> WireBench.measureForked(
                List.of(WireCase.bytes(10)), TINY, List.of("verbatim", "no-such-library", "jos"), null, err));
        assertTrue(f.getMessage().contains("measuring no-such-library in a JVM of its own"), f.getMessage());
        assertTrue(f.getMessage().contains("unknown library 'no-such-library'"), f.getMessage());
        String text = progress.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("  verbatim:") && !text.contains("  jos:"), text); // stops at the failure
    }

    @Test
    @Timeout(60)
    void aChildThatOutlastsItsLimitIsKilledAndReported() {
        // warm-up of at least a minute per workload: the child cannot finish within 3 s on any machine
        WireBench.Method slow = new WireBench.Method(
                new BatchHarness.Settings("slow", 60_000_000_000L, 120_000_000_000L, 1_000_000, 3, 2, 0.5, 0),
                1_000_000, 10_000_000, 100_000_000);
        long t0 = System.nanoTime();
        WireBench.ForkFailure f = assertThrows(WireBench.ForkFailure.class, () -> WireBench.measureForked(
                List.of(WireCase.bytes(10)), slow, List.of("kryo"), Duration.ofSeconds(3), err));
        assertTrue(f.getMessage().contains("measuring kryo in a JVM of its own"), f.getMessage());
        assertTrue(f.getMessage().contains("did not finish within its hard limit of 3 s"), f.getMessage());
        assertTrue(System.nanoTime() - t0 < 50_000_000_000L, "the limit was not enforced");
    }

    @Test
    void theTablesCasesAndThePayloadsAreMeasuredInJvmsOfTheirOwn() {
        // in one JVM the payloads ran on the JIT profile the bytes and list cases left (batch-100 marshal 1.6x slower)
        List<List<WireCase>> verbatim = WireBench.groups(WireBench.casesOf("verbatim", WireCase.all()));
        assertEquals(2, verbatim.size(), verbatim.toString());
        assertTrue(verbatim.get(0).stream().noneMatch(c -> c.kind().payload()), verbatim.get(0).toString());
        assertEquals(WireCase.payloads(), verbatim.get(1));
        assertEquals(WireBench.casesOf("verbatim", WireCase.all()).size(), verbatim.get(0).size() + verbatim.get(1).size());
        // a library measured on the payloads only gets one JVM
        assertEquals(List.of(WireCase.payloads()), WireBench.groups(WireBench.casesOf("fory-noref", WireCase.all())));
    }

    @Test
    void childArgumentsRoundTrip() {
        List<WireCase> cases = List.of(WireCase.bytes(10), WireCase.list(100));
        List<String> args = WireChild.args("fory", cases, WireBench.Method.quick(), Duration.ofSeconds(90));
        assertEquals(List.of("measure", "fory"), args.subList(0, 2));
        Map<String, String> props = new java.util.LinkedHashMap<>();
        for (String a : args.subList(2, args.size())) {
            props.put(a.substring(0, a.indexOf('=')), a.substring(a.indexOf('=') + 1));
        }
        var session = new dev.verbatim.bench.harness.Session(props);
        assertEquals(WireBench.Method.quick(), WireChild.method(session));
        assertEquals(List.of("bytes-10", "list-100"), WireChild.cases(session.require("cases")).stream().map(WireCase::name).toList());
        assertEquals("90000", props.get("deadlineMs"));
    }

    @Test
    void childrenGetAFixedTouchedHeapUnlessThisJvmSizesItsOwn() {
        List<String> defaults = List.of("-Xms512m", "-Xmx512m", "-XX:+AlwaysPreTouch");
        List<String> plain = List.of("--enable-native-access=ALL-UNNAMED", "-Xss4m");
        assertEquals(concat(defaults, List.of("-XX:G1HeapRegionSize=4m")),
                WireBench.childHeapFlags(plain, "true", "4194304"));
        assertEquals(defaults, WireBench.childHeapFlags(plain, "false", "4194304")); // not G1: no region size
        assertEquals(defaults, WireBench.childHeapFlags(plain, null, null)); // not HotSpot
        for (String own : List.of("-Xmx8g", "-Xms2g", "-XX:MaxHeapSize=3g", "-XX:-AlwaysPreTouch")) {
            assertEquals(List.of("-XX:G1HeapRegionSize=4m"),
                    WireBench.childHeapFlags(concat(plain, List.of(own)), "true", "4194304"), own);
        }
        assertEquals(defaults, WireBench.childHeapFlags(concat(plain, List.of("-XX:G1HeapRegionSize=8m")), "true", "8388608"));
        assertEquals(concat(defaults, List.of("-XX:G1HeapRegionSize=1572864")), WireBench.childHeapFlags(plain, "true", "1572864"));
    }

    private static List<String> concat(List<String> a, List<String> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
    }

    @Test
    void resultLinesRoundTripExactly() {
        BatchHarness.Result r = new BatchHarness.Result("list-10/marshal/kryo", new double[] {1.0 / 3, 12345.678901234, 7e-3},
                4711, false, 123_456_789L, 0.987654321);
        WireBench.Figures figures = new WireBench.Figures();
        String line = WireChild.resultLine("list-10", "marshal", r);
        WireChild.accept(line, "kryo", figures, err);
        WireChild.accept("SIZE case=list-10 bytes=23", "kryo", figures, err);
        WireChild.accept("RESULT case=list-10 op=unmarshal ops=1 stable=true warmupNs=1 cpu=NaN perOp=2.5", "kryo", figures, err);
        WireBench.Run run = figures.toRun(BatchHarness.Settings.quick(), List.of(WireCase.list(10)), List.of("kryo"), 0);
        BatchHarness.Result back = run.marshal().get("list-10").get("kryo");
        assertEquals(r.name(), back.name());
        assertTrue(java.util.Arrays.equals(r.nanosPerOp(), back.nanosPerOp()));
        assertEquals(r.opsPerBatch(), back.opsPerBatch());
        assertFalse(back.stable());
        assertEquals(r.warmupNanos(), back.warmupNanos());
        assertEquals(r.cpuShare(), back.cpuShare());
        assertTrue(Double.isNaN(run.unmarshal().get("list-10").get("kryo").cpuShare()));
        assertEquals(23L, run.size().get("list-10").get("kryo"));
        assertThrows(IllegalArgumentException.class, () -> WireChild.accept("HELLO x=1", "kryo", figures, err));
    }

    @Test
    @Timeout(120)
    void theInProcessEscapeHatchMeasuresToo() throws Exception {
        List<WireCase> cases = List.of(WireCase.bytes(10), WireCase.list(10));
        WireBench.Figures figures = WireBench.measureInProcess(cases, TINY, err);
        for (String lib : WireBench.LIBRARIES) {
            assertEquals(List.of(), figures.missing(lib, cases), lib);
        }
    }
}
