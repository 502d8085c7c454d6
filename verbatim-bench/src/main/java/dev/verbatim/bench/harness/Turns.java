package dev.verbatim.bench.harness;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Taking turns, for the suites whose contenders all stay up for a run while one at a time measures
 * (transport, rpc): the order of a round, the settling of the previous contender's processes, and
 * the pause of a spinning pong between its turns. On a shared virtual machine the host changes under
 * a run for seconds at a time; turns give every contender the same mixture of hosts. Stateless;
 * called from the suite's own thread.
 */
public final class Turns {
    private Turns() {}

    /** The window of {@link #settle}: two clock ticks. */
    static final long SETTLE_WINDOW_MILLIS = 20;

    /**
     * The order of turns in round {@code round}: {@code live} rotated left by the round, so every
     * contender goes first once in {@code live.size()} rounds. {@code live} is not changed.
     */
    public static <T> List<T> rotation(List<T> live, int round) {
        List<T> order = new ArrayList<>(live);
        if (!order.isEmpty()) {
            Collections.rotate(order, -(round % order.size()));
        }
        return order;
    }

    /**
     * Waits until {@code processes} are quiet, at most {@code maxMillis}: until, over a window of
     * {@value #SETTLE_WINDOW_MILLIS} ms, they took less than half a core together (their CPU time,
     * of clock-tick resolution, did not move by a tick). For the turns of a suite whose contenders go
     * on working after their turn (the JIT compiling what the turn made hot, for tens of milliseconds
     * in RMI's and gRPC's processes), which would otherwise take a core from the next turn. Returns
     * the milliseconds waited.
     */
    public static long settle(List<ChildProcess> processes, long maxMillis) throws InterruptedException {
        long start = System.nanoTime();
        long end = start + maxMillis * 1_000_000L;
        long before = cpuNanos(processes);
        while (System.nanoTime() - end < 0) {
            Thread.sleep(SETTLE_WINDOW_MILLIS);
            long now = cpuNanos(processes);
            if (now - before < SETTLE_WINDOW_MILLIS * 1_000_000L / 2) {
                break;
            }
            before = now;
        }
        return (System.nanoTime() - start) / 1_000_000;
    }

    /** The CPU time of {@code processes} so far (ns; clock-tick resolution; a process gone or null counts 0). */
    public static long cpuNanos(List<ChildProcess> processes) {
        long sum = 0;
        for (ChildProcess p : processes) {
            if (p != null) {
                sum += p.process().toHandle().info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
            }
        }
        return sum;
    }

    /**
     * Puts a pong to sleep ({@link ChildMain#echoed}): {@code PAUSE trips+1} to the pong, then
     * {@code NUDGE} to its ping, which makes one more round trip and says {@code NUDGED trips=T};
     * returns T, the ping's round trips so far, once the pong said {@code PAUSED}. {@code trips}: the
     * ping's round trips so far (every one an echo of the pong).
     */
    public static long pause(ChildProcess pong, ChildProcess ping, long trips) throws Exception {
        pong.send("PAUSE " + (trips + 1));
        pong.awaitLine("PAUSING", Duration.ofSeconds(10));
        ping.send("NUDGE");
        long t = Long.parseLong(ChildMain.props(ping.awaitLine("NUDGED", Duration.ofSeconds(10)).getLast()).get("trips"));
        pong.awaitLine("PAUSED", Duration.ofSeconds(10));
        return t;
    }
}
