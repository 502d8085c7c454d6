package dev.verbatim.rpc.internal;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/**
 * How deep a thread may wait in nested calls ({@link CallContext#MAX_NESTING}): 128 per MB of the JVM's {@code -Xss},
 * read from its command line. What a chain beyond it does is {@code ChainHopsTest}'s.
 */
class NestingLimitTest {
    @Test
    void theLimitFollowsTheJvmsStackSize() {
        // pom.xml runs the tests with -Xss4m (verbatim.test.argLine)
        assertEquals(512, CallContext.MAX_NESTING);
    }

    @Test
    void stackSizesAreReadAsTheJvmReadsThem() {
        assertEquals(4096, CallContext.kibibytes("4m"));
        assertEquals(4096, CallContext.kibibytes("4M"));
        assertEquals(512, CallContext.kibibytes("512k"));
        assertEquals(1024 * 1024, CallContext.kibibytes("1g"));
        assertEquals(1024, CallContext.kibibytes("1048576"));
        assertEquals(0, CallContext.kibibytes(""));
        assertEquals(0, CallContext.kibibytes("4x"));
        assertEquals(0, CallContext.kibibytes("m"));
    }
}
