package dev.verbatim.bench.harness;

/**
 * One benchmarked operation, run {@code n} times per call. The loop belongs to the workload, not
 * to the harness, so each workload's loop is compiled on its own with a monomorphic call to the
 * operation (as in the loops JMH generates); each result goes into the {@link Blackhole}.
 */
@FunctionalInterface
public interface Workload {
    void run(int n, Blackhole bh) throws Exception;
}
