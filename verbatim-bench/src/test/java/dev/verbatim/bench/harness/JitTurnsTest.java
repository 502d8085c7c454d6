package dev.verbatim.bench.harness;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JitTurnsTest {
    private static final long MS = 1_000_000;

    @Test
    void aTurnTheCompilersLeftAloneIsKeptAndNotCounted() {
        JitTurns.Count c = new JitTurns.Count();
        assertFalse(c.again(100 * MS, 109 * MS, 0, 3), "9 ms of compiling: warm");
        assertFalse(c.again(-1, -1, 0, 3), "no /proc: nothing to wait for");
        assertEquals(JitTurns.NONE, c.turns());
    }

    @Test
    void aTurnTheCompilersRanInIsRunAgainUntilTheRetriesAreSpentThenKeptAsBusy() {
        JitTurns.Count c = new JitTurns.Count();
        assertTrue(c.again(0, 10 * MS, 0, 3), "10 ms of compiling: still warming up");
        assertTrue(c.again(0, 50 * MS, 1, 3));
        assertTrue(c.again(0, 50 * MS, 2, 3));
        assertFalse(c.again(0, 50 * MS, 3, 3), "the retries spent: kept");
        assertFalse(c.again(0, 1 * MS, 0, 3), "a quiet turn after it");
        assertEquals(new JitTurns(3, 1), c.turns());
    }

    @Test
    void theLineSaysWhoseCompilersAndBothCounts() {
        assertEquals("Turns run again because the bases' JIT compilers took >= 10 ms of CPU during them (still warming up): 2;"
                + " kept with the compilers still busy after the retries: 0.", new JitTurns(2, 0).line("the bases'"));
    }
}
