package dev.verbatim.rpc.internal;

import dev.verbatim.rpc.RemoteException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;

import static dev.verbatim.rpc.internal.RpcDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

/** What a receiver of streamed values enforces, piece by piece (docs/rpc.md §7). */
class IncomingStreamsTest {
    private static final ValueKind BYTES = kind("bytes");
    private static final ValueKind SEGMENT = kind("segment");
    private final IncomingStreams streams = new IncomingStreams(64L << 20);

    @SuppressWarnings("unused")
    public interface Kinds {
        void bytes(byte[] b);

        void segment(MemorySegment s);
    }

    private static ValueKind kind(String name) {
        for (var mi : RemoteInterface.of(Kinds.class).methods) {
            if (mi.method.getName().equals(name)) {
                return mi.params[0];
            }
        }
        throw new AssertionError(name);
    }

    @AfterEach
    void close() {
        streams.closeAll();
        assertEquals(0, StreamMemory.held());
        assertEquals(0, StreamMemory.spare(), "the endpoint's close frees its spare block too");
    }

    /** A PIECE of call 7's value 0: {@code n} bytes (each its offset's low byte) at {@code offset} of {@code total}. */
    private static MemorySegment piece(long total, long offset, int n) {
        MemorySegment m = MemorySegment.ofArray(new byte[HEADER + n]);
        putHeader(m, head(PIECE, 0, 0, 0), 7, total, offset);
        for (int i = 0; i < n; i++) {
            m.set(ValueLayout.JAVA_BYTE, HEADER + i, (byte) (offset + i));
        }
        return m;
    }

    @Test
    void piecesInOrderMakeTheValue() {
        streams.onPiece(piece(10_000, 0, 4096));
        streams.onPiece(piece(10_000, 4096, 4096));
        streams.onPiece(piece(10_000, 8192, 10_000 - 8192));
        byte[] b = (byte[]) streams.take(false, 7, 0, BYTES);
        assertEquals(10_000, b.length);
        for (int i = 0; i < b.length; i++) {
            assertEquals((byte) i, b[i]);
        }
        assertEquals(0, StreamMemory.held(), "an array's memory goes as it is copied out");
    }

    @Test
    void aPieceAfterTheEndIsRefusedBeforeAnythingIsReserved() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> streams.onPiece(piece(1024, 0, 2048)));
        assertTrue(e.getMessage().contains("after the end"), e.getMessage());
        assertEquals(0, StreamMemory.held());
    }

    @Test
    void aPieceAfterACompleteStreamIsRefused() {
        streams.onPiece(piece(1024, 0, 1024));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> streams.onPiece(piece(1024, 1024, 8)));
        assertTrue(e.getMessage().contains("after the end"), e.getMessage());
    }

    @Test
    void piecesThatSkipBytesDoNotAddUp() {
        streams.onPiece(piece(4096, 0, 1024));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> streams.onPiece(piece(4096, 2048, 1024)));
        assertTrue(e.getMessage().contains("do not add up"), e.getMessage());
    }

    @Test
    void piecesThatChangeTheSizeDoNotAddUp() {
        streams.onPiece(piece(4096, 0, 1024));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> streams.onPiece(piece(8192, 1024, 1024)));
        assertTrue(e.getMessage().contains("do not add up"), e.getMessage());
    }

    @Test
    void aStreamMustStartAtItsBeginning() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> streams.onPiece(piece(4096, 1024, 1024)));
        assertTrue(e.getMessage().contains("never started"), e.getMessage());
    }

    @Test
    void aValueWhosePiecesDidNotAllComeCannotBeRead() {
        streams.onPiece(piece(4096, 0, 1024));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> streams.take(false, 7, 0, BYTES));
        assertTrue(e.getMessage().contains("do not add up"), e.getMessage());
    }

    @Test
    void aStreamOverTheLimitReservesNothingAndItsValueFailsOverloaded() {
        streams.onPiece(piece(Integer.MAX_VALUE, 0, 4096));
        assertEquals(0, StreamMemory.held(), "refused before anything was reserved");
        assertEquals(0, streams.held());
        RemoteException e = assertThrows(RemoteException.class, () -> streams.take(false, 7, 0, BYTES));
        assertEquals(RemoteException.Reason.OVERLOADED, e.reason());
        assertTrue(e.getMessage().contains(IncomingStreams.LIMIT_PROPERTY), e.getMessage());
    }

    @Test
    void anAnnouncedSizeCostsMemoryOnlyAsItsBytesArrive() throws Exception {
        IncomingStreams big = new IncomingStreams(IncomingStreams.MAX_VALUE);
        try {
            long before = residentBytes();
            big.onPiece(piece(IncomingStreams.MAX_VALUE, 0, 1 << 20)); // 2 GiB announced, 1 MiB sent
            assertEquals(IncomingStreams.MAX_VALUE, StreamMemory.held(), "reserved");
            long grown = residentBytes() - before;
            assertTrue(grown < 256L << 20, "resident memory grew by " + grown + " bytes for a 1 MiB piece of 2 GiB announced");
        } finally {
            big.closeAll();
        }
    }

    private static long residentBytes() throws Exception {
        String[] f = Files.readString(Path.of("/proc/self/statm")).trim().split(" ");
        return Long.parseLong(f[1]) * 4096;
    }

    @Test
    void aSegmentLentToACallIsValidUntilTheCallEnds() {
        streams.onPiece(piece(4096, 0, 4096));
        MemorySegment s = (MemorySegment) streams.take(false, 7, 0, SEGMENT);
        assertEquals((byte) 5, s.get(ValueLayout.JAVA_BYTE, 5));
        streams.endCall(7, false); // a cancel: the call still runs
        assertEquals((byte) 5, s.get(ValueLayout.JAVA_BYTE, 5));
        streams.endCall(7, true);
        assertThrows(IllegalStateException.class, () -> s.get(ValueLayout.JAVA_BYTE, 5));
        assertEquals(0, StreamMemory.held());
    }

    @Test
    void theBlockOfADoneValueIsReusedForTheNext() {
        streams.onPiece(piece(1 << 20, 0, 1 << 20));
        streams.take(false, 7, 0, BYTES);
        assertEquals(1 << 20, StreamMemory.spare());
        streams.onPiece(piece(4096, 0, 4096));
        assertEquals(0, StreamMemory.spare(), "taken for the next stream");
        assertEquals(1 << 20, StreamMemory.held());
    }
}
