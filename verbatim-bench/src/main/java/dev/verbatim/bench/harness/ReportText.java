package dev.verbatim.bench.harness;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/** The closing sections every suite's report prints in its human form, and the ratio format of the in-process suites. */
public final class ReportText {
    private ReportText() {}

    /**
     * The end of every report's human form: {@code FAILED contenders (left out of the figures)} with a
     * line each and a blank line (nothing when none failed), {@code Notes} with a line each, then a
     * blank line and {@code finished in S s}.
     */
    public static void closing(PrintStream out, List<String> failures, List<String> notes, double seconds) {
        if (!failures.isEmpty()) {
            out.println("FAILED contenders (left out of the figures)");
            failures.forEach(f -> out.println("  - " + f));
            out.println();
        }
        out.println("Notes");
        for (String n : notes) {
            out.println("  - " + n);
        }
        out.printf(Locale.ROOT, "%nfinished in %.1f s%n", seconds);
    }

    /** A ratio of the wire and file suites: {@code 1.23x}, {@code 12.3x}, {@code 123x}; {@code -} for NaN. */
    public static String ratio(double r) {
        if (Double.isNaN(r)) {
            return "-";
        }
        if (r >= 100) {
            return String.format(Locale.ROOT, "%.0fx", r);
        }
        if (r >= 10) {
            return String.format(Locale.ROOT, "%.1fx", r);
        }
        return String.format(Locale.ROOT, "%.2fx", r);
    }
}
