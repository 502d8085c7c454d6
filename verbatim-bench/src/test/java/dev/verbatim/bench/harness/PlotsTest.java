package dev.verbatim.bench.harness;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The axis labels of the suites' plots. */
class PlotsTest {

    @Test
    void timesAndSizesAreLabelledInWholeUnitsOfPowersOfAThousand() {
        assertEquals("500 ns", Plots.timeLabel(500));
        assertEquals("10 us", Plots.timeLabel(1e4));
        assertEquals("3 ms", Plots.timeLabel(3e6));
        assertEquals("64 B", Plots.sizeLabel(64));
        assertEquals("1 kB", Plots.sizeLabel(1000));
        assertEquals("1 MB", Plots.sizeLabel(1 << 20));
    }
}
