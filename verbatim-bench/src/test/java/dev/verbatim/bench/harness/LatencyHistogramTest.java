package dev.verbatim.bench.harness;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(10)
class LatencyHistogramTest {

    @Test
    void smallValuesAreExact() {
        LatencyHistogram h = new LatencyHistogram();
        for (int v = 1; v <= 100; v++) {
            h.record(v);
        }
        assertEquals(100, h.count());
        assertEquals(50, h.quantile(0.5));
        assertEquals(99, h.quantile(0.99));
        assertEquals(100, h.quantile(0.999));
        assertEquals(1, h.quantile(0));
        assertEquals(100, h.quantile(1));
        assertEquals(50.5, h.mean(), 1e-12);
    }

    @Test
    void percentilesOfAUniformRangeAreWithinTheResolution() {
        LatencyHistogram h = new LatencyHistogram();
        for (int v = 1; v <= 100_000; v++) {
            h.record(v * 10L); // 10 ns .. 1 ms
        }
        assertEquals(500_000, h.quantile(0.5), 500_000 / 200.0);
        assertEquals(990_000, h.quantile(0.99), 990_000 / 200.0);
        assertEquals(999_000, h.quantile(0.999), 999_000 / 200.0);
        assertEquals(500_005, h.mean(), 1e-6);
        assertEquals(10, h.min());
        assertEquals(1_000_000, h.max());
        assertEquals(1_000_000, h.quantile(1)); // clamped to the exact maximum
    }

    @Test
    void aSkewedDistributionHasTheRightTail() {
        LatencyHistogram h = new LatencyHistogram();
        for (int i = 0; i < 9_990; i++) {
            h.record(500);
        }
        for (int i = 0; i < 10; i++) {
            h.record(1_000_000);
        }
        assertEquals(500, h.quantile(0.5), 500 / 200.0);
        assertEquals(500, h.quantile(0.99), 500 / 200.0);
        assertEquals(500, h.quantile(0.999), 500 / 200.0); // rank 9990 is still 500
        assertEquals(1_000_000, h.quantile(0.9991), 1_000_000 / 200.0);
    }

    @Test
    void everyValueLiesInItsBucket() {
        Random r = new Random(7);
        for (int i = 0; i < 100_000; i++) {
            long v = r.nextLong(1L << r.nextInt(41));
            int b = LatencyHistogram.index(v);
            assertTrue(LatencyHistogram.lowest(b) <= v && v <= LatencyHistogram.highest(b), "value " + v + " bucket " + b);
            long width = LatencyHistogram.highest(b) - LatencyHistogram.lowest(b) + 1;
            assertTrue(width == 1 || width <= LatencyHistogram.lowest(b) / LatencyHistogram.SUB_BUCKETS, "width " + width);
        }
    }

    @Test
    void encodeDecodeKeepsEverything() {
        LatencyHistogram h = new LatencyHistogram();
        Random r = new Random(3);
        for (int i = 0; i < 10_000; i++) {
            h.record(200 + r.nextInt(100_000));
        }
        LatencyHistogram d = LatencyHistogram.decode(h.encode());
        assertEquals(h.count(), d.count());
        assertEquals(h.min(), d.min());
        assertEquals(h.max(), d.max());
        assertEquals(h.mean(), d.mean(), 1e-6);
        for (double q : new double[] {0, 0.5, 0.9, 0.99, 0.999, 1}) {
            assertEquals(h.quantile(q), d.quantile(q));
        }
        assertEquals(0, LatencyHistogram.decode(new LatencyHistogram().encode()).count());
    }
}
