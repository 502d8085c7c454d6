package dev.verbatim.bench.harness;

import java.util.Arrays;

/**
 * The two summaries every suite reports: the median of a contender's figures, and the paired ratio
 * of two contenders measured in the same rounds. Stateless.
 *
 * <p>Invariants: neither method changes its arguments; a median of an odd count is one of the
 * figures, of an even count the mean of the middle two; a paired ratio pairs the {@code k}-th
 * figures of both arrays only (figures of one round ran back to back, on the same host), so a
 * round that one side lacks is dropped, never paired with another round.
 */
public final class Stats {
    private Stats() {}

    /** The median of {@code v} (the mean of the middle two for an even count); NaN when empty. */
    public static double median(double[] v) {
        if (v.length == 0) {
            return Double.NaN;
        }
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    /**
     * The ratio of two contenders measured in the same rounds: the median over rounds of
     * {@code a[k] / b[k]}, for the rounds both have ({@code k < min(a.length, b.length)}); NaN when
     * they share no round.
     */
    public static double pairedRatio(double[] a, double[] b) {
        int n = Math.min(a.length, b.length);
        double[] r = new double[n];
        for (int k = 0; k < n; k++) {
            r[k] = a[k] / b[k];
        }
        return median(r);
    }
}
