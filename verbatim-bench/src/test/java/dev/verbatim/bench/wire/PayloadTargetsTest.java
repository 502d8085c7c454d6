package dev.verbatim.bench.wire;

import dev.verbatim.bench.harness.BatchHarness;
import dev.verbatim.bench.harness.Target;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 19's targets on the payloads are wired to the right figures: each compares Verbatim with
 * Fory with reference tracking ON, never with the noref column, and passes or misses at its bound.
 * Figures are made up here; no timing.
 */
class PayloadTargetsTest {

    private static BatchHarness.Result result(String name, double nanos) {
        return new BatchHarness.Result(name, new double[] {nanos, nanos, nanos}, 1, true, 0, 1.0);
    }

    /** A run of the payload cases in which every library takes {@code nanos.get(lib)} ns and {@code bytes.get(lib)} bytes. */
    private static WireBench.Run run(Map<String, Double> marshal, Map<String, Double> unmarshal, Map<String, Long> bytes) {
        WireBench.Figures f = new WireBench.Figures();
        for (WireCase c : WireCase.payloads()) {
            for (String lib : WireBench.LIBRARIES) {
                if (WireBench.measuresMarshal(lib)) {
                    f.result(c.name(), lib, "marshal", result(c.name() + "/marshal/" + lib, marshal.get(lib)));
                    f.size(c.name(), lib, bytes.get(lib));
                }
                f.result(c.name(), lib, "unmarshal", result(c.name() + "/unmarshal/" + lib, unmarshal.get(lib)));
            }
        }
        return f.toRun(BatchHarness.Settings.quick(), WireCase.payloads(), WireBench.LIBRARIES, 1);
    }

    private static Map<String, Target> byName(List<Target> targets) {
        return targets.stream().collect(Collectors.toMap(Target::what, Function.identity()));
    }

    private static Map<String, Double> times(double verbatim, double materialize, double fory, double foryNoref) {
        return times(verbatim, materialize, fory, foryNoref, 1, 1);
    }

    /** With the hand-written codec's figures too: {@code hand} and {@code handMaterialize} ns. */
    private static Map<String, Double> times(double verbatim, double materialize, double fory, double foryNoref,
                                             double hand, double handMaterialize) {
        return Map.of("verbatim", verbatim, "verbatim-materialize", materialize, "jos", 5000.0, "kryo", 300.0,
                "fory", fory, "kryo-noref", 250.0, "fory-noref", foryNoref, "verbatim-hand", hand,
                "verbatim-hand-materialize", handMaterialize);
    }

    private static Map<String, Long> sizes(long verbatim, long fory, long foryNoref) {
        return Map.of("verbatim", verbatim, "jos", 900L, "kryo", 80L, "fory", fory, "kryo-noref", 70L, "fory-noref", foryNoref,
                "verbatim-hand", verbatim);
    }

    @Test
    void eachPayloadHasFourTargetsAgainstForyWithTrackingOn() {
        // on the bounds exactly, and the noref column far better: every target passes
        WireBench.Run run = run(times(100, 0, 100, 1), times(100, 180, 150, 1), sizes(130, 100, 1));
        Map<String, Target> t = byName(WireReport.payloadTargets(run));
        assertEquals(12, t.size());
        for (WireCase c : WireCase.payloads()) {
            assertTrue(t.get(c.name() + "/marshal fory/verbatim").pass(), c.name());
            assertEquals(1.0, t.get(c.name() + "/marshal fory/verbatim").measured(), 1e-9);
            assertTrue(t.get(c.name() + "/unmarshal fory/verbatim").pass(), c.name());
            assertEquals(1.5, t.get(c.name() + "/unmarshal fory/verbatim").measured(), 1e-9);
            assertTrue(t.get(c.name() + "/unmarshal verbatim-materialize/fory").pass(), c.name());
            assertEquals(1.2, t.get(c.name() + "/unmarshal verbatim-materialize/fory").measured(), 1e-9);
            assertTrue(t.get(c.name() + "/size verbatim/fory").pass(), c.name());
            assertEquals(1.3, t.get(c.name() + "/size verbatim/fory").measured(), 1e-9);
        }
    }

    @Test
    void justPastEachBoundMisses() {
        WireBench.Run run = run(times(101, 0, 100, 1000), times(101, 181, 150, 1000), sizes(131, 100, 1000));
        for (Target t : WireReport.payloadTargets(run)) {
            assertFalse(t.pass(), t.what() + " " + t.measured());
            assertEquals("MISS", t.status());
        }
    }

    @Test
    void theFormatFloorIsJudgedByEachTimeTargetsNeed() {
        // fory marshals in 100 ns and unmarshals in 150: the floor's need is <= 100, <= 100 and <= 180 ns
        WireBench.Run meets = run(times(300, 0, 100, 1, 100, 0), times(400, 500, 150, 1, 100, 180), sizes(130, 100, 1));
        WireBench.Run misses = run(times(300, 0, 100, 1, 101, 0), times(400, 500, 150, 1, 101, 181), sizes(130, 100, 1));
        List<WireReport.Floor> yes = WireReport.floors(meets);
        List<WireReport.Floor> no = WireReport.floors(misses);
        assertEquals(9, yes.size());
        assertEquals(9, no.size());
        for (int i = 0; i < 9; i++) {
            assertTrue(yes.get(i).handMeets(), yes.get(i).toString());
            assertFalse(no.get(i).handMeets(), no.get(i).toString());
        }
        WireReport.Floor materialize = yes.stream().filter(f -> f.op().equals("materialize")).findFirst().orElseThrow();
        assertEquals(500, materialize.verbatim(), 1e-9); // v-materialize against the hand-written materialize
        assertEquals(320, materialize.overHand(), 1e-9);
        assertEquals(200, yes.get(0).overHand(), 1e-9); // marshal: 300 - 100
    }
}
