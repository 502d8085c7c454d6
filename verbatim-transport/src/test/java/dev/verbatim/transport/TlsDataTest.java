package dev.verbatim.transport;

import dev.verbatim.transport.TransportException.Reason;
import dev.verbatim.transport.internal.TlsStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What TLS protects once connected: records altered on the path, and long streams across key updates. */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class TlsDataTest extends TcpTestBase {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final ConnectionOptions TLS = ConnectionOptions.DEFAULT.withTls(TestPki.TLS);


    /** [accepted, connector], the connector going to {@code address} (the listener's, or a proxy's). */
    private Connection[] pair(Listener l, String address, ConnectionOptions options) throws Exception {
        CompletableFuture<Connection> c = CompletableFuture.supplyAsync(() -> Transport.connect(address, options));
        Connection accepted = l.accept(WAIT);
        assertNotNull(accepted);
        return new Connection[] {closing(accepted), closing(c.get(30, TimeUnit.SECONDS))};
    }

    @Test
    void aRecordAlteredOnThePathClosesTheConnectionOnBothSidesWithAReason() throws Exception {
        Listener l = closing(Transport.listen("tcp://:0", TLS));
        Proxy proxy = closing(new Proxy(l.address()));
        Connection[] c = pair(l, proxy.address(), TLS);
        byte[] m = ConnectionContract.bytes(1000, 1);
        c[1].send(m, 0, m.length);
        assertArrayEquals(m, c[0].receive(WAIT), "untouched, the message arrives");
        proxy.tamper.set(true); // flips the last byte of the next chunk from the connector: a record's tag
        c[1].send(m, 0, m.length);
        TransportException atReceiver = assertThrows(TransportException.class, () -> c[0].receive(WAIT));
        assertEquals(Reason.PROTOCOL, atReceiver.reason(), atReceiver.getMessage());
        assertTrue(atReceiver.getMessage().contains("a TLS record failed"), atReceiver.getMessage());
        assertTrue(!c[0].isOpen(), "the receiver closed the connection");
        // the receiver's alert reaches the sender, which fails with the reason too
        TransportException atSender = assertThrows(TransportException.class, () -> c[1].receive(WAIT));
        assertEquals(Reason.PROTOCOL, atSender.reason(), atSender.getMessage());
        assertTrue(atSender.getMessage().contains("integrity check"), atSender.getMessage());
    }

    @Test
    void oneGibibyteCrossesOneConnectionAcrossKeyUpdatesWithItsContentIntact() throws Exception {
        System.setProperty("verbatim.tls.keyUpdateBytes", String.valueOf(64L << 20));
        Connection[] c;
        try {
            Listener l = closing(Transport.listen("tcp://:0", TLS));
            c = pair(l, l.address(), TLS);
        } finally {
            System.clearProperty("verbatim.tls.keyUpdateBytes");
        }
        int size = 1 << 20;
        int count = 1024; // 1 GiB
        long updatesBefore = TlsStream.keyUpdates();
        long t0 = System.nanoTime();
        CompletableFuture<Void> sender = CompletableFuture.runAsync(() -> {
            for (int i = 0; i < count; i++) {
                Claim claim = c[1].claim(size);
                fill(claim.segment(), i);
                claim.commit();
                if (i % 64 == 63) { // now and then an answer the other way, across the other side's updates too
                    byte[] ack = c[1].receive(WAIT);
                    if (ack == null || ack[0] != (byte) (i / 64)) {
                        throw new AssertionError("ack " + i / 64);
                    }
                }
            }
        });
        for (int i = 0; i < count; i++) {
            Delivery d = c[0].take(WAIT);
            assertNotNull(d, "message " + i);
            assertEquals(size, d.length());
            assertEquals(-1, check(d.payload(), i), "content of message " + i);
            d.release();
            if (i % 64 == 63) {
                byte[] ack = new byte[64 << 10];
                ack[0] = (byte) (i / 64);
                c[0].send(ack, 0, ack.length);
            }
        }
        sender.get(60, TimeUnit.SECONDS);
        long updates = TlsStream.keyUpdates() - updatesBefore;
        System.out.printf("TlsDataTest: 1 GiB over TLS in %.1f s, %d key updates%n", (System.nanoTime() - t0) / 1e9, updates);
        assertTrue(updates >= 15, "key updates every 64 MiB: " + updates);
    }

    private static void fill(MemorySegment s, int message) {
        long seed = message * 0x9E3779B97F4A7C15L;
        for (long o = 0; o < s.byteSize(); o += 8) {
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, o, seed + o);
        }
    }

    /** The offset of the first wrong long, or -1. */
    private static long check(MemorySegment s, int message) {
        long seed = message * 0x9E3779B97F4A7C15L;
        for (long o = 0; o < s.byteSize(); o += 8) {
            if (s.get(ValueLayout.JAVA_LONG_UNALIGNED, o) != seed + o) {
                return o;
            }
        }
        return -1;
    }

    /** A TCP relay on the path, which can alter one byte of what the connector sends. */
    private static final class Proxy implements AutoCloseable {
        final AtomicBoolean tamper = new AtomicBoolean();
        private final ServerSocketChannel server;
        private final List<SocketChannel> sockets = new ArrayList<>();
        private final Thread acceptor;

        Proxy(String target) throws IOException {
            server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
            URI u = URI.create(target);
            InetSocketAddress to = new InetSocketAddress(u.getHost(), u.getPort());
            acceptor = Thread.ofPlatform().daemon().start(() -> {
                try {
                    SocketChannel in = server.accept();
                    SocketChannel out = SocketChannel.open(to);
                    synchronized (sockets) {
                        sockets.add(in);
                        sockets.add(out);
                    }
                    Thread.ofPlatform().daemon().start(() -> relay(in, out, true));
                    relay(out, in, false);
                } catch (IOException ignored) {
                    // closed
                }
            });
        }

        String address() throws IOException {
            return "tcp://127.0.0.1:" + ((InetSocketAddress) server.getLocalAddress()).getPort();
        }

        private void relay(SocketChannel from, SocketChannel to, boolean alter) {
            ByteBuffer b = ByteBuffer.allocate(1 << 16);
            try {
                while (from.read(b) >= 0) {
                    b.flip();
                    if (alter && b.hasRemaining() && tamper.compareAndSet(true, false)) {
                        b.put(b.limit() - 1, (byte) (b.get(b.limit() - 1) ^ 1));
                    }
                    while (b.hasRemaining()) {
                        to.write(b);
                    }
                    b.clear();
                }
                to.shutdownOutput();
            } catch (IOException ignored) {
                // one side closed
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
            synchronized (sockets) {
                for (SocketChannel s : sockets) {
                    s.close();
                }
            }
            try {
                acceptor.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
