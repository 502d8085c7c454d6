package dev.verbatim.transport.internal;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The handshake's {@code peerTimeoutMs} and {@code BUSY} flag (docs/transport.md §5). */
class HelloPeerTimeoutTest {

    private static Hello roundTrip(Hello h) throws ProtocolViolation {
        ByteBuffer b = h.encode();
        ByteBuffer head = b.duplicate().limit(Hello.HEAD);
        int n = Hello.nameLength(head);
        return Hello.decode(head, b.duplicate().position(Hello.HEAD).limit(Hello.HEAD + n), h.kind());
    }

    @Test
    void thePeerTimeoutTravelsInBytes28To31AndZeroLeavesThemAsBefore() throws ProtocolViolation {
        Hello h = new Hello(Hello.KIND_HELLO, 7, 8, 2 << 20, "", 0, 15_000);
        assertEquals(15_000, h.encode().order(ByteOrder.LITTLE_ENDIAN).getInt(Hello.PEER_TIMEOUT_OFFSET));
        assertEquals(h, roundTrip(h));
        assertEquals(0, new Hello(Hello.KIND_HELLO, 7, 8, 2 << 20, "").encode().getInt(Hello.PEER_TIMEOUT_OFFSET));
    }

    @Test
    void aPeerTimeoutBelowTheMinimumOrAboveTwoToThe31IsRefused() {
        ProtocolViolation small = assertThrows(ProtocolViolation.class,
                () -> roundTrip(new Hello(Hello.KIND_HELLO, 7, 8, 2 << 20, "", 0, 10)));
        assertTrue(small.getMessage().contains("below the minimum"), small.getMessage());
        assertThrows(ProtocolViolation.class, () -> roundTrip(new Hello(Hello.KIND_HELLO, 7, 8, 2 << 20, "", 0, -1)));
    }

    @Test
    void busyIsAWelcomeFlag() throws ProtocolViolation {
        Hello busy = roundTrip(new Hello(Hello.KIND_WELCOME, 0, 2, 64 * 1024, "", Hello.FLAG_BUSY));
        assertTrue(busy.busy());
    }
}
