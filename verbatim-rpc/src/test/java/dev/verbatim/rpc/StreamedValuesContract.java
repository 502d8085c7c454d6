package dev.verbatim.rpc;

import dev.verbatim.rpc.BigApi.Blobs;
import dev.verbatim.rpc.BigApi.BlobsImpl;
import dev.verbatim.rpc.internal.StreamMemory;
import dev.verbatim.transport.ConnectionOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static dev.verbatim.rpc.BigApi.checksum;
import static dev.verbatim.rpc.BigApi.fill;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Arrays and segments larger than the peer's receive area, as arguments and results (docs/rpc.md §7),
 * over each transport: streamed in pieces, whole at the other end, and nothing held once the call is over.
 */
@Timeout(120)
abstract class StreamedValuesContract {
    static final int MIB = 1024 * 1024;

    Node server;
    Node client;
    Blobs blobs;
    BlobsImpl impl;

    abstract String address();

    ConnectionOptions options() {
        return Node.DEFAULT_OPTIONS;
    }

    @BeforeEach
    void start() {
        server = Node.listen(options(), address());
        impl = new BlobsImpl();
        server.export("blobs", Blobs.class, impl);
        client = Node.create(options(), 1);
        blobs = client.lookup(server.addresses().getFirst(), "blobs", Blobs.class);
    }

    @AfterEach
    void stop() {
        client.close();
        server.close();
    }

    static void nothingHeld() {
        assertEquals(0, StreamMemory.held(), "no streamed value is held once its call is over");
    }

    @Test
    void aHundredMebibyteArrayArgumentArrivesWhole() {
        byte[] b = fill(100 * MIB, 1);
        assertEquals(checksum(MemorySegment.ofArray(b)), blobs.sum(b));
        nothingHeld();
    }

    @Test
    void aHundredMebibyteSegmentArgumentIsReadInPlaceDuringTheCall() {
        byte[] b = fill(100 * MIB + 3, 2);
        assertEquals(checksum(MemorySegment.ofArray(b)), blobs.sumSegment(MemorySegment.ofArray(b)));
        nothingHeld();
    }

    @Test
    void aHundredMebibyteArrayResultArrivesWhole() {
        assertArrayEquals(fill(100 * MIB, 3), blobs.make(100 * MIB, 3));
        nothingHeld();
    }

    @Test
    void aHundredMebibyteSegmentResultArrivesWhole() {
        MemorySegment r = blobs.makeSegment(100 * MIB - 5, 4);
        assertEquals(checksum(MemorySegment.ofArray(fill(100 * MIB - 5, 4))), checksum(r));
        nothingHeld();
    }

    @Test
    void arraysOfOtherPrimitivesStreamBothWays() {
        int[] ints = new int[5 * MIB]; // 20 MiB
        long s = 0;
        for (int i = 0; i < ints.length; i++) {
            ints[i] = i * 7 - 3;
            s += ints[i];
        }
        assertEquals(s, blobs.sumInts(ints));
        long[] longs = blobs.longs(3 * MIB, 5); // 24 MiB
        assertEquals(3 * MIB, longs.length);
        for (int i = 0; i < longs.length; i++) {
            if (longs[i] != i * 5L) {
                throw new AssertionError("long " + i + " is " + longs[i]);
            }
        }
        nothingHeld();
    }

    @Test
    void aStreamedSegmentIsValidForTheCallOnly() {
        assertEquals("none", blobs.readAfter(MemorySegment.ofArray(fill(8 * MIB, 5))));
        MemorySegment after = impl.lastSegment;
        assertThrows(IllegalStateException.class, () -> after.get(ValueLayout.JAVA_BYTE, 0),
                "its memory went with the call");
        nothingHeld();
    }

    @Test
    void otherCallsGoBetweenThePiecesOfALargeArgument() throws Exception {
        byte[] b = fill(200 * MIB, 6);
        CompletableFuture<Long> big = CompletableFuture.supplyAsync(() -> blobs.sum(b));
        // calls of another thread are not held up for the whole stream: they complete, and the big one too
        for (int i = 0; i < 100; i++) {
            blobs.nothing();
        }
        assertEquals(checksum(MemorySegment.ofArray(b)), big.get(100, TimeUnit.SECONDS));
        nothingHeld();
    }

    @Test
    void smallValuesStillTravelInOneMessage() {
        byte[] b = fill(1000, 7);
        assertEquals(checksum(MemorySegment.ofArray(b)), blobs.sum(b));
        assertTrue(StreamMemory.held() == 0);
    }
}
