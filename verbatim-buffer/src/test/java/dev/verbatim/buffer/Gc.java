package dev.verbatim.buffer;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Asks the garbage collector to run until a condition holds, for a bounded time. */
final class Gc {

    /** The longest a test waits for the collector and the cleaner thread. */
    static final long MAX_WAIT_MILLIS = 5_000;

    private Gc() {
    }

    /**
     * Calls {@link System#gc()} and waits a little, until {@code condition} holds or
     * {@link #MAX_WAIT_MILLIS} have passed.
     *
     * @return whether the condition came to hold
     */
    static boolean until(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(MAX_WAIT_MILLIS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            System.gc();
            Thread.sleep(10);
        }
        return true;
    }

    /** Runs a few collections and lets the cleaner thread catch up. */
    static void collectAFewTimes() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(20);
        }
    }
}
