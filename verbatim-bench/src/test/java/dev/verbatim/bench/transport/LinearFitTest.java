package dev.verbatim.bench.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

@Timeout(10)
class LinearFitTest {

    @Test
    void pointsOnALineGiveThatLine() {
        double[] x = {8, 64, 256, 1024, 4096, 16384, 65536};
        double[] y = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            y[i] = 500 + 0.25 * x[i]; // 500 ns fixed, 0.25 ns per byte
        }
        LinearFit f = LinearFit.of(x, y);
        assertEquals(0.25, f.slope(), 1e-12);
        assertEquals(500, f.intercept(), 1e-9);
        assertEquals(1, f.r2(), 1e-12);
        assertEquals(7, f.points());
        assertEquals(500 + 0.25 * 100, f.at(100), 1e-9);
    }

    @Test
    void symmetricNoiseCancels() {
        double[] x = {0, 0, 10, 10, 20, 20};
        double[] y = {1, 3, 21, 23, 41, 43}; // y = 2 + 2x, +-1
        LinearFit f = LinearFit.of(x, y);
        assertEquals(2, f.slope(), 1e-12);
        assertEquals(2, f.intercept(), 1e-12);
        assertEquals(1 - 6.0 / (6.0 + 1600), f.r2(), 1e-12); // 1 - SSres/SStot
    }

    @Test
    void needsTwoDistinctX() {
        assertThrows(IllegalArgumentException.class, () -> LinearFit.of(new double[] {1}, new double[] {1}));
        assertThrows(IllegalArgumentException.class, () -> LinearFit.of(new double[] {1, 1}, new double[] {1, 2}));
    }
}
