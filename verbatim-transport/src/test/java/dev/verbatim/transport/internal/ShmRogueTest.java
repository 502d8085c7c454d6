package dev.verbatim.transport.internal;

import dev.verbatim.buffer.Buffer;
import dev.verbatim.transport.Connection;
import dev.verbatim.transport.Listener;
import dev.verbatim.transport.ShmTestDirectory;
import dev.verbatim.transport.Transport;
import dev.verbatim.transport.TransportException;
import dev.verbatim.transport.TransportException.Reason;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.StandardOpenOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A peer that breaks the shm protocol: it does the handshake by hand and then writes bad records
 * straight into the receiver's window. The receiver must reject them with {@code PROTOCOL}, deliver
 * what came before, and close; never crash or hang. Also: garbage on the rendezvous socket.
 */
@Timeout(60)
class ShmRogueTest {
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static ShmTestDirectory shmDirectory;
    private static Path dir;

    @BeforeAll
    static void privateDirectory() {
        shmDirectory = ShmTestDirectory.install("verbatim-rogue-" + ProcessHandle.current().pid());
        dir = shmDirectory.path();
    }

    @AfterAll
    static void cleanUp() throws Exception {
        shmDirectory.remove();
    }

    /** The rogue's end: the receiver's window, mapped for writing, and what it needs to keep alive. */
    record Rogue(MemorySegment window, Buffer own, Buffer peer, SocketChannel control) implements AutoCloseable {
        @Override
        public void close() throws java.io.IOException {
            control.close();
            peer.release();
            own.release();
        }
    }

    static Rogue handshake(String name) throws Exception {
        Truncator t = truncatorHandshake(name);
        t.own().close();
        t.listeners().close();
        return t.rogue();
    }

    /**
     * A rogue that keeps a descriptor of both window files (its own, into which the listener writes, and the
     * listener's, from which the listener reads: opened between the welcome and the acknowledgement, before the
     * listener unlinks it), so that it can truncate either under the live connection.
     */
    record Truncator(Rogue rogue, FileChannel own, FileChannel listeners) implements AutoCloseable {
        @Override
        public void close() throws java.io.IOException {
            own.close();
            listeners.close();
            rogue.close();
        }
    }

    static Truncator truncatorHandshake(String name) throws Exception {
        String areaName = ShmDirectory.newAreaName(name);
        Path ownFile = dir.resolve(areaName);
        Buffer own = ShmWindows.create(ownFile, 2, 64 * 1024, false);
        FileChannel ownChannel = FileChannel.open(ownFile, StandardOpenOption.READ, StandardOpenOption.WRITE);
        SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
        ch.connect(UnixDomainSocketAddress.of(ShmDirectory.socket(dir, name)));
        ch.configureBlocking(false);
        long deadline = System.nanoTime() + 10_000_000_000L;
        ChannelIO.writeFully(ch, new Hello(Hello.KIND_HELLO, ProcessHandle.current().pid(), 2, 64 * 1024, areaName).encode(),
                deadline, "test");
        Hello welcome = ShmTransport.readHello(ch, Hello.KIND_WELCOME, deadline);
        Buffer peer = ShmWindows.mapPeer(dir.resolve(welcome.name()), welcome);
        FileChannel listeners = FileChannel.open(dir.resolve(welcome.name()), StandardOpenOption.READ, StandardOpenOption.WRITE);
        Files.deleteIfExists(ownFile);
        ChannelIO.writeFully(ch, ByteBuffer.wrap(new byte[] {6}), deadline, "test");
        return new Truncator(new Rogue(peer.segment(), own, peer, ch), ownChannel, listeners);
    }

