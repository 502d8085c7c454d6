package dev.verbatim.bench.rpc;

import dev.verbatim.bench.harness.JitTurns;
import dev.verbatim.bench.harness.LatencyHistogram;
import dev.verbatim.bench.harness.Medium;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The report of a made-up run: the JSON cases and keys of issue #4, the targets, the tables, the plot. No processes. */
@Timeout(20)
class RpcReportTest {

    private static RpcBench.Result result(String name, Medium m, Set<Medium> shown, Map<RpcCase, Long> p50) {
        return result(name, m, shown, Map.of(), p50);
    }

    /** {@code names}: its name in the tables of other media (the plaintext tcp verbatim is verbatim-plain in tls's). */
    private static RpcBench.Result result(String name, Medium m, Set<Medium> shown, Map<Medium, String> names,
                                          Map<RpcCase, Long> p50) {
        return result(name, m, shown, names, p50, Map.of());
    }

    /** {@code rates}: per throughput case, its turns' calls per second. */
    private static RpcBench.Result result(String name, Medium m, Set<Medium> shown, Map<Medium, String> names,
                                          Map<RpcCase, Long> p50, Map<RpcCase, List<Double>> rates) {
        Map<RpcCase, List<LatencyHistogram>> byCase = new EnumMap<>(RpcCase.class);
        p50.forEach((c, v) -> {
            LatencyHistogram h = new LatencyHistogram();
            for (int i = 0; i < 101; i++) {
                h.record(v); // every call the same: p50 = p99 = v
            }
            byCase.put(c, List.of(h)); // one turn
        });
        return new RpcBench.Result(m.key() + "/" + name, name, m, shown, false, byCase, Map.of(), null, names, rates);
    }

    /** One turn per throughput case: C = 1, 16, 256 calls per second. */
    private static Map<RpcCase, List<Double>> rates(double c1, double c16, double c256) {
        return Map.of(RpcCase.THROUGHPUT_1, List.of(c1), RpcCase.THROUGHPUT_16, List.of(c16), RpcCase.THROUGHPUT_256, List.of(c256));
    }

    private static RpcBench.Run run(boolean withVerbatim) {
        List<RpcBench.Result> rs = new ArrayList<>();
        Set<Medium> both = EnumSet.of(Medium.SHM, Medium.TCP);
        rs.add(result("floor", Medium.SHM, Set.of(Medium.SHM), Map.of(RpcCase.NULL, 400L, RpcCase.INTS4, 400L,
                RpcCase.REMOTE_ARG, 400L, RpcCase.BYTES_8192, 800L, RpcCase.LIST_128, 500L)));
        rs.add(result("hand", Medium.SHM, Set.of(Medium.SHM), Map.of(RpcCase.LIST_128, 1_100L)));
        rs.add(result("wire", Medium.SHM, Set.of(Medium.SHM), Map.of(RpcCase.LIST_128, 1_500L)));
        // issue 18 §3: the transport streaming the bulk cases' bytes, shown as the shm floor of those cases
        rs.add(result("stream-floor", Medium.SHM, Set.of(Medium.SHM), Map.of(Medium.SHM, "floor"),
                Map.of(RpcCase.BYTES_1MIB, 1_000_000L, RpcCase.BYTES_64MIB, 40_000_000L)));
        if (withVerbatim) {
            rs.add(result("verbatim", Medium.SHM, Set.of(Medium.SHM), Map.of(), Map.of(RpcCase.NULL, 600L, RpcCase.INTS4, 640L,
                    RpcCase.REMOTE_ARG, 700L, RpcCase.BYTES_8192, 1000L, RpcCase.LIST_128, 2000L,
                    RpcCase.BYTES_1MIB, 500_000L, RpcCase.BYTES_64MIB, 50_000_000L),
                    rates(500_000, 900_000, 1_000_000)));
            rs.add(result("jos", Medium.SHM, Set.of(Medium.SHM), Map.of(RpcCase.LIST_128, 200_000L)));
            rs.add(result("fory", Medium.SHM, Set.of(Medium.SHM), Map.of(RpcCase.LIST_128, 8_000L)));
            rs.add(result("kryo", Medium.SHM, Set.of(Medium.SHM), Map.of(RpcCase.LIST_128, 5_000L)));
            rs.add(result("verbatim-threads", Medium.TCP, Set.of(Medium.TCP), Map.of(), Map.of(), rates(30_000, 150_000, 200_000)));
            rs.add(result("verbatim", Medium.TCP, EnumSet.of(Medium.TCP, Medium.TLS), Map.of(Medium.TLS, "verbatim-plain"),
                    Map.of(RpcCase.NULL, 15_000L, RpcCase.BYTES_8192, 20_000L), rates(40_000, 100_000, 90_000)));
            rs.add(result("verbatim", Medium.TLS, Set.of(Medium.TLS), Map.of(RpcCase.NULL, 18_000L, RpcCase.BYTES_8192, 40_000L)));
            rs.add(result("engine", Medium.TLS, Set.of(Medium.TLS), Map.of(RpcCase.NULL, 3_000L)));
            rs.add(result("grpc", Medium.TLS, Set.of(Medium.TLS), Map.of(RpcCase.NULL, 90_000L, RpcCase.BYTES_8192, 120_000L)));
        }
        rs.add(result("aeron", Medium.SHM, Set.of(Medium.SHM), Map.of(RpcCase.NULL, 500L, RpcCase.INTS4, 500L)));
        rs.add(result("floor", Medium.TCP, Set.of(Medium.TCP), Map.of(RpcCase.NULL, 20_000L)));
        rs.add(result("rmi", Medium.TCP, both, Map.of(), Map.of(RpcCase.NULL, 30_000L, RpcCase.LIST_128, 100_000L,
                RpcCase.BYTES_8192, 40_000L), rates(20_000, 40_000, 45_000)));
        rs.add(result("grpc", Medium.TCP, both, Map.of(), Map.of(RpcCase.NULL, 80_000L, RpcCase.BYTES_8192, 90_000L,
                RpcCase.BYTES_1MIB, 10_000_000L, RpcCase.BYTES_64MIB, 800_000_000L),
                rates(10_000, 60_000, 50_000)));
        return new RpcBench.Run("quick", 1, 20, 50, rs, 1.0, 0.1, 0.1);
    }

