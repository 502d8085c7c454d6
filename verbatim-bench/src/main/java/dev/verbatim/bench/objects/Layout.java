package dev.verbatim.bench.objects;

import java.util.Locale;

/**
 * Where the elements of the distributed list live (paper 003 §5): element {@code i} of {@code n} on base
 * {@link #home(int, int, int)} of {@code b}. Element 0, the head, is always on base 0, where the walk
 * starts. With one base every layout is the same local list.
 *
 * <ul>
 *   <li>{@link #SCATTERED}: interleaved, element {@code i} on base {@code i mod b}: every link is remote.</li>
 *   <li>{@link #CLUMPED}: clumps of {@value #CLUMP} consecutive elements, dealt round the bases: one link
 *       in four is remote.</li>
 *   <li>{@link #COMPACT}: {@code b} even runs of {@code ceil(n / b)} elements: {@code b - 1} remote links.</li>
 * </ul>
 */
public enum Layout {
    SCATTERED,
    CLUMPED,
    COMPACT;

    /** Elements per clump in {@link #CLUMPED}: one link in this many is remote. */
    public static final int CLUMP = 4;

    /** The base (0 to {@code b - 1}) element {@code i} of an {@code n}-element list over {@code b} bases lives on. */
    public int home(int i, int n, int b) {
        if (i < 0 || i >= n || b < 1) {
            throw new IllegalArgumentException("element " + i + " of " + n + " over " + b + " bases");
        }
        return switch (this) {
            case SCATTERED -> i % b;
            case CLUMPED -> (i / CLUMP) % b;
            case COMPACT -> i / ((n + b - 1) / b);
        };
    }

    /** How many of the {@code n - 1} links of such a list lead to another base. */
    public int remoteLinks(int n, int b) {
        int r = 0;
        for (int i = 0; i + 1 < n; i++) {
            if (home(i, n, b) != home(i + 1, n, b)) {
                r++;
            }
        }
        return r;
    }

    /**
     * Whether a walk of such a list comes back to a base it left (A, B, A, ...): then the calls it nests
     * re-enter a base that has a thread waiting in the same chain. Only {@link #COMPACT} walks (and any
     * walk over one base) never come back.
     */
    public boolean comesBack(int n, int b) {
        boolean[] left = new boolean[b];
        for (int i = 0; i + 1 < n; i++) {
            int from = home(i, n, b);
            int to = home(i + 1, n, b);
            if (from != to) {
                left[from] = true;
                if (left[to]) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The name in case keys: {@code scattered}. */
    public String key() {
        return name().toLowerCase(Locale.ROOT);
    }
}
