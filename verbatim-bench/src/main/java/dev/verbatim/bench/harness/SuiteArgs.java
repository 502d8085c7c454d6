package dev.verbatim.bench.harness;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * How a suite was asked to run ({@code [--quick] [--json] [--plot PATH]}), and the end every
 * suite's run shares: the report as JSON lines or tables, the plot, the exit code.
 *
 * @param plot where to write the plot, or null for none
 */
public record SuiteArgs(boolean quick, boolean json, Path plot) {
    /** Contender ids to run, from this system property (comma-separated, e.g. {@code shm/floor,shm/aeron}); all when unset. */
    public static final String ONLY = "verbatim.bench.only";

    /**
     * Case keys to run, from this system property (comma-separated, e.g. {@code throughput-16,null}); all when
     * unset. For A/B runs of a few cases: the report leaves the others out.
     */
    public static final String CASES = "verbatim.bench.cases";

    /** Whether case {@code key} runs: {@value #CASES} unset or blank, or naming it. */
    public static boolean caseSelected(String key) {
        String only = System.getProperty(CASES);
        return only == null || only.isBlank() || List.of(only.split(",")).contains(key);
    }

    /** Parses a suite main's arguments; unknown words are ignored. */
    public static SuiteArgs parse(String[] args) {
        List<String> a = new ArrayList<>(List.of(args));
        Path plot = null;
        int i = a.indexOf("--plot");
        if (i >= 0 && i + 1 < a.size()) {
            plot = Path.of(a.get(i + 1));
        }
        return new SuiteArgs(a.contains("--quick"), a.contains("--json"), plot);
    }

    /** Whether contender {@code id} runs: {@value #ONLY} unset or blank, or naming it. */
    public static boolean selected(String id) {
        return !contendersNamed() || List.of(System.getProperty(ONLY).split(",")).contains(id);
    }

    /** Whether {@value #ONLY} names contenders (then only those run). */
    public static boolean contendersNamed() {
        return !isBlank(System.getProperty(ONLY));
    }

    /** Whether every contender and every case runs: neither {@value #ONLY} nor {@value #CASES} names any. */
    public static boolean everything() {
        return !contendersNamed() && isBlank(System.getProperty(CASES));
    }

    private static boolean isBlank(String s) {
        return s == null || s.isBlank();
    }

    /** {@code quick} or {@code full}: the mode every report and JSON line names. */
    public String mode() {
        return quick ? "quick" : "full";
    }

    /** Writes a run's plot to a file. */
    @FunctionalInterface
    public interface PlotWriter {
        void write(Path file) throws IOException;
    }

    /**
     * The end of suite {@code suite}'s run: prints the report on {@code out} ({@code asJson} with
     * {@code --json}, else {@code asTables}), writes the plot when one was asked for and
     * {@code plotWriter} is not null (saying where on {@code err}); returns the exit code, 1 when
     * {@code failed} (a contender failed), else 0.
     */
    public int finish(String suite, Consumer<PrintStream> asJson, Consumer<PrintStream> asTables, PlotWriter plotWriter,
                      boolean failed, PrintStream out, PrintStream err) throws IOException {
        (json ? asJson : asTables).accept(out);
        if (plot != null && plotWriter != null) {
            plotWriter.write(plot);
            err.println("verbatim bench " + suite + ": plot written to " + plot.toAbsolutePath());
        }
        return failed ? 1 : 0;
    }
}
