package dev.verbatim.bench.rpc;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ScaleIdleTest {
    @Test
    void eachSideOfTheScaleCaseIsItsLowestWindow() {
        // one window a side made the ratio a draw of the host's state (the same code gave 1.07-2.06x run to run)
        assertEquals(10_325.0, ScaleIdle.lowest(new double[] {17_746, 10_325, 27_761}));
        assertTrue(Double.isNaN(ScaleIdle.lowest(new double[0])));
        assertTrue(ScaleIdle.WINDOWS >= 3 && ScaleIdle.QUICK_WINDOWS >= 2, "several windows a side");
    }
}
