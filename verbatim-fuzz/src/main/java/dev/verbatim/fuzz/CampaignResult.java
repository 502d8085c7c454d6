package dev.verbatim.fuzz;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What a campaign came to: its counts (cases mutated and random, accepted and how they were read, rejected and by
 * which rule, changed after validation and refused), its failures by kind and the first ones in detail, the most
 * {@code validate} allocated beyond its object-table copy (-1 when not measured), and its time. {@link #ok()} when
 * nothing failed; {@link #summary()} is what {@code verbatim fuzz} prints.
 *
 * <p>Invariants of a finished campaign: {@code iterations == accepted + rejected + failureCount} and
 * {@code iterations == mutated + random}; {@code rejected} is the sum of {@code rejectedByRule}.
 */
public record CampaignResult(long seed, long iterations, long mutated, long random, long accepted, long rejected,
                             long nullRoots, long unreadableRoots, long recordCycles, Map<String, Long> rejectedByRule,
                             long scribbled, long scribbledRefused, long failureCount, Map<String, Long> failureKinds, List<Failure> failures,
                             long maxValidateAllocation, long elapsedMillis, boolean stoppedEarly) {
    public boolean ok() { return failureCount == 0; }

    public double messagesPerSecond() { return elapsedMillis == 0 ? 0 : iterations * 1000.0 / elapsedMillis; }

    /** A human summary, several lines. */
    public String summary() {
        StringBuilder b = new StringBuilder();
        b.append(String.format("seed %d: %d iterations in %.1f s (%.0f messages/s): %d mutated, %d random%n", seed, iterations,
                elapsedMillis / 1000.0, messagesPerSecond(), mutated, random));
        b.append(String.format("accepted %d (%d read through views and materialized, %d null roots, %d roots no Java type names,"
                + " %d refused by the materializer: cycle through records), rejected %d%n", accepted,
                accepted - nullRoots - unreadableRoots - recordCycles, nullRoots, unreadableRoots, recordCycles, rejected));
        b.append(String.format("changed after validation and read again: %d (%d of them refused with WireFormatException or WireSchemaException)%n",
                scribbled, scribbledRefused));
        b.append("rejected by rule:\n");
        rejectedByRule.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .forEach(e -> b.append(String.format("  %9d  %s%n", e.getValue(), e.getKey())));
        b.append(maxValidateAllocation < 0 ? "validate allocation: not measured (no per-thread allocation counter)\n"
                : String.format("validate allocation: at most %d bytes per message beyond its object-table copy (budget %d)%n",
                        maxValidateAllocation, MessageOracle.VALIDATE_ALLOCATION_BUDGET));
        b.append("failures: ").append(failureCount).append(stoppedEarly ? " (stopped early)" : "").append('\n');
        failureKinds.forEach((k, n) -> b.append(String.format("  %9d  %s%n", n, k)));
        if (!failures.isEmpty()) b.append("first ").append(failures.size()).append(" in detail:\n");
        for (Failure f : failures) b.append("  ").append(f).append('\n');
        return b.toString();
    }

    /** One failure: how to reproduce it ({@code --seed seed --replay iteration}) and where its message was written. */
    public record Failure(long seed, long iteration, String what, String origin, String detail, Path hexFile) {
        @Override
        public String toString() {
            return "iteration " + iteration + ": " + what + " [" + origin + "]" + (hexFile == null ? "" : " " + hexFile)
                    + (iteration < 0 ? "" : " (reproduce: verbatim fuzz --seed " + seed + " --replay " + iteration + ")");
        }
    }
}
