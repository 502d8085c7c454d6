package dev.verbatim.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a listener bounds and survives (docs/transport.md §6.1): silent sockets that hold handshake
 * slots, and running out of descriptors. Real sockets; the descriptor case in a child JVM started
 * under {@code prlimit --nofile}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ListenerLimitsTest extends TcpTestBase {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final byte[] SECRET = "listener limits test secret 1234".getBytes(StandardCharsets.US_ASCII);
    private static final ConnectionOptions WITH = ConnectionOptions.DEFAULT.withSharedSecret(SECRET);
    private static final Executor PEERS = Executors.newVirtualThreadPerTaskExecutor();

    private static InetSocketAddress socketAddress(String address) {
        URI u = URI.create(address);
        return new InetSocketAddress(u.getHost(), u.getPort());
    }

    /** Opens sockets to {@code address} that never send a byte; each is added to {@code open}. */
    private static void openSilent(InetSocketAddress address, int n, List<SocketChannel> open) throws IOException {
        for (int i = 0; i < n; i++) {
            SocketChannel s = SocketChannel.open(address);
            synchronized (open) {
                open.add(s);
            }
        }
    }

    private static void closeAll(List<SocketChannel> open) {
        synchronized (open) {
            for (SocketChannel s : open) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
            open.clear();
        }
    }

    /** Connects with {@code options} while {@code l} accepts, and checks a message crosses both ways. */
    private void connectAndExchange(Listener l, ConnectionOptions options, int seed) throws Exception {
        CompletableFuture<Connection> connector = CompletableFuture.supplyAsync(() -> Transport.connect(l.address(), options), PEERS);
        Connection accepted = l.accept(WAIT);
        assertNotNull(accepted, "no connection accepted");
        closing(accepted);
        Connection c = closing(connector.get(30, TimeUnit.SECONDS));
        byte[] m = {(byte) seed, 7, 9};
        c.send(m, 0, m.length);
        assertArrayEquals(m, accepted.receive(WAIT));
        accepted.send(m, 0, 2);
        assertArrayEquals(new byte[] {(byte) seed, 7}, c.receive(WAIT));
    }

    @Test
    void aConnectorWithTheSecretGetsInWhileSilentSocketsHoldEveryHandshakeSlot() throws Exception {
        Listener l = listen(WITH);
        InetSocketAddress address = socketAddress(l.address());
        List<SocketChannel> silent = new ArrayList<>();
        AtomicBoolean attacking = new AtomicBoolean(true);
        try {
            openSilent(address, 300, silent); // more than any number of handshakes a listener runs at once
            Thread attacker = Thread.ofVirtual().start(() -> { // and more keep coming while the good one connects
                try {
                    for (int i = 0; i < 1000 && attacking.get(); i++) {
                        openSilent(address, 1, silent);
                        Thread.sleep(2);
                    }
                } catch (IOException | InterruptedException ignored) {
                    // the test ends
                }
            });
            for (int i = 0; i < 3; i++) {
                connectAndExchange(l, WITH, i); // within the connector's default 5 s connect timeout
            }
            attacking.set(false);
            attacker.join();
            ListenerStats stats = l.stats();
            assertTrue(stats.evicted() > 0, "silent sockets made room for newer connectors: " + stats);
            assertTrue(stats.handshakes() <= stats.maxHandshakes(), stats.toString());
            assertEquals(3, stats.accepted(), stats.toString());
        } finally {
            attacking.set(false);
            closeAll(silent);
        }
    }

    @Test
    void aConnectorOverTheConnectionLimitIsRefusedWithBusyUntilOneCloses() throws Exception {
        ShmTestDirectory dir = ShmTestDirectory.install("verbatim-limits-" + ProcessHandle.current().pid());
        closing(dir::remove); // closed last, after the connections
        for (String at : List.of("tcp://127.0.0.1:0", "shm:limits")) {
            ConnectionOptions options = WITH.withListenerLimits(2, Duration.ofSeconds(2));
            Listener l = closing(Transport.listen(at, options));
            Connection[] first = new Connection[2];
            for (int i = 0; i < 2; i++) {
                CompletableFuture<Connection> c = CompletableFuture.supplyAsync(() -> Transport.connect(l.address(), options), PEERS);
                first[i] = l.accept(WAIT);
                assertNotNull(first[i], at);
                closing(first[i]);
                closing(c.get(30, TimeUnit.SECONDS));
            }
            TransportException e = assertThrows(TransportException.class, () -> Transport.connect(l.address(), options));
            assertEquals(TransportException.Reason.BUSY, e.reason(), at + ": " + e.getMessage());
            assertTrue(e.getMessage().contains("limit"), e.getMessage());
            ListenerStats stats = l.stats();
            assertEquals(2, stats.connections(), at + ": " + stats);
            assertEquals(1, stats.refusedBusy(), at + ": " + stats);
            assertEquals(0, stats.dropped(), at + ": " + stats);

            first[0].close(); // frees a place
            assertEquals(1, l.stats().connections(), at);
            connectAndExchange(l, options, 5);
            assertEquals(2, l.stats().connections(), at);
        }
    }

    @Test
    void overTlsTheRefusalTravelsInsideTheTlsSession() throws Exception {
        ConnectionOptions tls = ConnectionOptions.DEFAULT.withTls(TestPki.TLS).withListenerLimits(1, Duration.ofSeconds(5));
        Listener l = listen(tls);
        connectAndExchange(l, tls, 1);
        TransportException e = assertThrows(TransportException.class, () -> Transport.connect(l.address(), tls));
        assertEquals(TransportException.Reason.BUSY, e.reason(), e.getMessage());
        assertEquals(1, l.stats().refusedBusy(), l.stats().toString());
    }

    @Test
    void aSocketThatSaysNothingIsDroppedAtTheHandshakeDeadlineNotTheConnectTimeout() throws Exception {
        Listener l = listen(ConnectionOptions.DEFAULT.withConnectTimeout(Duration.ofSeconds(60))
                .withListenerLimits(16, Duration.ofMillis(300)));
        try (SocketChannel s = SocketChannel.open(socketAddress(l.address()))) {
            s.socket().setSoTimeout(20_000);
            long t0 = System.nanoTime();
            int n = s.socket().getInputStream().read(); // the listener closes it: end of stream
            long took = System.nanoTime() - t0;
            assertEquals(-1, n);
            assertTrue(took < TimeUnit.SECONDS.toNanos(10), "dropped after " + took / 1_000_000 + " ms");
        }
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (l.stats().dropped() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(5); // the socket is closed just before the drop is counted
        }
        assertEquals(1, l.stats().dropped(), l.stats().toString());
        connectAndExchange(l, ConnectionOptions.DEFAULT, 1);
    }

    /** Sends the child SIGQUIT, so that a thread dump of it goes with the failure the caller is about to report. */
    private static void dumpThreads(Child child) throws Exception {
        new ProcessBuilder("kill", "-QUIT", Long.toString(child.process.pid())).start().waitFor();
        Thread.sleep(1000);
    }

    @Test
    void aListenerKeepsAcceptingAfterAcceptFailsForWantOfDescriptors() throws Exception {
        int limit = 64; // a JVM that has started holds about 20
        try (Child server = new Child(List.of("prlimit", "--nofile=" + limit + ":" + limit),
                "serve-echo-all", "tcp://127.0.0.1:0")) {
            String listening = server.await(60, "LISTENING", "FAIL");
            assertTrue(listening.startsWith("LISTENING tcp://"), listening + "\n" + server.output());
            String address = listening.substring("LISTENING ".length());
            List<SocketChannel> silent = new ArrayList<>();
            try {
                // enough silent sockets that the child runs out of descriptors and accept() fails (EMFILE); each
                // handshake waiting for its silent socket holds three (the socket and its selector's two), and
                // handshakes that cannot open their selector drop theirs, so how many it holds at any moment says
                // little: what it logs when accept() fails and it backs off says exactly that
                openSilent(socketAddress(address), limit + 64, silent);
                try {
                    server.await(30, "a line saying that accept() failed and the listener backs off",
                            line -> line.contains("accepting at " + address + " failed (")
                                    && line.contains("trying again in"));
                } catch (AssertionError e) {
                    dumpThreads(server);
                    throw new AssertionError("the child never reported accept() failing for want of descriptors"
                            + "\nchild output:\n" + server.output(), e);
                }
            } finally {
                closeAll(silent);
            }
            // the child drops the closed sockets and must accept again: a real connector gets in and is echoed
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            TransportException last = null;
            while (System.nanoTime() < deadline) {
                try (Connection c = Transport.connect(address, ConnectionOptions.DEFAULT)) {
                    byte[] m = {1, 2, 3, 4};
                    c.send(m, 0, m.length);
                    assertArrayEquals(m, c.receive(WAIT), "echoed");
                    return;
                } catch (TransportException e) {
                    last = e;
                }
            }
            throw new AssertionError("the listener never accepted again after running out of descriptors: " + last
                    + "\nchild output:\n" + server.output());
        }
    }

    /**
     * The JDK starts the poller on which virtual threads wait for I/O the first time one waits, and a start
     * that finds no descriptor left fails for the life of the process: every later handshake that has to wait
     * (a shared secret's makes every one wait) would fail and its connector be dropped. The child runs out of
     * descriptors before any handshake waited, lets one handshake reach its wait with no descriptor to spare,
     * then gets its descriptors back: a connector must get in.
     */
    @Test
    void aListenerThatRanOutOfDescriptorsBeforeAnyHandshakeWaitedServesOnceTheyAreBack() throws Exception {
        try (Child server = new Child(List.of("prlimit", "--nofile=64:64"),
                "serve-starved", "tcp://127.0.0.1:0", new String(SECRET, StandardCharsets.US_ASCII))) {
            String listening = server.await(60, "LISTENING", "FAIL");
            assertTrue(listening.startsWith("LISTENING tcp://"), listening + "\n" + server.output());
            String address = listening.substring("LISTENING ".length());
            server.await(30, "STARVED");
            try (SocketChannel silent = SocketChannel.open(socketAddress(address))) { // its handshake waits, starved
                assertTrue(silent.isConnected());
                server.await(30, "FREED");
                try (Connection c = Transport.connect(address, WITH)) {
                    byte[] m = {1, 2, 3, 4};
                    c.send(m, 0, m.length);
                    assertArrayEquals(m, c.receive(WAIT), "echoed");
                } catch (TransportException e) {
                    dumpThreads(server);
                    throw new AssertionError("the listener did not serve once it had its descriptors back: " + e
                            + "\nchild output:\n" + server.output(), e);
                }
            }
        }
    }
}
