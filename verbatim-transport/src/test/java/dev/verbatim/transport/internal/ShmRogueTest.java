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
import java.nio.channels.SocketChannel;
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
        String areaName = ShmDirectory.newAreaName(name);
        Path ownFile = dir.resolve(areaName);
        Buffer own = ShmWindows.create(ownFile, 2, 64 * 1024, false);
        SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
        ch.connect(UnixDomainSocketAddress.of(ShmDirectory.socket(dir, name)));
        ch.configureBlocking(false);
        long deadline = System.nanoTime() + 10_000_000_000L;
        ChannelIO.writeFully(ch, new Hello(Hello.KIND_HELLO, ProcessHandle.current().pid(), 2, 64 * 1024, areaName).encode(),
                deadline, "test");
        Hello welcome = ShmTransport.readHello(ch, Hello.KIND_WELCOME, deadline);
        Buffer peer = ShmWindows.mapPeer(dir.resolve(welcome.name()), welcome);
        Files.deleteIfExists(ownFile);
        ChannelIO.writeFully(ch, ByteBuffer.wrap(new byte[] {6}), deadline, "test");
        return new Rogue(peer.segment(), own, peer, ch);
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
