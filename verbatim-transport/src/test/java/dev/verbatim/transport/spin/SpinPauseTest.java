package dev.verbatim.transport.spin;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The states of a spinner's pause ({@link SpinPause}): no yield while the wait is young; past its patience a
 * yield, after which the wait either yields at every pause (the yield took long: the CPU is shared) or goes back
 * to busy-waiting for {@link SpinPause#RELOOK_NANOS}. Whether a yield takes long depends on the host; what each
 * outcome leads to does not, and is checked here. (Its effect, two spinners on one CPU, is
 * {@code OneCpuSpinTest} in the rpc module.)
 */
class SpinPauseTest {
    @Test
    void aYoungWaitOnlyBusyWaitsAndKeepsItsState() {
        long now = System.nanoTime();
        long state = SpinPause.begin(now);
        assertEquals(now + SpinPause.PATIENCE_NANOS, state);
        assertEquals(state, SpinPause.pause(state, now), "no yield before the patience is out");
        assertEquals(state, SpinPause.pause(state, state - 1));
    }

    @Test
    void aWaitPastItsPatienceYieldsThenYieldsAtOnceAgainOnlyIfTheYieldFoundTheCpuShared() {
        long now = System.nanoTime();
        long state = SpinPause.begin(now - SpinPause.PATIENCE_NANOS); // its patience is out now
        long next = SpinPause.pause(state, now);
        long after = System.nanoTime();
        if (next - after <= 0) { // contended: due at once, its state the end of a yield that took long
            assertTrue(next - now >= SpinPause.CONTENDED_NANOS, "a yield that returned at once is not contention");
        } else { // uncontended: busy-waits until one RELOOK after the yield
            assertTrue(next - now >= SpinPause.RELOOK_NANOS, "the next yield is a RELOOK away");
            assertEquals(next, SpinPause.pause(next, after), "and no yield before it");
        }
    }

    @Test
    void aWaitYieldsAtEveryPauseWhileAnotherThreadWantsItsCpu() throws InterruptedException {
        // threads that never block, one per CPU and one more: every CPU is shared, so a yield runs another of them
        int n = Runtime.getRuntime().availableProcessors() + 1;
        Thread[] hogs = new Thread[n];
        var stop = new java.util.concurrent.atomic.AtomicBoolean();
        for (int i = 0; i < n; i++) {
            hogs[i] = Thread.ofPlatform().daemon().start(() -> {
                while (!stop.get()) {
                    Thread.onSpinWait();
                }
            });
        }
        try {
            int contended = 0;
            for (int i = 0; i < 200 && contended == 0; i++) {
                long now = System.nanoTime();
                long next = SpinPause.pause(SpinPause.begin(now - SpinPause.PATIENCE_NANOS), now);
                if (next - now >= SpinPause.CONTENDED_NANOS && next - System.nanoTime() <= 0) { // yielded, long
                    contended++;
                }
            }
            assertTrue(contended > 0, "in 200 yields on a CPU that " + n + " spinning threads share, none ran another");
        } finally {
            stop.set(true);
            for (Thread t : hogs) {
                t.join();
            }
        }
    }
}
