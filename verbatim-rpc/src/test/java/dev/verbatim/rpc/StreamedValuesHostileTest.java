package dev.verbatim.rpc;

import dev.verbatim.rpc.BigApi.Blobs;
import dev.verbatim.rpc.internal.StreamMemory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static dev.verbatim.rpc.FakePeer.frame;
import static dev.verbatim.rpc.FakePeer.method;
import static dev.verbatim.rpc.FakePeer.string;
import static dev.verbatim.rpc.internal.RpcDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * A peer that streams values wrongly (docs/rpc.md §7): over the receiver's limit (a typed refusal, nothing
 * reserved, the connection stays), pieces that do not add up or run past their end (the connection closes),
 * a value naming a stream that never completed, and a connection dropped mid-stream on either side (the
 * call fails with {@code CONNECTION}); in every case the receiver holds nothing afterwards.
 */
@Timeout(120)
class StreamedValuesHostileTest {
    private static final int MIB = 1024 * 1024;
    private Node server;
    private Node client;

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
        System.clearProperty("verbatim.rpc.maxStreamBytes");
    }

    private String serve() {
        server = Node.listen("tcp://127.0.0.1:0");
        server.export("blobs", Blobs.class, new BigApi.BlobsImpl());
        return server.addresses().getFirst();
    }

    /** Waits (10 s at most) for the streamed bytes held in this process to fall to zero. */
    private static void nothingHeldSoon() throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (StreamMemory.held() != 0 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(0, StreamMemory.held(), "nothing streamed is held");
    }

    /** A fake client that looked blobs up: the export id. */
    private static int lookUp(FakePeer peer) {
        var ri = dev.verbatim.rpc.internal.RemoteInterface.of(Blobs.class);
        byte[] ids = MemorySegment.ofArray(ri.ids()).toArray(ValueLayout.JAVA_BYTE);
        peer.send(frame(LOOKUP, 0, 0, 1, 0, string("blobs"), string(Blobs.class.getName()), FakePeer.bytes(ids)));
        return target(peer.next(LOOKUP_OK));
    }

    /** The client looks blobs up from a fake server, which grants export 1. */
    private Blobs lookUpFrom(FakePeer fake) throws Exception {
        CompletableFuture<Blobs> looked = CompletableFuture.supplyAsync(() -> client.lookup(fake.address(), "blobs",
                Blobs.class, Duration.ofSeconds(20)));
        fake.accept();
        MemorySegment l = fake.next(LOOKUP);
        fake.send(frame(LOOKUP_OK, 0, 1, callId(l), 0));
        return looked.get(20, TimeUnit.SECONDS);
    }

    /** A PIECE of value {@code index} of call {@code callId}: {@code n} bytes at {@code offset} of {@code total}. */
    static MemorySegment piece(long callId, int index, long total, long offset, int n) {
        MemorySegment m = MemorySegment.ofArray(new byte[HEADER + n]);
        putHeader(m, head(PIECE, 0, index, 0), callId, total, offset);
        return m;
    }

    /** A CALL of {@code Blobs.sum} naming stream 0. */
    static MemorySegment sumOfStream(int target, long callId) {
        return frame(CALL, 0, target, callId, method(Blobs.class, "sum"), FakePeer.value(T_STREAM, 8, 0));
    }

    @Test
    void anArgumentOverTheReceiversLimitFailsOverloadedNamingItAndTheConnectionStays() {
        System.setProperty("verbatim.rpc.maxStreamBytes", Integer.toString(4 * MIB)); // read as each connection opens
        String address = serve();
        client = Node.create();
        Blobs blobs = client.lookup(address, "blobs", Blobs.class);
        RemoteException e = assertThrows(RemoteException.class, () -> blobs.sum(new byte[8 * MIB]));
        assertEquals(RemoteException.Reason.OVERLOADED, e.reason(), e.getMessage());
        assertTrue(e.getMessage().contains("verbatim.rpc.maxStreamBytes"), e.getMessage());
        assertEquals(0, StreamMemory.held());
        byte[] within = BigApi.fill(3 * MIB, 9);
        assertEquals(BigApi.checksum(MemorySegment.ofArray(within)), blobs.sum(within), "the connection stays");
    }

    @Test
    void aHostileSizeOverTheLimitReservesNothing() {
        System.setProperty("verbatim.rpc.maxStreamBytes", Integer.toString(4 * MIB));
        try (FakePeer peer = FakePeer.connect(serve())) {
            int target = lookUp(peer);
            peer.send(piece(2, 0, Integer.MAX_VALUE, 0, 4096)); // announces 2 GiB
            peer.send(sumOfStream(target, 2));
            MemorySegment r = peer.next(FAIL);
            assertEquals(RemoteException.Reason.OVERLOADED.code(), flags(r), FakePeer.text(r, HEADER));
            assertEquals(0, StreamMemory.held(), "nothing was reserved for it");
        }
    }

    @Test
    void piecesThatDoNotAddUpCloseTheConnection() throws Exception {
        try (FakePeer peer = FakePeer.connect(serve())) {
            lookUp(peer);
            peer.send(piece(2, 0, 8 * MIB, 0, MIB));
            peer.send(piece(2, 0, 8 * MIB, 2 * MIB, MIB)); // skips a mebibyte
            assertTrue(peer.closedByNode(), "the server dropped the connection");
        }
        nothingHeldSoon();
    }

    @Test
    void aPieceAfterTheEndClosesTheConnection() throws Exception {
        try (FakePeer peer = FakePeer.connect(serve())) {
            lookUp(peer);
            peer.send(piece(2, 0, 4096, 0, 4096));
            peer.send(piece(2, 0, 4096, 4096, 8));
            assertTrue(peer.closedByNode(), "the server dropped the connection");
        }
        nothingHeldSoon();
    }

    @Test
    void aCallNamingAStreamThatDidNotCompleteFailsWithProtocol() throws Exception {
        try (FakePeer peer = FakePeer.connect(serve())) {
            int target = lookUp(peer);
            peer.send(piece(2, 0, 8 * MIB, 0, MIB));
            peer.send(sumOfStream(target, 2));
            MemorySegment r = peer.next(FAIL);
            assertEquals(RemoteException.Reason.PROTOCOL.code(), flags(r));
            assertTrue(FakePeer.text(r, HEADER).contains("do not add up"), FakePeer.text(r, HEADER));
            assertTrue(peer.closedByNode());
        }
        nothingHeldSoon();
    }

    @Test
    void aSenderGoneMidStreamLeavesNothingHeld() throws Exception {
        try (FakePeer peer = FakePeer.connect(serve())) {
            lookUp(peer);
            peer.send(piece(2, 0, 64 * MIB, 0, MIB));
            peer.send(piece(2, 0, 64 * MIB, MIB, MIB));
        } // closed: no more pieces, no call
        nothingHeldSoon();
    }

    @Test
    void anotherCallGoesBetweenThePiecesOfALargeArgument() throws Exception {
        client = Node.create();
        FakePeer fake = FakePeer.listen();
        try {
            Blobs blobs = lookUpFrom(fake);
            Thread big = Thread.ofPlatform().start(() -> blobs.sum(new byte[64 * MIB])); // more than the 16 MiB window
            fake.next(PIECE); // the stream is under way; the fake reads no more until the small call waits
            Thread small = Thread.ofPlatform().start(blobs::nothing);
            long deadline = System.nanoTime() + 20_000_000_000L;
            while (small.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
                Thread.sleep(1); // queued for the send lock behind the stream
            }
            int pieces = 1;
            long nothing = method(Blobs.class, "nothing");
            while (true) {
                MemorySegment m = fake.next();
                if (kind(m) == PIECE) {
                    pieces++;
                    continue;
                }
                assertEquals(CALL, kind(m));
                assertEquals(nothing, dev.verbatim.rpc.internal.RpcDescriptor.method(m), "the small call came before the large one's last piece");
                break;
            }
            assertTrue(pieces < 64, "the small call waited " + pieces + " pieces of 64");
            big.interrupt();
        } finally {
            fake.close();
        }
    }

    @Test
    void aReceiverGoneMidStreamFailsTheCallWithConnection() throws Exception {
        client = Node.create();
        FakePeer fake = FakePeer.listen();
        try {
            Blobs blobs = lookUpFrom(fake);
            CompletableFuture<Long> call = CompletableFuture.supplyAsync(() -> blobs.sum(new byte[100 * MIB]));
            fake.next(PIECE);
            fake.close(); // gone after the first piece
            ExecutionException e = assertThrows(ExecutionException.class, () -> call.get(60, TimeUnit.SECONDS));
            RemoteException r = assertInstanceOf(RemoteException.class, e.getCause(), String.valueOf(e.getCause()));
            assertEquals(RemoteException.Reason.CONNECTION, r.reason(), r.getMessage());
        } finally {
            fake.close();
        }
    }
}
