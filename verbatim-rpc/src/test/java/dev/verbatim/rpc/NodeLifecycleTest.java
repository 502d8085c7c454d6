package dev.verbatim.rpc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A node serves until it is closed: a server's main can wait for that, and closing twice is harmless. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NodeLifecycleTest {
    @Test
    void awaitCloseBlocksUntilAnotherThreadClosesTheNode() throws Exception {
        Node node = Node.listen("tcp://127.0.0.1:0");
        CountDownLatch waiting = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread main = Thread.ofPlatform().start(() -> {
            try {
                waiting.countDown();
                node.awaitClose();
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        waiting.await();
        assertFalse(node.awaitClose(Duration.ofMillis(200)), "an open node is not closed");
        assertTrue(main.isAlive(), "awaitClose returned while the node was open");
        node.close();
        main.join(10_000);
        assertFalse(main.isAlive(), "awaitClose did not return after close");
        assertNull(failure.get());
        assertTrue(node.isClosed());
        assertTrue(node.awaitClose(Duration.ZERO), "a closed node is closed at once");
    }

    @Test
    void closingTwiceOrFromTwoThreadsClosesOnce() throws Exception {
        Node node = Node.listen("tcp://127.0.0.1:0");
        Thread other = Thread.ofPlatform().start(node::close);
        node.close();
        other.join(10_000);
        node.close();
        assertTrue(node.isClosed());
        assertTrue(node.awaitClose(Duration.ofSeconds(10)));
    }
}
