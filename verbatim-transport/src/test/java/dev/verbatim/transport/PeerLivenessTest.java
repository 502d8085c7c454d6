package dev.verbatim.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Dead or silent tcp peers are detected within the peer timeout (docs/transport.md §4.5), and slow
 * ones are not: the other side is a child JVM, stopped with SIGSTOP or simply not reading.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PeerLivenessTest extends TcpTestBase {
    private static final Duration WAIT = Duration.ofSeconds(20);
    /** The bound the tests set, and the generous margin they allow beyond it. */
    private static final Duration TIMEOUT = Duration.ofSeconds(1);
    private static final long MARGIN_SECONDS = 10;

    private static void signal(Child child, String signal) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("kill", "-" + signal, Long.toString(child.process.pid())).inheritIO().start();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0, "kill -" + signal);
    }

    @Test
    void aPeerWhoseProcessIsStoppedIsGoneWithinThePeerTimeout() throws Exception {
        try (Child server = new Child("serve-echo-all", "tcp://127.0.0.1:0")) {
            String listening = server.await(60, "LISTENING", "FAIL");
            String address = listening.substring("LISTENING ".length());
            Connection c = closing(Transport.connect(address, ConnectionOptions.DEFAULT.withPeerTimeout(TIMEOUT)));
            byte[] m = {4, 5, 6};
            c.send(m, 0, m.length);
            assertArrayEquals(m, c.receive(WAIT), "echoed while the peer runs");
            Thread.sleep(3 * TIMEOUT.toMillis()); // idle, the peer running: heartbeats keep it
            assertTrue(c.isOpen(), "an idle peer that runs is kept");

            signal(server, "STOP"); // the kernel still acknowledges; only the program is silent
            try {
                long t0 = System.nanoTime();
                TransportException e = assertThrows(TransportException.class,
                        () -> c.take(Duration.ofSeconds(MARGIN_SECONDS + 30)));
                long took = System.nanoTime() - t0;
                assertEquals(TransportException.Reason.PEER_GONE, e.reason(), e.getMessage());
                assertTrue(e.getMessage().contains("sent nothing for 1000 ms"), e.getMessage());
                assertTrue(took < TimeUnit.SECONDS.toNanos(MARGIN_SECONDS),
                        "detected after " + took / 1_000_000 + " ms, the bound is " + TIMEOUT.toMillis() + " ms");
                assertThrows(TransportException.class, () -> c.send(m, 0, m.length));
            } finally {
                signal(server, "CONT");
            }
        }
    }

    @Test
    void aPeerThatDoesNotReadForLongerThanTheTimeoutStaysConnected() throws Exception {
        Listener l = listen(ConnectionOptions.DEFAULT.withPeerTimeout(TIMEOUT));
        // the child connects and then sleeps: its program never reads or sends (a busy, slow peer)
        try (Child client = new Child("hang", l.address())) {
            Connection c = l.accept(WAIT);
            assertNotNull(c, "the child connected\n" + client.output());
            closing(c);
            client.await(60, "READY");
            long end = System.nanoTime() + 5 * TIMEOUT.toNanos();
            while (System.nanoTime() < end) {
                assertNull(c.take(Duration.ofMillis(200)), "nothing arrives, and no failure either");
            }
            assertTrue(c.isOpen(), "a peer that only does not read is kept");
            byte[] m = {1, 2};
            c.send(m, 0, m.length); // and still takes messages
            assertTrue(client.process.isAlive());
        }
    }

    @Test
    void withNoPeerTimeoutASilentPeerIsKept() throws Exception {
        ConnectionOptions off = ConnectionOptions.DEFAULT.withPeerTimeout(Duration.ZERO);
        Listener l = listen(off);
        CompletableFuture<Connection> connector = CompletableFuture.supplyAsync(() -> Transport.connect(l.address(), off));
        Connection a = closing(l.accept(WAIT));
        Connection b = closing(connector.get(30, TimeUnit.SECONDS));
        Thread.sleep(1500);
        assertTrue(a.isOpen() && b.isOpen());
        assertEquals(0, a.stats().messagesReceived());
    }
}
