package dev.verbatim.rpc.internal;

import dev.verbatim.rpc.RemoteException.Reason;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Map;

import static dev.verbatim.rpc.internal.RpcDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

/** Every number of the RPC protocol that crosses the wire, pinned: changing one breaks every older peer. */
class WireCodesTest {
    @Test
    void reasonsTravelAsTheirFixedCodes() {
        Map<Reason, Integer> codes = Map.ofEntries(Map.entry(Reason.TIMEOUT, 0), Map.entry(Reason.CONNECTION, 1),
                Map.entry(Reason.NOT_SENT, 2), Map.entry(Reason.OVERLOADED, 3), Map.entry(Reason.NOT_FOUND, 4),
                Map.entry(Reason.INCOMPATIBLE, 5), Map.entry(Reason.PROTOCOL, 6), Map.entry(Reason.CANCELLED, 7),
                Map.entry(Reason.ARGUMENT, 8), Map.entry(Reason.GONE, 9), Map.entry(Reason.TOO_DEEP, 10));
        assertEquals(Reason.values().length, codes.size(), "every reason has a pinned code");
        codes.forEach((r, c) -> {
            assertEquals(c, r.code(), r.name());
            assertSame(r, Reason.ofCode(c));
        });
    }

    @Test
    void aReasonCodeNoReasonHasIsUnknownNotAnException() {
        for (int c : new int[] {-1, -128, 11, 127, 255, Integer.MAX_VALUE}) {
            assertNull(Reason.ofCode(c), "code " + c);
        }
    }

    @Test
    void kindsFlagsTagsAndSidesKeepTheirNumbers() {
        assertArrayEquals(new int[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
                new int[] {LOOKUP, LOOKUP_OK, LOOKUP_FAIL, CALL, REPLY, THROWN, FAIL, RELEASE, CANCEL, PIECE});
        assertEquals(1, PIECE_OF_REPLY);
        assertEquals(1, TO_OBJECT);
        assertEquals(2, TO_SHARED);
        assertArrayEquals(new int[] {0, 1, 2, 3, 4, 5, 6, 7},
                new int[] {T_NULL, T_PRIM, T_WIRE, T_BYTES, T_REGION, T_REMOTE, T_SHARED, T_STREAM});
        assertArrayEquals(new int[] {0, 1, 2}, new int[] {SIDE_SENDER, SIDE_RECEIVER_OBJECT, SIDE_RECEIVER_EXPORT});
    }

    @Test
    void theHeaderLayoutKeepsItsOffsetsAndSizes() {
        assertArrayEquals(new int[] {0, 1, 2, 4, 8, 16, 24, 32, 16, 8},
                new int[] {KIND, FLAGS, COUNT, TARGET, CALL_ID, METHOD, CHAIN, HEADER, REPLY_HEADER, VALUE_HEADER});
        assertEquals(8 * 1024, REGION_THRESHOLD);
        assertEquals(16, headerOf(REPLY));
        for (int k : new int[] {LOOKUP, LOOKUP_OK, LOOKUP_FAIL, CALL, THROWN, FAIL, RELEASE, CANCEL, PIECE}) {
            assertEquals(32, headerOf(k));
        }
        assertEquals(8, span(0));
        assertEquals(16, span(1));
        assertEquals(16, span(8));
        assertEquals(24, span(9));
    }

    @Test
    void theHeadWordIsTheFieldsAsTheyLieInTheFirstEightBytes() {
        MemorySegment a = MemorySegment.ofArray(new byte[HEADER]);
        putHeader(a, head(CALL, TO_OBJECT, 0xBEEF, -2), 0x0102030405060708L, 0x1112131415161718L, -3);
        MemorySegment b = MemorySegment.ofArray(new byte[HEADER]);
        b.set(ValueLayout.JAVA_BYTE, KIND, (byte) CALL);
        b.set(ValueLayout.JAVA_BYTE, FLAGS, (byte) TO_OBJECT);
        b.set(ValueLayout.JAVA_SHORT_UNALIGNED, COUNT, (short) 0xBEEF);
        b.set(ValueLayout.JAVA_INT_UNALIGNED, TARGET, -2);
        b.set(ValueLayout.JAVA_LONG_UNALIGNED, CALL_ID, 0x0102030405060708L);
        b.set(ValueLayout.JAVA_LONG_UNALIGNED, METHOD, 0x1112131415161718L);
        b.set(ValueLayout.JAVA_LONG_UNALIGNED, CHAIN, -3);
        assertArrayEquals(b.toArray(ValueLayout.JAVA_BYTE), a.toArray(ValueLayout.JAVA_BYTE));
        assertEquals(CALL, kind(a));
        assertEquals(TO_OBJECT, flags(a));
        assertEquals(0xBEEF, count(a));
        assertEquals(-2, target(a));
        assertEquals(0x0102030405060708L, callId(a));
        assertEquals(0x1112131415161718L, method(a));
        assertEquals(-3, chain(a));
    }

    @Test
    void aReplyHeaderIsSixteenBytesAndWritesNothingPastThem() {
        byte[] bytes = new byte[HEADER];
        Arrays.fill(bytes, (byte) 0x77);
        MemorySegment m = MemorySegment.ofArray(bytes);
        putHeader(m, head(REPLY, 0, 1, 0), 9, 123, 456);
        assertEquals(REPLY, kind(m));
        assertEquals(9, callId(m));
        for (int i = REPLY_HEADER; i < HEADER; i++) {
            assertEquals(0x77, bytes[i], "byte " + i + " is the reply's value, not its header");
        }
    }

    @Test
    void aMessageShorterThanItsKindsHeaderIsMalformed() {
        assertEquals(-1, checkHeader(MemorySegment.ofArray(new byte[15])));
        MemorySegment reply = MemorySegment.ofArray(new byte[16]);
        putHeader(reply, head(REPLY, 0, 0, 0), 1, 0, 0);
        assertEquals(REPLY, checkHeader(reply));
        MemorySegment call = MemorySegment.ofArray(new byte[31]);
        call.set(ValueLayout.JAVA_BYTE, KIND, (byte) CALL);
        assertEquals(-1, checkHeader(call));
        assertEquals(CALL, checkHeader(MemorySegment.ofArray(new byte[32]).fill((byte) CALL)));
    }

    @Test
    void aValueOverrunningItsMessageIsRefused() {
        MemorySegment m = MemorySegment.ofArray(new byte[HEADER + 16]);
        putValueHeader(m, HEADER, T_BYTES, 8);
        assertEquals(HEADER + 16, checkValue(m, HEADER));
        putValueHeader(m, HEADER, T_BYTES, 9);
        assertThrows(IllegalArgumentException.class, () -> checkValue(m, HEADER));
        putValueHeader(m, HEADER, T_BYTES, -1); // u32: 4 GiB
        assertThrows(IllegalArgumentException.class, () -> checkValue(m, HEADER));
    }
}
