package dev.verbatim.rpc.internal;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/**
 * How deep a thread may wait in nested calls ({@link CallContext#maxNesting}): 128 per MB of the JVM's thread stack
 * size, however it was given. What a chain beyond it does is {@code ChainHopsTest}'s.
 */
class NestingLimitTest {
    @Test
    void theLimitFollowsTheJvmsThreadStackSize() {
        // pom.xml runs the tests with -Xss4m (verbatim.test.argLine): the JVM reports it as ThreadStackSize 4096 (KiB)
        assertEquals(4096, CallContext.stackKibibytes(), "this test expects the pom's -Xss4m");
        assertEquals(512, CallContext.maxNesting());
        assertEquals(16, CallContext.CHECKED_FROM, "below 16 nested waits nothing asks");
    }
}
