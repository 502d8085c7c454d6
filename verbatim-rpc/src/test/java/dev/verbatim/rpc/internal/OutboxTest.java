package dev.verbatim.rpc.internal;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static dev.verbatim.rpc.internal.RpcDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

class OutboxTest {
    /** A body of {@code (Long) what} bytes of 0x5A. */
    private static final CallEncoder.Writer FILL = (e, w, s, at, what) -> s.asSlice(at, (Long) what).fill((byte) 0x5A);

    private static boolean stash(Outbox o, long callId, long body) {
        return o.stash(REPLY_HEADER + body, head(REPLY, 0, 1, 0), callId, FILL, null, body);
    }

    @Test
    void answersLeaveInTheOrderTheyCameEncodedAsTheyWouldHaveBeenSent() {
        Outbox o = new Outbox();
        assertTrue(stash(o, 1, 8));
        assertTrue(stash(o, 2, 0));
        assertTrue(o.stash(HEADER, head(FAIL, 6, 0, 0), 3, CallEncoder.NOTHING, null, null));
        assertEquals(3, o.count());
        assertEquals(REPLY_HEADER + 8 + REPLY_HEADER + HEADER, o.bytes());

        MemorySegment first = o.peek();
        assertEquals(REPLY_HEADER + 8, first.byteSize());
        assertEquals(REPLY, kind(first));
        assertEquals(1, count(first));
        assertEquals(1, callId(first));
        assertEquals(0x5A, first.get(ValueLayout.JAVA_BYTE, REPLY_HEADER));
        assertSame(first, o.peek(), "peek leaves it");
        o.removeFirst();
        assertEquals(2, callId(o.peek()));
        o.removeFirst();
        MemorySegment fail = o.peek();
        assertEquals(FAIL, kind(fail));
        assertEquals(6, flags(fail));
        assertEquals(0, method(fail));
        assertEquals(0, chain(fail));
        o.removeFirst();
        assertNull(o.peek());
        assertEquals(0, o.count());
        assertEquals(0, o.bytes());
    }

    @Test
    void anAnswerThatWouldTakeTheOutboxOverItsLimitIsRefusedAndTheOutboxUnchanged() {
        Outbox o = new Outbox(100);
        assertTrue(stash(o, 1, 40)); // 56 bytes
        assertFalse(stash(o, 2, 40), "56 + 56 > 100: the answering thread must wait for room itself");
        assertEquals(1, o.count());
        assertEquals(56, o.bytes());
        assertTrue(stash(o, 3, 24), "56 + 40 <= 100 still fits");
        assertEquals(96, o.bytes());
        o.removeFirst();
        assertTrue(stash(o, 4, 40), "sending makes room again");
        assertEquals(3, callId(o.peek()));
    }

    @Test
    void theDefaultLimitIsEightMebibytes() {
        Outbox o = new Outbox();
        assertEquals(8L << 20, Outbox.LIMIT);
        assertTrue(stash(o, 1, Outbox.LIMIT - REPLY_HEADER));
        assertFalse(stash(o, 2, 0), "full to the byte");
    }

    @Test
    void aClearedOutboxDropsEverythingAndWhatComesAfter() {
        Outbox o = new Outbox(100);
        stash(o, 1, 8);
        o.clear();
        assertEquals(0, o.count());
        assertNull(o.peek());
        assertTrue(stash(o, 2, 8), "taken, so nobody waits for room on a closed connection");
        assertTrue(stash(o, 3, 1000), "even over the limit");
        assertEquals(0, o.count(), "and dropped");
        assertEquals(0, o.bytes());
    }
}
