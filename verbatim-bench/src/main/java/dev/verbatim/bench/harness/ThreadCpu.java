package dev.verbatim.bench.harness;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * The calling thread's CPU time, for the share of a measurement a thread was really on a CPU: a
 * share well below 1 means other processes (or GC) took the CPU, and the figure is inflated.
 */
public final class ThreadCpu {
    private ThreadCpu() {}

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** CPU time of the current thread, or -1 where the JVM does not measure it. */
    public static long nanos() {
        return THREADS.isCurrentThreadCpuTimeSupported() ? THREADS.getCurrentThreadCpuTime() : -1;
    }

    /**
     * The share of the wall time since {@code wall0} that this thread was on a CPU since
     * {@code cpu0} (from {@link #nanos()}), at most 1; NaN where unknown ({@code cpu0 < 0}, or no
     * time passed): a spinning side below 1 was descheduled, by other processes on the host or by
     * its own peer.
     */
    public static double share(long cpu0, long wall0) {
        long wall = System.nanoTime() - wall0;
        return cpu0 < 0 || wall <= 0 ? Double.NaN : Math.min(1.0, (nanos() - cpu0) / (double) wall);
    }
}
