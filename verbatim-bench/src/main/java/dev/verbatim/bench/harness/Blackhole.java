package dev.verbatim.bench.harness;

/**
 * A sink for benchmark results, so the JIT cannot prove a result unused and drop the work that
 * produced it. The same trick as JMH's {@code Blackhole}: every value is compared against two
 * volatile fields that never hold equal values, so the comparison is never true but cannot be
 * folded away; the volatile reads also stop the compiler from hoisting loads of the benchmarked
 * work out of the caller's loop.
 *
 * <p>Not thread-safe: one per measuring thread.
 */
public final class Blackhole {
    private volatile long l1 = 0x9E3779B97F4A7C15L;
    private volatile long l2 = 0x9E3779B97F4A7C15L + 1;
    private volatile Object o1 = new Object();
    /** Written only when the impossible happens; never read. */
    public Object bait;

    /** Consumes one long result. */
    public void consume(long v) {
        long a = l1;
        long b = l2;
        if ((v ^ a) == (v ^ b)) { // never: a != b
            bait = this;
        }
    }

    /** Consumes one object result. */
    public void consume(Object o) {
        if (o == o1) { // never: o1 is private
            bait = o;
        }
    }
}
