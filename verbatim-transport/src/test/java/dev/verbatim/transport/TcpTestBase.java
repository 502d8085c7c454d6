package dev.verbatim.transport;

import dev.verbatim.transport.internal.Rejections;
import org.junit.jupiter.api.AfterEach;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the tcp authentication tests share: closing what a test opened, listening, a listener's rejections. */
abstract class TcpTestBase {
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        open.clear();
    }

    /** {@code c}, closed after the test (in the reverse order of opening). */
    <T extends AutoCloseable> T closing(T c) {
        open.add(c);
        return c;
    }

    /** A listener on a free loopback port, closed after the test. */
    Listener listen(ConnectionOptions options) {
        return closing(Transport.listen("tcp://:0", options));
    }

    /** Waits up to {@code wait} until a listener has recorded a rejection after {@code before}; returns its reason. */
    static String rejection(long before, Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (Rejections.count() == before) {
            assertTrue(System.nanoTime() < deadline, "the listener recorded no rejection within " + wait);
            Thread.sleep(5);
        }
        return Rejections.last();
    }
}
