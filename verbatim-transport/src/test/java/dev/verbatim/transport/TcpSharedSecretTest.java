package dev.verbatim.transport;

import dev.verbatim.transport.TransportException.Reason;
import dev.verbatim.transport.internal.Hello;
import dev.verbatim.transport.internal.Rejections;
import dev.verbatim.transport.internal.SecretExchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shared secret on tcp ({@link ConnectionOptions#withSharedSecret(byte[])}): real sockets, real
 * listeners; where the test plays a peer, it speaks the bytes of docs/transport.md §5.1 itself.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TcpSharedSecretTest extends TcpTestBase {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final byte[] SECRET = "correct horse battery staple 42!".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] OTHER = "correct horse battery staple 43!".getBytes(StandardCharsets.US_ASCII);
    private static final ConnectionOptions WITH = ConnectionOptions.DEFAULT.withSharedSecret(SECRET);

    /** Not the common pool: on 2 cores it has one thread, and one stuck peer would starve the rest. */
    private static final Executor PEERS = Executors.newVirtualThreadPerTaskExecutor();


    /** Connects with {@code options} while the listener accepts; [accepted, connector]. */
    private Connection[] pair(Listener l, ConnectionOptions options) throws Exception {
        CompletableFuture<Connection> connector = CompletableFuture.supplyAsync(() -> Transport.connect(l.address(), options), PEERS);
        Connection accepted = l.accept(WAIT);
        assertNotNull(accepted, "no connection accepted");
        return new Connection[] {closing(accepted), closing(connector.get(30, TimeUnit.SECONDS))};
    }

    private void exchange(Connection[] c, int seed) {
        byte[] m = {(byte) seed, 2, 3};
        c[1].send(m, 0, m.length);
        assertArrayEquals(m, c[0].receive(WAIT));
        c[0].send(m, 0, 1);
        assertArrayEquals(new byte[] {(byte) seed}, c[1].receive(WAIT));
    }

    /** Connects expecting a failure; returns it after checking it came well before {@code limit}. */
    private static TransportException refused(String address, ConnectionOptions options, Duration limit) {
        long t0 = System.nanoTime();
        TransportException e = assertThrows(TransportException.class, () -> Transport.connect(address, options));
        long took = System.nanoTime() - t0;
        assertTrue(took < limit.toNanos(), "failed after " + took / 1_000_000 + " ms: " + e.getMessage());
        return e;
    }

    // ------------------------------------------------------------------ through the API

    @Test
    void theSameSecretConnectsAndMessagesFlowBothWays() throws Exception {
        Listener l = listen(WITH);
        for (int i = 0; i < 3; i++) {
            exchange(pair(l, ConnectionOptions.DEFAULT.withSharedSecret(SECRET.clone())), i);
        }
    }

    @Test
    void aWrongSecretFailsBothSidesAndTheListenerKeepsServing() throws Exception {
        Listener l = listen(WITH.withConnectTimeout(Duration.ofSeconds(10)));
        long before = Rejections.count();
        TransportException e = refused(l.address(), ConnectionOptions.DEFAULT.withSharedSecret(OTHER), Duration.ofSeconds(5));
        assertEquals(Reason.AUTH, e.reason(), e.getMessage());
        assertTrue(e.getMessage().contains("refused this side's proof of the shared secret"), e.getMessage());
        String why = rejection(before, WAIT);
        assertTrue(why.contains("did not prove the shared secret (a wrong proof)"), why);
        assertNull(l.accept(Duration.ofMillis(200)), "the refused connector was not queued");
        exchange(pair(l, WITH), 7);
    }

    @Test
    void aListenerWithASecretRefusesAConnectorWithoutOneAtOnce() throws Exception {
        Listener l = listen(WITH.withConnectTimeout(Duration.ofSeconds(10)));
        long before = Rejections.count();
        TransportException e = refused(l.address(), ConnectionOptions.DEFAULT, Duration.ofSeconds(5));
        assertEquals(Reason.AUTH, e.reason(), e.getMessage());
        assertTrue(e.getMessage().contains("requires a shared secret and this side has none"), e.getMessage());
        String why = rejection(before, WAIT);
        assertTrue(why.contains("the peer did not prove the shared secret: it has none"), why);
        assertNull(l.accept(Duration.ofMillis(200)));
        exchange(pair(l, WITH), 1);
    }

    @Test
    void aConnectorWithASecretRefusesAListenerWithoutOneAtOnce() throws Exception {
        Listener l = listen(ConnectionOptions.DEFAULT.withConnectTimeout(Duration.ofSeconds(10)));
        long before = Rejections.count();
        TransportException e = refused(l.address(), WITH.withConnectTimeout(Duration.ofSeconds(10)), Duration.ofSeconds(5));
        assertEquals(Reason.AUTH, e.reason(), e.getMessage());
        assertTrue(e.getMessage().contains("does not use a shared secret"), e.getMessage());
        String why = rejection(before, WAIT);
        assertTrue(why.contains("the peer requires a shared secret and this listener has none"), why);
        assertNull(l.accept(Duration.ofMillis(200)));
        exchange(pair(l, ConnectionOptions.DEFAULT), 2);
    }

    @Test
    void optionsKeepTheSecretToThemselves() {
        byte[] mine = SECRET.clone();
        ConnectionOptions o = ConnectionOptions.DEFAULT.withSharedSecret(mine);
        Arrays.fill(mine, (byte) 0);
        assertArrayEquals(SECRET, o.sharedSecret(), "copied on the way in");
        o.sharedSecret()[0] ^= 1;
        assertArrayEquals(SECRET, o.sharedSecret(), "copied on the way out");
        String text = o.toString();
        assertFalse(text.contains(new String(SECRET, StandardCharsets.US_ASCII)), text);
        assertFalse(text.contains(HexFormat.of().formatHex(SECRET)), text);
        assertFalse(text.contains(Arrays.toString(SECRET)), text);
        assertTrue(text.contains("sharedSecret=(set)"), text);
        assertEquals(o, ConnectionOptions.DEFAULT.withSharedSecret(SECRET), "equal by content");
        assertNotEquals(o, ConnectionOptions.DEFAULT.withSharedSecret(OTHER));
        assertNotEquals(o, ConnectionOptions.DEFAULT);
        assertEquals(o.hashCode(), ConnectionOptions.DEFAULT.withSharedSecret(OTHER).hashCode(), "the hash ignores the bytes");
        assertEquals(ConnectionOptions.DEFAULT, o.withoutSharedSecret());
        assertTrue(o.withAreas(4, 1 << 20).withSpin(0, true).hasSharedSecret(), "the with* methods keep it");
        assertThrows(IllegalArgumentException.class, () -> ConnectionOptions.DEFAULT.withSharedSecret(new byte[15]));
        assertThrows(NullPointerException.class, () -> ConnectionOptions.DEFAULT.withSharedSecret(null));
    }

    // ------------------------------------------------------------------ the test as the peer

    private static SocketChannel raw(Listener l) throws IOException {
        URI u = URI.create(l.address());
        SocketChannel s = SocketChannel.open(new InetSocketAddress(u.getHost(), u.getPort()));
        s.socket().setSoTimeout(10_000);
        return s;
    }

    private static void write(SocketChannel s, byte[]... parts) throws IOException {
        for (byte[] p : parts) {
            ByteBuffer b = ByteBuffer.wrap(p);
            while (b.hasRemaining()) {
                s.write(b);
            }
        }
    }

    private static byte[] read(SocketChannel s, int n) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(n);
        while (b.hasRemaining()) {
            if (s.read(b) < 0) {
                throw new IOException("end of stream after " + b.position() + " of " + n + " bytes");
            }
        }
        return b.array();
    }

    private static byte[] flaggedHello() {
        ByteBuffer b = new Hello(Hello.KIND_HELLO, 0, 2, 64 * 1024, "", Hello.FLAG_SECRET).encode();
        byte[] a = new byte[b.remaining()];
        b.get(a);
        return a;
    }

    /** The peer closed: end of stream, or a reset when it closed with our bytes unread; never more data. */
    private static void assertClosedByPeer(SocketChannel s) {
        try {
            assertEquals(-1, s.read(ByteBuffer.allocate(64)), "the listener sent nothing more and closed");
        } catch (IOException reset) {
            assertTrue(reset.getMessage().contains("reset"), reset.getMessage());
        }
    }

    /** What a connector sent and received in one exchange with a listener. */
    private record Transcript(byte[] hello, byte[] nonceC, byte[] welcome, byte[] nonceL, byte[] proofC, byte[] proofL) {}

    /** A complete, correct exchange by hand: checks the byte layout of the documentation against the listener. */
    private static Transcript authenticateByHand(Listener l, SocketChannel s) throws IOException {
        byte[] hello = flaggedHello();
        byte[] nonceC = SecretExchange.nonce();
        write(s, hello, nonceC);
        byte[] welcome = read(s, Hello.HEAD);
        byte[] nonceL = read(s, SecretExchange.NONCE);
        assertEquals(Hello.FLAG_SECRET, welcome[Hello.FLAGS_OFFSET], "the WELCOME announces the secret");
        byte[] proofC = SecretExchange.proof(SECRET, "verbatim tcp connector v1", nonceC, nonceL, hello, welcome);
        write(s, proofC);
        byte[] proofL = read(s, SecretExchange.PROOF);
        assertArrayEquals(SecretExchange.proof(SECRET, "verbatim tcp acceptor v1", nonceC, nonceL, hello, welcome), proofL);
        return new Transcript(hello, nonceC, welcome, nonceL, proofC, proofL);
    }

    @Test
    void aConnectorThatStopsOrLiesIsDroppedWithinTheConnectTimeoutAndLearnsNoProof() throws Exception {
        Listener l = listen(WITH.withConnectTimeout(Duration.ofMillis(400)));
        byte[] hello = flaggedHello();
        byte[] garbage = new byte[SecretExchange.NONCE + SecretExchange.PROOF];
        Arrays.fill(garbage, (byte) 0x5A);
        /* welcomed: the listener got the whole nonce, so it answers with its WELCOME and nonce. */
        record Case(String name, int extra, boolean welcomed, String reason) {}
        List<Case> cases = List.of(
                new Case("a HELLO and nothing else", 0, false, "timed out"),
                new Case("half a nonce", 16, false, "timed out"),
                new Case("a nonce and no proof", SecretExchange.NONCE, true, "timed out"),
                new Case("a nonce and half a proof", SecretExchange.NONCE + 16, true, "timed out"),
                new Case("a nonce and a garbage proof", SecretExchange.NONCE + SecretExchange.PROOF, true, "a wrong proof"));
        for (Case c : cases) {
            long before = Rejections.count();
            long t0 = System.nanoTime();
            try (SocketChannel s = raw(l)) {
                write(s, hello, Arrays.copyOf(garbage, c.extra));
                if (c.welcomed) {
                    byte[] welcome = read(s, Hello.HEAD);
                    assertEquals(Hello.FLAG_SECRET, welcome[Hello.FLAGS_OFFSET]);
                    assertEquals(0L, ByteBuffer.wrap(welcome, 8, 8).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(),
                            "no pid for an unauthenticated peer");
                    read(s, SecretExchange.NONCE);
                }
                String why = rejection(before, WAIT);
                assertTrue(why.contains(c.reason), c.name + ": " + why);
                assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(3).toNanos(), c.name + ": dropped late");
                assertClosedByPeer(s);
            }
            assertNull(l.accept(Duration.ofMillis(50)), c.name);
        }
        try (SocketChannel s = raw(l)) {
            authenticateByHand(l, s);
            assertNotNull(closing(l.accept(WAIT)), "a peer that proves the secret by hand is accepted");
        }
        exchange(pair(l, WITH), 3);
    }

    @Test
    void aRecordedConnectorProofIsRefusedInALaterConnection() throws Exception {
        Listener l = listen(WITH.withConnectTimeout(Duration.ofSeconds(2)));
        Transcript t;
        try (SocketChannel s = raw(l)) {
            t = authenticateByHand(l, s);
            assertNotNull(closing(l.accept(WAIT)));
        }
        long before = Rejections.count();
        try (SocketChannel s = raw(l)) { // replays every byte the genuine connector sent
            write(s, t.hello, t.nonceC);
            byte[] welcome = read(s, Hello.HEAD);
            byte[] nonceL = read(s, SecretExchange.NONCE);
            assertArrayEquals(t.welcome, welcome);
            assertFalse(Arrays.equals(t.nonceL, nonceL), "the listener's nonce is fresh");
            write(s, t.proofC);
            String why = rejection(before, WAIT);
            assertTrue(why.contains("a wrong proof"), why);
            assertClosedByPeer(s);
        }
        assertNull(l.accept(Duration.ofMillis(100)));
    }

    /** A fake listener that answers one connector with {@code answer(hello | nonceC, proofC)} after {@code welcome | nonceL}. */
    private CompletableFuture<Void> fakeListener(ServerSocketChannel server, byte[] welcomeAndNonce,
                                                 java.util.function.UnaryOperator<byte[]> proofFor) {
        return CompletableFuture.runAsync(() -> {
            try (SocketChannel s = server.accept()) {
                read(s, Hello.HEAD + SecretExchange.NONCE);
                write(s, welcomeAndNonce);
                if (proofFor != null) {
                    byte[] proofC = read(s, SecretExchange.PROOF);
                    write(s, proofFor.apply(proofC));
                }
                ByteBuffer sink = ByteBuffer.allocate(64);
                while (s.read(sink.clear()) >= 0) {
                    // until the connector closes
                }
            } catch (IOException ignored) {
                // the connector hung up
            }
        }, PEERS);
    }

    @Test
    void aConnectorRefusesARecordedOrReflectedListenerProofAndAListenerThatStalls() throws Exception {
        Listener real = listen(WITH);
        Transcript t;
        try (SocketChannel s = raw(real)) {
            t = authenticateByHand(real, s);
            assertNotNull(closing(real.accept(WAIT)));
        }
        ConnectionOptions connector = WITH.withConnectTimeout(Duration.ofMillis(500));
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress("127.0.0.1", 0));
            String address = "tcp://127.0.0.1:" + ((InetSocketAddress) server.getLocalAddress()).getPort();
            byte[] recorded = concat(t.welcome, t.nonceL);

            CompletableFuture<Void> replay = fakeListener(server, recorded, proofC -> t.proofL);
            TransportException e = refused(address, connector, Duration.ofSeconds(3));
            assertEquals(Reason.AUTH, e.reason(), e.getMessage());
            assertTrue(e.getMessage().contains("did not prove the shared secret"), e.getMessage());
            replay.get(10, TimeUnit.SECONDS);

            CompletableFuture<Void> reflect = fakeListener(server, recorded, proofC -> proofC);
            e = refused(address, connector, Duration.ofSeconds(3));
            assertEquals(Reason.AUTH, e.reason(), "the connector's own proof sent back: " + e.getMessage());
            reflect.get(10, TimeUnit.SECONDS);

            CompletableFuture<Void> stall = fakeListener(server, recorded, null);
            e = refused(address, connector, Duration.ofSeconds(3));
            assertEquals(Reason.TIMEOUT, e.reason(), "a listener that never proves itself: " + e.getMessage());
            stall.get(10, TimeUnit.SECONDS);
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] c = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }
}
