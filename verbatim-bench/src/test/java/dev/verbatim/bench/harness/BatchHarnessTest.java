package dev.verbatim.bench.harness;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The harness's bookkeeping (no timing assertions: only that it ran and recorded what it says). */
class BatchHarnessTest {

    @Test
    void measuresTheConfiguredNumberOfBatchesAndRunsTheWorkload() throws Exception {
        BatchHarness.Settings s = new BatchHarness.Settings("test", 1_000_000, 20_000_000, 1_000_000, 5, 3, 0.5, 0);
        long[] calls = new long[1];
        BatchHarness.Result r = new BatchHarness(s).measure("sum", (n, bh) -> {
            long acc = 0;
            for (int i = 0; i < n; i++) {
                acc += i;
            }
            calls[0] += n;
            bh.consume(acc);
        });
        assertEquals(5, r.nanosPerOp().length);
        assertTrue(r.opsPerBatch() >= 1);
        assertTrue(calls[0] >= 5L * r.opsPerBatch());
        assertTrue(r.median() > 0);
        assertTrue(r.quantile(0) <= r.median() && r.median() <= r.quantile(1));
    }

    @Test
    void quantilesInterpolate() {
        BatchHarness.Result r = new BatchHarness.Result("x", new double[] {4, 1, 3, 2}, 1, true, 0, 1.0);
        assertEquals(2.5, r.median());
        assertEquals(1, r.quantile(0));
        assertEquals(4, r.quantile(1));
        assertEquals((3.25 - 1.75) / 2.5, r.relativeSpread(), 1e-12);
    }
}
