package dev.verbatim.bench.harness;

import java.util.Locale;

/**
 * The turns of a run that its processes' JIT compilers disturbed ({@link JitTime}): run again as still warming up
 * ({@code repeated}: the turn's figures dropped), or kept because the compilers were still busy after the retries
 * ({@code busy}). A suite counts them with a {@link Count} as its turns go and prints them with {@link #line}.
 *
 * <p>Why: on a 2-CPU host a compilation that starts during a turn takes a CPU from the two ends of a call that spin,
 * which then take turns on the other; such a turn measures the compiler, not the call (docs/benchmarks.md, "The
 * compilers in a turn").
 */
public record JitTurns(int repeated, int busy) {
    /** A run whose turns the compilers never disturbed (or that could not tell). */
    public static final JitTurns NONE = new JitTurns(0, 0);

    /** The compilers' CPU time during a turn below which the turn counts as warm (10 ms; a turn lasts 100-200 ms). */
    public static final long QUIET_NANOS = 10_000_000;

    /** How often a full run runs a turn again while the compilers are busy during it (a quick run's: its suite's plan). */
    public static final int FULL_RETRIES = 3;

    /** The report's sentence; {@code whose}: whose compilers ("the bases'", "the contenders'"). */
    public String line(String whose) {
        return String.format(Locale.ROOT, "Turns run again because %s JIT compilers took >= %d ms of CPU during them (still"
                + " warming up): %d; kept with the compilers still busy after the retries: %d.", whose,
                QUIET_NANOS / 1_000_000, repeated, busy);
    }

    /** The count of one run, kept by the suite's own thread. */
    public static final class Count {
        private int repeated;
        private int busy;

        /**
         * Whether a turn is run again: the compilers took {@link #QUIET_NANOS} or more between {@code before} and
         * {@code after} ({@link JitTime#nanos}) and this was attempt {@code attempt} (0: the first) of at most
         * {@code retries} more. Counts the turn as repeated, or as kept busy when the retries are spent.
         */
        public boolean again(long before, long after, int attempt, int retries) {
            if (JitTime.quiet(before, after, QUIET_NANOS)) {
                return false;
            }
            if (attempt < retries) {
                repeated++;
                return true;
            }
            busy++;
            return false;
        }

        public JitTurns turns() {
            return new JitTurns(repeated, busy);
        }
    }
}
