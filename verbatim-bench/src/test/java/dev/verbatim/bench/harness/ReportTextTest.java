package dev.verbatim.bench.harness;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The end of every report and the ratio formats of the tables. */
class ReportTextTest {

    private static String closing(List<String> failures) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        ReportText.closing(new PrintStream(b, true, StandardCharsets.UTF_8), failures, List.of("one", "two"), 12.34);
        return b.toString(StandardCharsets.UTF_8).replace(System.lineSeparator(), "\n");
    }

    @Test
    void aReportEndsWithItsFailuresItsNotesAndItsTime() {
        assertEquals("FAILED contenders (left out of the figures)\n  - shm/x: gone\n\nNotes\n  - one\n  - two\n\n"
                + "finished in 12.3 s\n", closing(List.of("shm/x: gone")));
    }

    @Test
    void withoutFailuresThereIsNoFailureSection() {
        assertEquals("Notes\n  - one\n  - two\n\nfinished in 12.3 s\n", closing(List.of()));
    }

    @Test
    void ratiosKeepThreeSignificantFiguresOrSo() {
        assertEquals("1.23x", ReportText.ratio(1.234));
        assertEquals("12.3x", ReportText.ratio(12.34));
        assertEquals("242x", ReportText.ratio(242.4));
        assertEquals("-", ReportText.ratio(Double.NaN));
        assertEquals("242.4x", FloorTable.ratio(242.4)); // the floor suites keep a decimal
        assertEquals("1.23x", FloorTable.ratio(1.234));
    }
}
