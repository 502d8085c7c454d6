package dev.verbatim.transport;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

/** Test messages: sizes from a seeded generator (1 B to a maximum, log-uniform) and contents from the index. */
final class Pattern {
    private final SplittableRandom random;
    private final int max;

    Pattern(long seed, int max) {
        this.random = new SplittableRandom(seed);
        this.max = max;
    }

    int nextSize() {
        double x = random.nextDouble() * Math.log(max);
        return (int) Math.max(1, Math.min(max, Math.round(Math.exp(x))));
    }

    static byte at(long index, long j) {
        return (byte) (index * 131 + j * 7 + (j >>> 8));
    }

    static void fill(MemorySegment s, long index) {
        long n = s.byteSize();
        for (long j = 0; j < n; j++) {
            s.set(ValueLayout.JAVA_BYTE, j, at(index, j));
        }
    }

    /** -1 if {@code s} is message {@code index}, else the first offset that differs. */
    static long check(MemorySegment s, long index) {
        long n = s.byteSize();
        for (long j = 0; j < n; j++) {
            if (s.get(ValueLayout.JAVA_BYTE, j) != at(index, j)) {
                return j;
            }
        }
        return -1;
    }
}
