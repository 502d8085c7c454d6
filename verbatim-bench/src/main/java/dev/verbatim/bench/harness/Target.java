package dev.verbatim.bench.harness;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.DoubleFunction;

/**
 * One target of a suite, evaluated on one run: a measured ratio and the bound it must meet.
 * {@code measured} is NaN when a figure it needs is missing (a contender failed or was not
 * selected, no C compiler); such a target neither passes nor misses: its status is {@code n/a} and
 * its JSON {@code "pass"} is {@code null}. Invariant: {@code pass} implies a measured figure.
 *
 * @param need the bound as the report prints it ({@code "<= 1.30x"})
 */
public record Target(String what, double measured, String need, boolean pass) {
    public Target {
        if (pass && Double.isNaN(measured)) {
            throw new IllegalArgumentException("a target without a figure cannot pass: " + what);
        }
    }

    /** Passes when {@code measured <= bound}. */
    public static Target atMost(String what, double measured, double bound, String need) {
        return new Target(what, measured, need, measured <= bound);
    }

    /** Passes when {@code measured < bound}. */
    public static Target below(String what, double measured, double bound, String need) {
        return new Target(what, measured, need, measured < bound);
    }

    /** Passes when {@code measured >= bound}. */
    public static Target atLeast(String what, double measured, double bound, String need) {
        return new Target(what, measured, need, measured >= bound);
    }

    /** A figure that may be missing, as a {@code measured} argument (NaN when empty). */
    public static double orMissing(Optional<Double> figure) {
        return figure.orElse(Double.NaN);
    }

    public boolean missing() {
        return Double.isNaN(measured);
    }

    /** {@code PASS}, {@code MISS}, or {@code n/a} when a figure is missing. */
    public String status() {
        return missing() ? "n/a" : pass ? "PASS" : "MISS";
    }

    /** {@code {"suite":suite,"target":what,"measured":x|null,"need":need,"pass":true|false|null}}. */
    public String jsonLine(String suite) {
        return Json.line(suite).string("target", what).raw("measured", Json.decimals(3).apply(measured))
                .string("need", need).raw("pass", missing() ? "null" : Boolean.toString(pass)).toString();
    }

    /**
     * How a report shows a target whose figure is missing: its status word, its figure, and a note
     * after the bound.
     */
    public record Missing(String status, String figure, String note) {
        /** A contender is missing (transport, rpc). */
        public static final Missing CONTENDER = new Missing("n/a", "-", "  n/a (contender missing)");
        /** A figure is missing (the file suite without a C compiler). */
        public static final Missing FIGURE = new Missing("N/A", "missing", "");
    }

    /**
     * Prints {@code Targets (evaluated on this run)} and a line per target: status, what (in a column
     * {@code whatWidth} wide), the figure in {@code ratio}'s format, the bound.
     */
    public static void print(PrintStream out, List<Target> targets, int whatWidth, DoubleFunction<String> ratio,
                             Missing missing) {
        out.println("Targets (evaluated on this run)");
        String format = "  %-4s  %-" + whatWidth + "s %8s  (need %s)%s%n";
        for (Target t : targets) {
            out.printf(Locale.ROOT, format, t.missing() ? missing.status() : t.status(), t.what(),
                    t.missing() ? missing.figure() : ratio.apply(t.measured()), t.need(), t.missing() ? missing.note() : "");
        }
    }
}