    private static List<String> json(RpcBench.Run run) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        RpcReport.printJson(run, new PrintStream(b, true, StandardCharsets.UTF_8));
        return b.toString(StandardCharsets.UTF_8).lines().toList();
    }

    @Test
    void jsonHasTheCasesAndKeysOfTheIssue() {
        List<String> lines = json(run(true));
        List<String> cases = lines.stream().filter(l -> l.contains("\"case\":")).toList();
        assertEquals(17, cases.size(), lines.toString());
        String[] names = {"shm/null", "shm/ints4", "shm/remote-arg", "tcp/null", "shm/null/p99", "shm/bytes-8192",
            "shm/bytes-1MiB", "shm/bytes-64MiB", "shm/list-128", "tls/null", "tls/bytes-8192"};
        for (int i = 0; i < names.length; i++) {
            assertTrue(cases.get(i).contains("\"case\":\"" + names[i] + "\""), cases.get(i));
        }
        assertTrue(cases.get(0).contains("\"results\":{\"floor\":400.000,\"verbatim\":600.000,\"aeron\":500.000,"
                + "\"rmi\":30000.000,\"grpc\":80000.000}"), cases.get(0));
        assertTrue(cases.get(3).contains("\"results\":{\"verbatim\":15000.000,\"floor\":20000.000,\"rmi\":30000.000,"
                + "\"grpc\":80000.000}"), cases.get(3));
        // MB/s of 8192 argument bytes at the p50 call; only floor and verbatim, as the issue lists
        assertTrue(cases.get(5).contains("\"unit\":\"MB/s\",\"results\":{\"floor\":10240.000,\"verbatim\":8192.000}"),
                cases.get(5));
        // issue 18 §3: MB/s of the bulk arguments, the stream floor as floor, gRPC beside
        assertTrue(cases.get(6).contains("\"unit\":\"MB/s\",\"results\":{\"floor\":1048.576,\"verbatim\":2097.152,"
                + "\"grpc\":104.858}"), cases.get(6));
        assertTrue(cases.get(7).contains("\"results\":{\"floor\":1677.722,\"verbatim\":1342.177,\"grpc\":83.886}"),
                cases.get(7));
        assertTrue(cases.get(8).contains("\"results\":{\"floor\":500.000,\"hand\":1100.000,\"wire\":1500.000,\"verbatim\":2000.000,\"jos\":200000.000,"
                + "\"fory\":8000.000,\"kryo\":5000.000}"), cases.get(8));
        // issue 17: the TLS call beside the plaintext tcp one (measured in the same rounds) and gRPC with TLS
        assertTrue(cases.get(9).contains("\"unit\":\"ns\",\"results\":{\"verbatim-plain\":15000.000,\"verbatim\":18000.000,"
                + "\"engine\":3000.000,\"grpc\":90000.000}"), cases.get(9));
        assertTrue(cases.get(10).contains("\"unit\":\"MB/s\",\"results\":{\"verbatim-plain\":409.600,\"verbatim\":204.800}"),
                cases.get(10));
        // issue 18: calls per second with C callers, verbatim beside gRPC and RMI (shown in both media)
        String[] throughput = {"shm/throughput-1", "shm/throughput-16", "shm/throughput-256", "tcp/throughput-1",
            "tcp/throughput-16", "tcp/throughput-256"};
        for (int i = 0; i < throughput.length; i++) {
            assertTrue(cases.get(11 + i).contains("\"case\":\"" + throughput[i] + "\",\"unit\":\"calls/s\""), cases.get(11 + i));
        }
        assertTrue(cases.get(11).contains("\"results\":{\"verbatim\":500000.000,\"rmi\":20000.000,\"grpc\":10000.000}"),
                cases.get(11));
        assertTrue(cases.get(15).contains("\"results\":{\"verbatim-threads\":150000.000,\"verbatim\":100000.000,"
                + "\"rmi\":40000.000,\"grpc\":60000.000}"), cases.get(15));
        List<String> targets = lines.stream().filter(l -> l.contains("\"target\":")).toList();
        assertEquals(17, targets.size());
        assertTrue(targets.get(0).contains("\"measured\":1.500") && targets.get(0).contains("\"pass\":true"), targets.get(0));
        assertTrue(targets.get(1).contains("\"measured\":50.000") && targets.get(1).contains("\"pass\":false"), targets.get(1));
        assertTrue(targets.get(2).contains("\"measured\":0.750") && targets.get(2).contains("\"pass\":true"), targets.get(2));
        assertTrue(targets.get(3).contains("\"measured\":5.333") && targets.get(3).contains("\"pass\":true"), targets.get(3));
        assertTrue(targets.get(4).contains("\"measured\":0.800") && targets.get(4).contains("\"pass\":true"), targets.get(4));
        assertTrue(targets.get(5).contains("\"measured\":100.000") && targets.get(5).contains("\"pass\":true"), targets.get(5));
        assertTarget(targets.get(6), "tls/null p50 verbatim/verbatim-plain", "1.200", "<= 1.30x", true);
        assertTarget(targets.get(7), "tls/null p50 grpc/verbatim", "5.000", ">= 2.00x", true);
        // bandwidth with TLS over plaintext's: 8192 B / 40 us against 8192 B / 20 us
        assertTarget(targets.get(8), "tls/bytes-8192 MB/s verbatim/verbatim-plain", "0.500", ">= 0.60x", false);
        // issue 18: the list against Fory and Kryo and its floor; calls per second against gRPC's at every C
        assertTarget(targets.get(9), "shm/list-128 p50 fory/verbatim", "4.000", ">= 2.00x", true);
        assertTarget(targets.get(10), "shm/list-128 p50 kryo/verbatim", "2.500", ">= 2.00x", true);
        assertTarget(targets.get(11), "shm/list-128 p50 verbatim/floor", "4.000", "<= 4.00x", true);
        // issue 18 §3: bandwidth over the stream floor's (p50 time ratio floor/verbatim)
        assertTarget(targets.get(12), "shm/bytes-1MiB MB/s verbatim/floor", "2.000", ">= 0.75x", true);
        assertTarget(targets.get(13), "shm/bytes-64MiB MB/s verbatim/floor", "0.800", ">= 0.75x", true);
        assertTarget(targets.get(14), "tcp/throughput-1 calls/s verbatim/grpc (both C async calls in flight)", "4.000", ">= 2.00x", true);
        assertTarget(targets.get(15), "tcp/throughput-16 calls/s verbatim/grpc (both C async calls in flight)", "1.667", ">= 2.00x", false);
        assertTarget(targets.get(16), "tcp/throughput-256 calls/s verbatim/grpc (both C async calls in flight)", "1.800", ">= 2.00x", false);
    }

    @Test
    void theThroughputTableHasARowPerMediumAndCallersAndNoLatencyRows() {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        RpcReport.printTables(run(true), new PrintStream(b, true, StandardCharsets.UTF_8));
        String text = b.toString(StandardCharsets.UTF_8);
        String table = text.substring(text.indexOf("Table 8. throughput"), text.indexOf("Targets"));
        List<String> rows = table.lines().skip(1).filter(l -> !l.isBlank()).toList();
        assertEquals(7, rows.size(), table); // header, shm and tcp at C = 1, 16, 256
        assertTrue(rows.get(0).matches("\\s*medium, callers\\s+verbatim\\s+rmi\\s+grpc\\s+verbatim-threads\\s*"), rows.get(0));
        assertTrue(rows.get(1).matches("\\s*shm C=1\\s+500000\\s+20000\\s+10000\\s+-\\s*"), rows.get(1));
        assertTrue(rows.get(6).matches("\\s*tcp C=256\\s+90000\\s+45000\\s+50000\\s+200000\\s*"), rows.get(6));
        // the latency tables have no throughput rows
        String shm = text.substring(text.indexOf("Table 1. shm"), text.indexOf("Table 2. shm"));
        assertTrue(!shm.contains("throughput"), shm);
        assertTrue(text.contains("MISS  tcp/throughput-16 calls/s verbatim/grpc"), text);
    }

    private static void assertTarget(String line, String what, String measured, String need, boolean pass) {
        assertTrue(line.contains("\"target\":\"" + what + "\",\"measured\":" + measured + ",\"need\":\"" + need
                + "\",\"pass\":" + pass), line);
    }

    @Test
    void theTlsTablesShowTheTlsCasesBesideThePlaintextTcpVerbatim() {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        RpcReport.printTables(run(true), new PrintStream(b, true, StandardCharsets.UTF_8));
        String text = b.toString(StandardCharsets.UTF_8);
        String table = text.substring(text.indexOf("Table 6. tls"), text.indexOf("Table 7. tls"));
        List<String> rows = table.lines().skip(1).filter(l -> !l.isBlank()).toList();
        assertEquals(3, rows.size(), table); // header, null, bytes-8192: the cases a tls contender measured
        assertTrue(rows.get(0).matches("\\s*case\\s+verbatim-plain\\s+verbatim\\s+engine\\s+grpc\\s*"), rows.get(0));
        assertTrue(rows.get(1).matches("\\s*null\\s+15000\\s+18000\\s+3000\\s+90000\\s*"), rows.get(1));
        assertTrue(rows.get(2).matches("\\s*bytes-8192\\s+20000\\s+40000\\s+-\\s+120000\\s*"), rows.get(2));
        // what the JDK's engine alone costs bounds the TLS/plaintext target: (15000 + 3000) / 15000
        assertTrue(text.contains("the JDK's SSLEngine alone (tls/engine: the null call's 4 record operations, warm, one"
                + " thread) is 3000 ns, 0.20x verbatim-plain's 15000 ns: no TLS call on that engine can be under 1.20x"
                + " plaintext in this run"), text);
        assertTrue(text.contains("MISS  tls/bytes-8192 MB/s verbatim/verbatim-plain"), text);
        // gRPC without TLS stays out of the tls tables, gRPC with TLS out of the tcp ones
        String tcp = text.substring(text.indexOf("Table 3. tcp"), text.indexOf("Table 4. tcp"));
        assertTrue(tcp.lines().filter(l -> l.trim().startsWith("null")).findFirst().orElseThrow()
                .matches("\\s*null\\s+15000\\s+20000\\s+30000\\s+80000.*"), tcp);
    }

    /** The turns run again while the contenders' compilers were busy, and those kept busy, are in the report. */
    @Test
    void theTurnsTheCompilersDisturbedAreCounted() {
        RpcBench.Run base = run(true);
        RpcBench.Run r = new RpcBench.Run(base.mode(), base.rounds(), base.warmMillis(), base.measureMillis(), base.results(),
                base.seconds(), base.loadBefore(), base.loadAfter(), new JitTurns(5, 1));
        String text = tables(r);
        assertTrue(text.contains("Turns run again because the contenders' JIT compilers took >= 10 ms of CPU during them"
                + " (still warming up): 5; kept with the compilers still busy after the retries: 1."), text);
        assertEquals(JitTurns.NONE, base.jit(), "a run made without the count disturbed none");
        assertTrue(tables(base).contains("(still warming up): 0; kept with the compilers still busy after the retries: 0."));
    }

    @Test
    void theTablesSayWhatBoundsTheRmiTarget() {
        String text = tables(run(true));
        assertTrue(text.contains("rmi/floor (shm null) is 75.0x in this run: 100x faster than RMI needs a null call"
                + " within 0.75x the floor (300 ns)"), text);
        assertTrue(text.contains("jos/floor (shm list-128) is 400.0x in this run: the floor moves the "
                + String.format(java.util.Locale.ROOT, "%,d", RpcCase.listCallBytes()) + " bytes of the list call with no"
                + " marshalling, validation or walk; 50x faster than Java serialization needs the call within 8.00x the"
                + " floor (4000 ns)"), text);
    }

    @Test
    void theTablesSayWhatTheListFloorTargetLeavesBeyondTheHandWrittenList() {
        String text = tables(run(true));
        // 4 x 500 - 1,100 (hand) - (600 - 400) (the null call over its floor) = 700 ns, 5.47 a node of 128;
        // verbatim 2,000 - 1,100 - 200 = 700, of which the wire format over the floor 1,500 - 1,100 = 400
        assertTrue(text.contains("hand/floor (shm list-128) is 2.20x in this run: the list written and walked by hand"
                + " over the floor's transport (no types, sharing, whole-message validation or call) takes 1100 ns, and a"
                + " Verbatim call's own cost over its floor is 200 ns (shm null); 4x the floor (2000 ns) leaves 700 ns"
                + " (5.47 ns a node) for all Verbatim does beyond the hand-written code; it spends 700 ns (5.47 ns a node): the"
                + " wire format alone over the floor's transport (written, validated, walked through views; no call) 400 ns"
                + " of it (3.13 a node), the RPC layer around the list the other 300"),
                text);
        assertFalse(tables(run(false)).contains("hand/floor"), "no Verbatim, no budget");
    }

    private static String tables(RpcBench.Run run) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        RpcReport.printTables(run, new PrintStream(b, true, StandardCharsets.UTF_8));
        return b.toString(StandardCharsets.UTF_8);
    }

    @Test
    void theListFloorMovesTheBytesOfVerbatimsListCall() {
        // the CALL header (32), the value header (8), the wire message of 128 nodes padded to 8
        long wire = new dev.verbatim.wire.WireWriter().sizeOf(RpcCase.list());
        assertEquals(32 + 8 + ((wire + 7) & ~7L), RpcCase.LIST_128.floorBytes());
        assertEquals(RpcCase.listCallBytes(), RpcCase.LIST_128.floorBytes());
        assertTrue(wire >= 16L * RpcCase.LIST, "16 bytes a node at least: " + wire);
        assertEquals(8, RpcCase.NULL.floorBytes());
    }

    @Test
    void withoutVerbatimTheTargetsAreNotApplicable() {
        List<String> targets = json(run(false)).stream().filter(l -> l.contains("\"target\":")).toList();
        assertEquals(17, targets.size());
        targets.forEach(t -> assertTrue(t.contains("\"measured\":null") && t.contains("\"pass\":null"), t));
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        RpcReport.printTables(run(false), new PrintStream(b, true, StandardCharsets.UTF_8));
        String text = b.toString(StandardCharsets.UTF_8);
        assertEquals(17, text.lines().filter(l -> l.contains("n/a (contender missing)")).count(), text);
        assertTrue(text.contains("Table 1. shm"), text);
    }

    @Test
    void thePlotIsAPng(@TempDir Path dir) throws Exception {
        Path png = dir.resolve("rpc.png");
        RpcPlot.write(run(true), png);
        byte[] head = Files.readAllBytes(png);
        assertTrue(head.length > 1000 && head[1] == 'P' && head[2] == 'N' && head[3] == 'G');
    }

    @Test
    void theTlsPanelDrawsTheTlsCasesWithThePlaintextTcpCallBesideItAsVerbatimPlain() {
        assertEquals(List.of(Medium.SHM, Medium.TCP, Medium.TLS), RpcPlot.PANELS);
        List<RpcPlot.Group> tls = RpcPlot.groups(run(true), Medium.TLS);
        assertEquals(List.of(
                new RpcPlot.Group(RpcCase.NULL, List.of(new RpcPlot.Bar("verbatim-plain", 15_000), new RpcPlot.Bar("verbatim", 18_000),
                        new RpcPlot.Bar("engine", 3_000), new RpcPlot.Bar("grpc", 90_000))),
                new RpcPlot.Group(RpcCase.BYTES_8192, List.of(new RpcPlot.Bar("verbatim-plain", 20_000), new RpcPlot.Bar("verbatim", 40_000),
                        new RpcPlot.Bar("grpc", 120_000)))), tls);
        List<String> names = RpcPlot.names(run(true));
        assertTrue(names.contains("verbatim-plain") && names.indexOf("verbatim-plain") != names.indexOf("verbatim"),
                "the plaintext call has a colour and a legend entry of its own: " + names);
        // the tcp panel keeps the plaintext one under its own name, and no tls result
        List<RpcPlot.Group> tcp = RpcPlot.groups(run(true), Medium.TCP);
        assertEquals(List.of("verbatim", "floor", "rmi", "grpc"), tcp.getFirst().bars().stream().map(RpcPlot.Bar::name).toList());
        assertTrue(tcp.getFirst().bars().stream().noneMatch(b -> b.p50() == 18_000), tcp.toString());
    }
}
