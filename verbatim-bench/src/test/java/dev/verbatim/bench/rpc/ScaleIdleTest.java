package dev.verbatim.bench.rpc;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ScaleIdleTest {
    @Test
    void eachSideOfTheScaleCaseIsItsLowestWindow() {
        // one window a side made the ratio a draw of the host's state (the same code gave 1.07-2.06x run to run)
        assertEquals(10_325.0, ScaleIdle.lowest(new double[] {17_746, 10_325, 27_761}));
        assertTrue(Double.isNaN(ScaleIdle.lowest(new double[0])));
        assertTrue(ScaleIdle.WINDOWS >= 3 && ScaleIdle.QUICK_WINDOWS >= 2, "several windows a side");
    }

    @Test
    void theCpuPerCallIsTheDifferenceOverTheCalls() {
        assertEquals(250.0, ScaleIdle.cpuMicrosPerCall(1_000_000, 2_001_000_000, 8_000), 1e-9);
    }

    @Test
    void anUnknownProcessCpuTimeGivesNoFigureNotANegativeOne() {
        assertTrue(Double.isNaN(ScaleIdle.cpuMicrosPerCall(-1, 5_000_000, 100)));
        assertTrue(Double.isNaN(ScaleIdle.cpuMicrosPerCall(5_000_000, -1, 100)));
        ScaleIdle.Result r = new ScaleIdle.Result(10, true, 1000, 1100, 10, 10, 50, 60, 300, 290,
                ScaleIdle.cpuMicrosPerCall(-1, -1, 100), null);
        ByteArrayOutputStream table = new ByteArrayOutputStream();
        ScaleIdle.printTable(r, new PrintStream(table, true, StandardCharsets.UTF_8));
        String text = table.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("node CPU per load call: unknown"), text);
        ByteArrayOutputStream json = new ByteArrayOutputStream();
        ScaleIdle.printJson(r, new PrintStream(json, true, StandardCharsets.UTF_8));
        String line = json.toString(StandardCharsets.UTF_8).lines().findFirst().orElseThrow();
        assertTrue(line.contains("\"" + ScaleIdle.CPU + "\":null"), line);
        assertFalse(line.contains("-0.0"), line);
    }
}
