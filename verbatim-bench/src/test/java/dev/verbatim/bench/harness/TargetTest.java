package dev.verbatim.bench.harness;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A target's verdict (PASS, MISS, n/a), its JSON line and its line in a report. */
class TargetTest {

    @Test
    void atMostPassesAtItsBoundAndMissesAbove() {
        assertEquals("PASS", Target.atMost("t", 1.30, 1.30, "<= 1.30x").status());
        assertEquals("MISS", Target.atMost("t", 1.3001, 1.30, "<= 1.30x").status());
    }

    @Test
    void belowMissesAtItsBound() {
        assertEquals("MISS", Target.below("t", 1.0, 1.0, "< 1.00x").status());
        assertEquals("PASS", Target.below("t", 0.99, 1.0, "< 1.00x").status());
    }

    @Test
    void atLeastPassesAtItsBoundAndMissesBelow() {
        assertEquals("PASS", Target.atLeast("t", 50, 50, ">= 50x").status());
        assertEquals("MISS", Target.atLeast("t", 49.9, 50, ">= 50x").status());
    }

    @Test
    void aTargetWithoutItsFigureNeitherPassesNorMisses() {
        Target t = Target.atLeast("t", Target.orMissing(java.util.Optional.empty()), 0, ">= 0x");
        assertTrue(t.missing());
        assertFalse(t.pass());
        assertEquals("n/a", t.status());
        assertThrows(IllegalArgumentException.class, () -> new Target("t", Double.NaN, ">= 0x", true));
    }

    @Test
    void itsJsonLineSaysMeasuredNeedAndPass() {
        assertEquals("{\"suite\":\"rpc\",\"target\":\"shm/null p50 verbatim/floor\",\"measured\":1.840,\"need\":\"<= 2.00x\","
                + "\"pass\":true}", Target.atMost("shm/null p50 verbatim/floor", 1.84, 2.0, "<= 2.00x").jsonLine("rpc"));
        assertEquals("{\"suite\":\"rpc\",\"target\":\"x\",\"measured\":112.500,\"need\":\">= 50x\",\"pass\":false}",
                Target.atLeast("x", 112.5, 150, ">= 50x").jsonLine("rpc"));
        assertEquals("{\"suite\":\"file\",\"target\":\"x\",\"measured\":null,\"need\":\"<= 1.30x\",\"pass\":null}",
                Target.atMost("x", Double.NaN, 1.3, "<= 1.30x").jsonLine("file"));
    }

    @Test
    void theReportPrintsOneLinePerTargetAndSaysWhatIsMissing() {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(b, true, StandardCharsets.UTF_8);
        Target.print(out, List.of(Target.atMost("a", 1.234, 1.3, "<= 1.30x"), Target.atLeast("b", Double.NaN, 2, ">= 2.00x")),
                6, FloorTable::ratio, Target.Missing.CONTENDER);
        Target.print(out, List.of(Target.atMost("c", Double.NaN, 1.3, "<= 1.30x")), 4, ReportText::ratio,
                Target.Missing.FIGURE);
        assertEquals(String.join("\n",
                "Targets (evaluated on this run)",
                "  PASS  a         1.23x  (need <= 1.30x)",
                "  n/a   b             -  (need >= 2.00x)  n/a (contender missing)",
                "Targets (evaluated on this run)",
                "  N/A   c     missing  (need <= 1.30x)",
                ""), b.toString(StandardCharsets.UTF_8).replace(System.lineSeparator(), "\n"));
    }
}
