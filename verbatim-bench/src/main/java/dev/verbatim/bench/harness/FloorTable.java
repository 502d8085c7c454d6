package dev.verbatim.bench.harness;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The tables of the suites measured against a floor (transport, rpc): a row per {@link FloorCase},
 * a column per contender (in order of first appearance), then each contender's ratio to the floor
 * where the table has one; figures whose measuring side had less than {@value #BUSY_SHARE} of a
 * CPU are marked '!'.
 */
public final class FloorTable {
    private FloorTable() {}

    /** Below this CPU share of the measuring side, a figure is marked with '!'. */
    public static final double BUSY_SHARE = 0.9;

    /** Prints one table: the title, a header of contenders, a row per case, a blank line. */
    public static void print(PrintStream out, String title, String firstColumn, List<FloorCase> cases) {
        out.println(title);
        if (cases.stream().allMatch(c -> c.results().isEmpty())) {
            out.println("  (no contender produced this figure)");
            out.println();
            return;
        }
        List<String> cols = new ArrayList<>();
        cases.forEach(c -> c.results().keySet().forEach(k -> {
            if (!cols.contains(k)) {
                cols.add(k);
            }
        }));
        List<String> ratioCols = cols.stream().filter(k -> !k.equals(FloorCase.FLOOR)).toList();
        boolean hasFloor = cols.contains(FloorCase.FLOOR);
        StringBuilder head = new StringBuilder(String.format(Locale.ROOT, "  %-16s", firstColumn));
        cols.forEach(k -> head.append(String.format(Locale.ROOT, " %10s", k)));
        if (hasFloor) {
            ratioCols.forEach(k -> head.append(String.format(Locale.ROOT, " %9s", k + "/fl")));
        }
        out.println(head);
        for (FloorCase c : cases) {
            StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "  %-16s", c.label()));
            cols.forEach(k -> {
                Double v = c.results().get(k);
                Double share = c.cpu().get(k);
                String mark = share != null && share < BUSY_SHARE ? "!" : "";
                row.append(String.format(Locale.ROOT, " %10s", v == null ? "-" : figure(v, c.unit()) + mark));
            });
            if (hasFloor) {
                Map<String, Double> r = c.ratios();
                ratioCols.forEach(k -> row.append(String.format(Locale.ROOT, " %9s",
                        r.containsKey(k) ? ratio(r.get(k)) : "-")));
            }
            out.println(row);
        }
        out.println();
    }

    /** The lowest CPU share of a measuring side in a run, and where ({@code shm/rtt-8 floor}); share 1 and no place for none. */
    public record LowestShare(double share, String where) {
        public static final LowestShare NONE = new LowestShare(1, "");

        /** This or {@code share} at {@code where}, whichever is lower (this on a tie). */
        public LowestShare lower(double share, String where) {
            return share < this.share ? new LowestShare(share, where) : this;
        }
    }

    /**
     * The line under the targets: the host's load average before and after the run and
     * {@code lowestOf} (what {@code lowest} is the lowest share of) while recording; then
     * {@code warning} when the host was busy (that share below {@value #BUSY_SHARE}, or a load above
     * 1.5 before the run); then a blank line.
     */
    public static void busyNote(PrintStream out, double loadBefore, double loadAfter, String lowestOf, LowestShare lowest,
                                String warning) {
        out.printf(Locale.ROOT, "Host load average (1 min) %.2f before, %.2f after; %s while recording: %.0f%%%s.%n",
                loadBefore, loadAfter, lowestOf, lowest.share() * 100, lowest.where().isEmpty() ? "" : " (" + lowest.where() + ")");
        if (lowest.share() < BUSY_SHARE || loadBefore > 1.5) {
            out.println(warning);
        }
        out.println();
    }

    /** Both forms' JSON: a line per case, then a line per target. */
    public static void printJson(PrintStream out, String suite, String mode, List<FloorCase> cases, List<Target> targets) {
        cases.forEach(c -> out.println(c.jsonLine(suite, mode)));
        targets.forEach(t -> out.println(t.jsonLine(suite)));
    }

    /** A figure in a table: ns/byte with 3 decimals, from 100 up none, else 1. */
    public static String figure(double v, String unit) {
        if (unit.equals("ns/byte")) {
            return String.format(Locale.ROOT, "%.3f", v);
        }
        if (Math.abs(v) >= 100) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        return String.format(Locale.ROOT, "%.1f", v);
    }

    /** A ratio to the floor: {@code 1.23x}, from 10 up {@code 12.3x}. */
    public static String ratio(double r) {
        return r >= 10 ? String.format(Locale.ROOT, "%.1fx", r) : String.format(Locale.ROOT, "%.2fx", r);
    }
}