    /** Runs {@code test} on a listener's end of a connection from a {@link Truncator}. */
    void withTruncator(java.util.function.BiConsumer<Connection, Truncator> test) throws Exception {
        String name = "rogue" + NAMES.incrementAndGet();
        try (Listener l = Transport.listen("shm:" + name)) {
            CompletableFuture<Truncator> rogue = CompletableFuture.supplyAsync(() -> {
                try {
                    return truncatorHandshake(name);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            Connection c = l.accept(Duration.ofSeconds(10));
            assertNotNull(c);
            try (Truncator t = rogue.get(); c) {
                test.accept(c, t);
            }
        }
    }

    static void truncate(FileChannel ch) {
        try {
            ch.truncate(0);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static void assertProtocolFailure(org.junit.jupiter.api.function.Executable e) {
        TransportException x = assertThrows(TransportException.class, e);
        assertEquals(Reason.PROTOCOL, x.reason(), x.getMessage());
        assertTrue(x.getMessage().contains("truncated"), x.getMessage());
    }

    @Test
    void aPeerThatTruncatesTheWindowWeSendIntoFailsTheSendWithProtocol() throws Exception {
        withTruncator((c, t) -> {
            c.send(new byte[] {1, 2, 3}, 0, 3);
            truncate(t.own());
            assertProtocolFailure(() -> {
                for (int i = 0; i < 100; i++) c.send(new byte[4000], 0, 4000);
            });
            assertTrue(!c.isOpen(), "the connection closed");
        });
    }

    @Test
    void aPeerThatTruncatesTheWindowWeSendIntoFailsAClaimWithProtocol() throws Exception {
        withTruncator((c, t) -> {
            truncate(t.own());
            assertProtocolFailure(() -> {
                for (int i = 0; i < 100; i++) {
                    c.claim(4000).commit(); // (what the caller writes into the claim is the caller's own access)
                }
            });
        });
    }

    @Test
    void aPeerThatTruncatesTheWindowWeReceiveFromFailsTheReceiveWithProtocol() throws Exception {
        withTruncator((c, t) -> {
            AreaWriter w = new AreaWriter(t.rogue().window(), 8, 2 << 20);
            for (int i = 0; i < 3; i++) {
                t.rogue().window().asSlice(w.payloadOffset(5000), 5000).fill((byte) 7);
                w.publishRelease(AreaDescriptor.TYPE_DATA, 5000);
            }
            truncate(t.listeners());
            assertProtocolFailure(() -> c.receive(Duration.ofSeconds(10)));
            assertTrue(!c.isOpen(), "the connection closed");
        });
    }

    @Test
    void aPeerThatTruncatesTheWindowWeReceiveFromFailsAPollWithProtocol() throws Exception {
        withTruncator((c, t) -> {
            AreaWriter w = new AreaWriter(t.rogue().window(), 8, 2 << 20);
            t.rogue().window().asSlice(w.payloadOffset(5000), 5000).fill((byte) 7);
            w.publishRelease(AreaDescriptor.TYPE_DATA, 5000);
            truncate(t.listeners());
            assertProtocolFailure(() -> c.poll(d -> dev.verbatim.transport.DeliveryHandler.Action.CONTINUE, 10));
        });
    }

    @Test
    void aConnectorMapsOnlyAWindowOfTheNameItDialledMadeByTheListener() throws Exception {
        String name = "rogue" + NAMES.incrementAndGet();
        // a fake listener that welcomes the connector with a window file of another name (a real window)
        String otherArea = "elsewhere." + ProcessHandle.current().pid() + ".1.area";
        Buffer decoy = ShmWindows.create(dir.resolve(otherArea), 2, 64 * 1024, false);
        try (java.nio.channels.ServerSocketChannel server = java.nio.channels.ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(ShmDirectory.socket(dir, name)));
            CompletableFuture<Void> fake = CompletableFuture.runAsync(() -> {
                try (SocketChannel ch = server.accept()) {
                    ch.configureBlocking(false);
                    long deadline = System.nanoTime() + 10_000_000_000L;
                    ShmTransport.readHello(ch, Hello.KIND_HELLO, deadline);
                    ChannelIO.writeFully(ch, new Hello(Hello.KIND_WELCOME, ProcessHandle.current().pid(), 2, 64 * 1024, otherArea)
                            .encode(), deadline, "test");
                    ChannelIO.readFully(ch, ByteBuffer.allocate(1), deadline, "test");
                } catch (Exception e) {
                    // the connector hung up: what it should do
                }
            });
            TransportException e = assertThrows(TransportException.class,
                    () -> Transport.connect("shm:" + name, dev.verbatim.transport.ConnectionOptions.DEFAULT
                            .withConnectTimeout(Duration.ofSeconds(5))).close());
            assertEquals(Reason.CONNECT, e.reason(), e.getMessage());
            assertTrue(e.getMessage().contains("not a window file of shm:" + name), e.getMessage());
            fake.get();
        } finally {
            decoy.release();
            Files.deleteIfExists(dir.resolve(otherArea));
            Files.deleteIfExists(ShmDirectory.socket(dir, name));
        }
    }

    static final long AREA0 = AreaDescriptor.areaBase(0, 2 << 20);

    static void put(MemorySegment w, long at, long word) {
        w.set(ValueLayout.JAVA_LONG, at, word);
    }

    void rejects(Consumer<MemorySegment> scribble, String expected) throws Exception {
        String name = "rogue" + NAMES.incrementAndGet();
        try (Listener l = Transport.listen("shm:" + name)) {
            CompletableFuture<Rogue> rogue = CompletableFuture.supplyAsync(() -> {
                try {
                    return handshake(name);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            Connection c = l.accept(Duration.ofSeconds(10));
            assertNotNull(c);
            try (Rogue r = rogue.get(); c) {
                // one good message first: it is delivered before the bad record is found
                AreaWriter good = new AreaWriter(r.window(), 8, 2 << 20);
                r.window().asSlice(good.payloadOffset(3), 3).copyFrom(MemorySegment.ofArray(new byte[] {7, 8, 9}));
                good.publishRelease(AreaDescriptor.TYPE_DATA, 3);
                long at = AREA0 + good.placement.position();
                scribble.accept(r.window().asSlice(at));
                assertArrayEquals(new byte[] {7, 8, 9}, c.receive(Duration.ofSeconds(10)));
                TransportException e = assertThrows(TransportException.class, () -> c.receive(Duration.ofSeconds(10)));
                assertEquals(Reason.PROTOCOL, e.reason(), e.getMessage());
                assertTrue(e.getMessage().contains(expected), e.getMessage());
                assertTrue(!c.isOpen(), "the connection closed");
                assertEquals(Reason.PROTOCOL, assertThrows(TransportException.class, c::poll).reason());
            }
        }
    }

    @Test
    void aRecordLongerThanItsArea() throws Exception {
        rejects(w -> put(w, 0, AreaDescriptor.headerWord(AreaDescriptor.TYPE_DATA, 3L << 20)), "overruns the area");
    }

    @Test
    void aRecordShorterThanItsHeader() throws Exception {
        rejects(w -> put(w, 0, ((long) AreaDescriptor.TYPE_DATA << 32) | 3), "malformed record header");
    }

    @Test
    void reservedBitsInTheHeader() throws Exception {
        rejects(w -> put(w, 0, AreaDescriptor.headerWord(AreaDescriptor.TYPE_DATA, 8) | (1L << 50)), "malformed record header");
    }

    @Test
    void anUnknownRecordType() throws Exception {
        rejects(w -> put(w, 0, AreaDescriptor.headerWord(42, 0)), "unknown record type 42");
    }

    @Test
    void aNextRecordOutOfRange() throws Exception {
        rejects(w -> {
            put(w, 8, 99);
            put(w, 0, AreaDescriptor.headerWord(AreaDescriptor.TYPE_NEXT, 8));
        }, "NEXT record to area 99");
    }

    @Test
    void aNextRecordIntoTheAreaInUse() throws Exception {
        rejects(w -> {
            put(w, 8, 0);
            put(w, 0, AreaDescriptor.headerWord(AreaDescriptor.TYPE_NEXT, 8));
        }, "NEXT record to area 0");
    }

    @Test
    void aCycleOfNextRecords() throws Exception {
        rejects(w -> {
            long area1 = AreaDescriptor.areaBase(1, 2 << 20) - AREA0 - 16; // relative to the scribble's start
            put(w, area1 + 8, 0);
            put(w, area1, AreaDescriptor.headerWord(AreaDescriptor.TYPE_NEXT, 8)); // area 1 at 0: back to 0
            put(w, 8, 1);
            put(w, 0, AreaDescriptor.headerWord(AreaDescriptor.TYPE_NEXT, 8));         // here: on to area 1
        }, "NEXT record at the start of an area");
    }

    @Test
    void tooManyRegions() throws Exception {
        rejects(w -> {
            for (int i = 0; i < AreaReader.MAX_REGIONS + 1; i++) {
                put(w, 8L * i, AreaDescriptor.headerWord(AreaDescriptor.TYPE_REGION, 0));
            }
        }, "more than 256 regions");
    }

    @Test
    void garbageOnTheRendezvousSocketIsDropped() throws Exception {
        String name = "rogue" + NAMES.incrementAndGet();
        try (Listener l = Transport.listen("shm:" + name, dev.verbatim.transport.ConnectionOptions.DEFAULT
                .withConnectTimeout(Duration.ofSeconds(2)))) {
            for (byte[] junk : List.of(new byte[40], "VRBH but not really a hello at all....".getBytes())) {
                try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                    ch.connect(UnixDomainSocketAddress.of(ShmDirectory.socket(dir, name)));
                    ch.write(ByteBuffer.wrap(junk));
                    assertNull(l.accept(Duration.ofMillis(500)), "garbage is not a connection");
                }
            }
            // a hello naming a file outside the window pattern
            try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                ch.connect(UnixDomainSocketAddress.of(ShmDirectory.socket(dir, name)));
                ch.write(new Hello(Hello.KIND_HELLO, 1, 2, 64 * 1024, "passwd").encode());
                assertNull(l.accept(Duration.ofMillis(500)));
                assertTrue(Rejections.last().contains("not a window file"), Rejections.last());
            }
            var connector = CompletableFuture.supplyAsync(() -> Transport.connect("shm:" + name));
            try (Connection c = l.accept(Duration.ofSeconds(10)); Connection d = connector.get()) {
                d.send(new byte[] {1}, 0, 1);
                assertArrayEquals(new byte[] {1}, c.receive(Duration.ofSeconds(10)), "the listener kept serving");
            }
        }
    }
}
