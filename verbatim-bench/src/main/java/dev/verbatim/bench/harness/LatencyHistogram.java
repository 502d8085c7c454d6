package dev.verbatim.bench.harness;

import java.util.Locale;
import java.util.StringJoiner;

/**
 * A log-linear histogram of non-negative {@code long} values (nanoseconds), in the manner of
 * HdrHistogram: values below {@value #LINEAR} are counted exactly; above, each power of two is cut
 * into {@value #SUB_BUCKETS} equal buckets, so a reported percentile is within 1/{@value #SUB_BUCKETS}
 * (0.8%) of the true value. Values up to 2<sup>40</sup> ns (18 minutes) are counted; larger ones
 * land in the last bucket. The count, minimum, maximum and sum (for the mean) are kept exactly.
 *
 * <p>Recording allocates nothing and costs a few instructions. Not thread-safe.
 */
public final class LatencyHistogram {
    /** Sub-buckets per power of two above {@link #LINEAR}: the relative precision. */
    static final int SUB_BITS = 7;
    static final int SUB_BUCKETS = 1 << SUB_BITS;
    /** Values below this are counted one bucket each. */
    static final int LINEAR = 2 * SUB_BUCKETS;
    private static final int MAX_EXPONENT = 40;
    private static final int BUCKETS = LINEAR + (MAX_EXPONENT - SUB_BITS) * SUB_BUCKETS;

    private final long[] counts = new long[BUCKETS];
    private long count;
    private long min = Long.MAX_VALUE;
    private long max = Long.MIN_VALUE;
    private double sum;

    /** Counts one value; negative values count as 0. */
    public void record(long value) {
        long v = Math.max(0, value);
        counts[index(v)]++;
        count++;
        sum += v;
        if (v < min) {
            min = v;
        }
        if (v > max) {
            max = v;
        }
    }

    /** Forgets every value. */
    public void reset() {
        java.util.Arrays.fill(counts, 0);
        count = 0;
        min = Long.MAX_VALUE;
        max = Long.MIN_VALUE;
        sum = 0;
    }

    static int index(long v) {
        if (v < LINEAR) {
            return (int) v;
        }
        int exponent = 63 - Long.numberOfLeadingZeros(v); // >= SUB_BITS + 1
        if (exponent > MAX_EXPONENT) {
            return BUCKETS - 1;
        }
        int shift = exponent - SUB_BITS;
        int sub = (int) (v >>> shift) - SUB_BUCKETS; // 0 .. SUB_BUCKETS - 1
        return LINEAR + (exponent - SUB_BITS - 1) * SUB_BUCKETS + sub;
    }

    /** The smallest value counted in bucket {@code i}. */
    static long lowest(int i) {
        if (i < LINEAR) {
            return i;
        }
        int k = i - LINEAR;
        int shift = k / SUB_BUCKETS + 1;
        long sub = SUB_BUCKETS + k % SUB_BUCKETS;
        return sub << shift;
    }

    /** The largest value counted in bucket {@code i}. */
    static long highest(int i) {
        return i + 1 < BUCKETS ? lowest(i + 1) - 1 : Long.MAX_VALUE;
    }

    public long count() {
        return count;
    }

    /** The smallest value recorded (exact), or 0 when empty. */
    public long min() {
        return count == 0 ? 0 : min;
    }

    /** The largest value recorded (exact), or 0 when empty. */
    public long max() {
        return count == 0 ? 0 : max;
    }

    /** The mean of the values recorded (exact up to double rounding), or NaN when empty. */
    public double mean() {
        return count == 0 ? Double.NaN : sum / count;
    }

    /**
     * The q-quantile ({@code 0 <= q <= 1}) by the nearest-rank method: the smallest recorded value
     * at or below which at least {@code q * count} values lie, reported as the middle of its bucket
     * (exact below {@value #LINEAR}) and clamped to the exact minimum and maximum. NaN when empty.
     */
    public double quantile(double q) {
        if (q < 0 || q > 1) {
            throw new IllegalArgumentException("quantile " + q);
        }
        if (count == 0) {
            return Double.NaN;
        }
        long rank = Math.max(1, (long) Math.ceil(q * count));
        long seen = 0;
        for (int i = 0; i < BUCKETS; i++) {
            seen += counts[i];
            if (seen >= rank) {
                double mid = i < LINEAR ? i : (lowest(i) + (double) highest(i)) / 2;
                return Math.min(max, Math.max(min, mid));
            }
        }
        return max;
    }

    /** Adds every value counted in {@code other}. */
    public void add(LatencyHistogram other) {
        for (int i = 0; i < BUCKETS; i++) {
            counts[i] += other.counts[i];
        }
        count += other.count;
        sum += other.sum;
        if (other.count > 0) {
            min = Math.min(min, other.min);
            max = Math.max(max, other.max);
        }
    }

    /** A one-word text form (no spaces) for a child process's result line: see {@link #decode}. */
    public String encode() {
        StringJoiner j = new StringJoiner(",");
        for (int i = 0; i < BUCKETS; i++) {
            if (counts[i] != 0) {
                j.add(i + ":" + counts[i]);
            }
        }
        return String.format(Locale.ROOT, "%d/%d/%.1f/%s", min(), max(), sum, j);
    }

    /** The inverse of {@link #encode}. */
    public static LatencyHistogram decode(String s) {
        String[] parts = s.split("/", -1);
        if (parts.length != 4) {
            throw new IllegalArgumentException("not an encoded histogram: " + s);
        }
        LatencyHistogram h = new LatencyHistogram();
        if (!parts[3].isEmpty()) {
            for (String e : parts[3].split(",")) {
                int colon = e.indexOf(':');
                int i = Integer.parseInt(e.substring(0, colon));
                long c = Long.parseLong(e.substring(colon + 1));
                h.counts[i] += c;
                h.count += c;
            }
        }
        if (h.count > 0) {
            h.min = Long.parseLong(parts[0]);
            h.max = Long.parseLong(parts[1]);
            h.sum = Double.parseDouble(parts[2]);
        }
        return h;
    }
}
