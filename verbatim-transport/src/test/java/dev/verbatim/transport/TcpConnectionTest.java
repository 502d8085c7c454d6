package dev.verbatim.transport;

import dev.verbatim.transport.TransportException.Reason;
import dev.verbatim.transport.internal.Hello;
import dev.verbatim.transport.internal.Rejections;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TcpConnectionTest extends ConnectionContract {

    @AfterAll
    static void noThreadsLeft() throws InterruptedException {
        assertNoVerbatimThreads();
    }

    @Override
    String listenAddress() {
        return "tcp://:0";
    }

    @Override
    AutoCloseable silentConnector(Listener l) throws Exception {
        return raw(l);
    }

    @Test
    void listensOnLoopbackUnlessToldOtherwise() {
        Listener l = listen(ConnectionOptions.DEFAULT);
        assertTrue(l.address().startsWith("tcp://127.0.0.1:"), l.address());
    }

    static SocketChannel raw(Listener l) throws IOException {
        URI u = URI.create(l.address());
        return SocketChannel.open(new InetSocketAddress(u.getHost(), u.getPort()));
    }

    /** Connects by hand and completes the handshake with {@code accepted}: the test is the peer, byte by byte. */
    SocketChannel handshaken(Listener l, Connection[] accepted) throws Exception {
        var peer = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return handshake(l);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        accepted[0] = closing(l.accept(WAIT));
        assertNotNull(accepted[0]);
        return peer.get();
    }

    static SocketChannel handshake(Listener l) throws IOException {
        SocketChannel s = raw(l);
        ByteBuffer hello = new Hello(Hello.KIND_HELLO, 1, 2, 64 * 1024, "").encode();
        while (hello.hasRemaining()) {
            s.write(hello);
        }
        ByteBuffer welcome = ByteBuffer.allocate(Hello.HEAD);
        while (welcome.hasRemaining()) {
            if (s.read(welcome) < 0) {
                throw new IOException("closed during the handshake");
            }
        }
        return s;
    }

    /** The peer closed: end of stream, or a reset when it closed with our bytes unread. */
    static void assertClosedByPeer(SocketChannel s) {
        try {
            assertEquals(-1, s.read(ByteBuffer.allocate(16)), "the listener closed the connection");
        } catch (IOException reset) {
            assertTrue(reset.getMessage().contains("reset"), reset.getMessage());
        }
    }

    static ByteBuffer frame(int type, long length, long notices, byte[] payload) {
        int padded = (payload.length + 7) & ~7;
        ByteBuffer b = ByteBuffer.allocate(16 + padded).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt((int) length).put((byte) type).put((byte) 0).putShort((short) 0).putLong(notices).put(payload);
        return b.position(0);
    }

    /**
     * Fails, naming {@code where}, if this thread's interrupt flag is set (and clears it). Twice in CI this test's raw
     * read failed with {@code ClosedByInterruptException}: the flag was set during {@code take()} (these checks, about
     * one run of this class in ten), by no call of {@code Thread.interrupt()} (a thread overriding it recorded none):
     * the JVM's handshake that closes the window's shared arena under a thread reading it sets that thread's flag
     * (JDK-8306324). The transport now clears a flag that was not set when its primitive began
     * ({@code BaseConnection.failed}); these checks are its regression test.
     */
    static void assertNotInterrupted(String where) {
        assertFalse(Thread.interrupted(), "the test thread's interrupt flag was set " + where);
    }

    /** Reads frames until a CLOSE; returns its reason. */
    static String closeReason(SocketChannel s) throws IOException {
        ByteBuffer in = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
        while (s.read(in) >= 0) {
            in.flip();
            while (in.remaining() >= 16) {
                int length = in.getInt(in.position());
                int type = in.get(in.position() + 4);
                int span = 16 + ((length + 7) & ~7);
                if (in.remaining() < span) {
                    break;
                }
                if (type == 7) {
                    byte[] r = new byte[length];
                    in.get(in.position() + 16, r);
                    return new String(r, StandardCharsets.UTF_8);
                }
                in.position(in.position() + span);
            }
            in.compact();
        }
        return null;
    }

    /**
     * Held commits (issue 18 §2: many messages in one write) wait in the sender's buffer until a commit that is
     * not held or a flush, then arrive whole and in order: across the receiver's areas (NEXT frames among them),
     * beyond the send buffer's first size, past the 64 KiB a batch may hold, with a region among them, and when
     * the peer's window is full (what is held goes before the sender waits for room).
     */
    @Test
    void heldCommitsWaitForTheNextCommitOrAFlushAndArriveInOrder() throws Exception {
        Connection[] c = pair(SMALL, SMALL);
        c[1].holdNextCommit();
        c[1].send(bytes(10, 1), 0, 10);
        assertNull(c[0].receive(Duration.ofMillis(300)), "a held message waits for the next write");
        c[1].send(bytes(20, 2), 0, 20);
        assertArrayEquals(bytes(10, 1), c[0].receive(WAIT), "the held message goes with the next, first");
        assertArrayEquals(bytes(20, 2), c[0].receive(WAIT));

        c[1].holdNextCommit();
        c[1].send(bytes(30, 3), 0, 30);
        c[1].flush();
        assertArrayEquals(bytes(30, 3), c[0].receive(WAIT), "flush sends what is held");
        c[1].flush(); // nothing held: nothing sent
        assertNull(c[0].receive(Duration.ofMillis(100)));

        // many held messages: more than the peer's two 64 KiB areas hold, so the sender must write and wait for room
        java.util.concurrent.CompletableFuture<Void> sender = java.util.concurrent.CompletableFuture.runAsync(() -> {
            for (int i = 0; i < 400; i++) {
                byte[] m = bytes(100 + (i * 37) % 3000, i);
                c[1].holdNextCommit();
                c[1].send(m, 0, m.length);
                if (i == 200) {
                    c[1].writeRegion(java.lang.foreign.MemorySegment.ofArray(bytes(9000, 7)));
                    c[1].holdNextCommit();
                    c[1].send(new byte[] {42}, 0, 1); // the region's message
                }
            }
            c[1].flush();
        });
        for (int i = 0; i < 400; i++) {
            assertArrayEquals(bytes(100 + (i * 37) % 3000, i), c[0].receive(WAIT), "message " + i);
            if (i == 200) {
                Delivery d = c[0].take(WAIT);
                assertNotNull(d, "the region's message");
                try {
                    assertEquals(1L, d.length());
                    assertArrayEquals(bytes(9000, 7), d.region(0).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
                } finally {
                    d.release();
                }
            }
        }
        sender.get(30, java.util.concurrent.TimeUnit.SECONDS);
        assertNull(c[0].receive(Duration.ofMillis(100)), "nothing twice");

        c[1].holdNextCommit();
        c[1].send(bytes(40, 4), 0, 40);
        c[1].close(); // closing sends what is held, then the close
        assertArrayEquals(bytes(40, 4), c[0].receive(WAIT), "what was committed goes before the close");
    }

    @Test
    void aMalformedHelloIsDroppedAndTheListenerKeepsServing() throws Exception {
        Listener l = listen(ConnectionOptions.DEFAULT.withConnectTimeout(Duration.ofSeconds(2)));
        long before = Rejections.count();
        try (SocketChannel s = raw(l)) {
            s.write(ByteBuffer.wrap("GET / HTTP/1.1\r\nHost: x\r\n\r\n.......".getBytes(StandardCharsets.US_ASCII)));
            assertNull(l.accept(Duration.ofMillis(500)), "garbage is not a connection");
            assertClosedByPeer(s);
        }
        assertTrue(Rejections.count() > before);
        assertTrue(Rejections.last().contains("bad magic"), Rejections.last());
        Connection[] c = new Connection[2];
        var connector = java.util.concurrent.CompletableFuture.supplyAsync(() -> Transport.connect(l.address()));
        c[0] = closing(l.accept(WAIT));
        c[1] = closing(connector.get());
        c[1].send(new byte[] {5}, 0, 1);
        assertArrayEquals(new byte[] {5}, c[0].receive(WAIT));
    }

    @Test
    void aSilentConnectorIsDroppedAfterTheConnectTimeout() throws Exception {
        Listener l = listen(ConnectionOptions.DEFAULT.withConnectTimeout(Duration.ofMillis(300)));
        try (SocketChannel s = raw(l)) {
            assertNull(l.accept(Duration.ofMillis(800)));
            assertTrue(Rejections.last().contains("timed out"), Rejections.last());
            assertClosedByPeer(s);
        }
    }

    @Test
    void malformedFramesCloseTheConnectionWithAReason() throws Exception {
        List<ByteBuffer> bad = List.of(
                frame(99, 0, 0, new byte[0]),                        // unknown type
                frame(1, 100 << 20, 0, new byte[0]),                 // oversize: above the receive area
                frame(4, 8, 0, new byte[] {0, 0, 0, 0, 0, 0, 0, 0}), // NEXT into the area in use
                frame(6, 0, 1L << 40, new byte[0]));                 // notice for areas the peer does not have
        List<String> expected = List.of("unknown type", "above this side's maximum", "not free", "does not have");
        Listener l = listen(ConnectionOptions.DEFAULT);
        assertNotInterrupted("at the start of the test");
        for (int i = 0; i < bad.size(); i++) {
            Connection[] a = new Connection[1];
            try (SocketChannel s = handshaken(l, a)) {
                assertNotInterrupted("after the handshake of case " + i);
                Connection c = a[0];
                s.write(frame(1, 3, 0, new byte[] {1, 2, 3}));
                s.write(bad.get(i));
                assertArrayEquals(new byte[] {1, 2, 3}, c.receive(WAIT), "the good frame before the bad one");
                assertNotInterrupted("after receive() of case " + i);
                TransportException e = assertThrows(TransportException.class, () -> c.take(WAIT));
                assertNotInterrupted("after take() failed in case " + i);
                assertEquals(Reason.PROTOCOL, e.reason(), e.getMessage());
                assertTrue(e.getMessage().contains(expected.get(i)), e.getMessage());
                String reason = closeReason(s);
                assertNotNull(reason, "the peer got a CLOSE frame");
                assertTrue(reason.contains(expected.get(i)), reason);
                assertTrue(!c.isOpen());
            }
        }
    }

    @Test
    void aStalledPeerTimesOutTheSender() throws Exception {
        Listener l = listen(ConnectionOptions.DEFAULT.withSendTimeout(Duration.ofMillis(500)));
        Connection[] a = new Connection[1];
        try (SocketChannel s = handshaken(l, a)) { // never reads
            Connection c = a[0];
            byte[] m = new byte[60_000];
            TransportException e = assertThrows(TransportException.class, () -> {
                for (int i = 0; i < 100_000; i++) {
                    c.send(m, 0, m.length);
                }
            });
            assertEquals(Reason.TIMEOUT, e.reason(), e.getMessage());
            assertTrue(s.isOpen());
        }
    }

    @Test
    void addressesAreChecked() {
        for (String bad : List.of("udp://x:1", "tcp://host", "tcp://:99999", "tcp://:x", "shmx")) {
            assertThrows(IllegalArgumentException.class, () -> Transport.listen(bad), bad);
        }
        assertThrows(IllegalArgumentException.class, () -> Transport.connect("tcp://localhost:0"));
        TransportException e = assertThrows(TransportException.class, () -> Transport.connect("tcp://127.0.0.1:1"));
        assertEquals(Reason.CONNECT, e.reason());
    }
}
