package dev.verbatim.rpc.internal;

import dev.verbatim.rpc.RemoteException;
import dev.verbatim.transport.Delivery;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A delivery that cannot be read (its connection closed under it, its memory gone) is a failure of the
 * connection, not of the thread that read it: the message switch closes the endpoint and every waiting
 * call fails with a {@link RemoteException}, never an {@code IllegalStateException} thrown at whoever
 * happened to read. Over a scripted connection.
 */
class UnreadableDeliveryTest {
    /** A delivery whose payload is {@code payload}'s answer (a segment, or an exception thrown). */
    private static Delivery delivery(Supplier<MemorySegment> payload) {
        return new ScriptedConnection.Message(null) {
            @Override
            public MemorySegment payload() {
                return payload.get();
            }
        };
    }

    private static void closesAndFailsCallsTyped(Delivery d) {
        ScriptedConnection c = new ScriptedConnection();
        Endpoint e = new Endpoint(c, new Exports(), false, () -> { });
        PendingCall p = new PendingCall(e, 1, null, TimeUnit.MINUTES.toNanos(1), 0, null);
        e.calls().add(p, false);
        boolean kept = assertDoesNotThrow(() -> e.handle(d, true), "the reading thread is not the one to fail");
        assertFalse(kept);
        assertFalse(e.isOpen(), "the endpoint closed");
        assertTrue(c.closed, "and its connection");
        assertTrue(p.isCompletedExceptionally());
        RemoteException r = assertInstanceOf(RemoteException.class, p.exceptionNow());
        assertEquals(RemoteException.Reason.CONNECTION, r.reason(), r.getMessage());
    }

    @Test
    void aDeliveryWhosePayloadIsGoneClosesTheConnectionAndFailsItsCallsWithARemoteException() {
        closesAndFailsCallsTyped(delivery(() -> {
            throw new IllegalStateException("the connection was closed: its received messages are gone");
        }));
    }

    @Test
    void aPayloadWhoseMemoryWasUnmappedClosesTheConnectionAndFailsItsCallsWithARemoteException() {
        Arena arena = Arena.ofShared();
        MemorySegment m = arena.allocate(64);
        arena.close(); // as a window unmapped when the transport closed
        closesAndFailsCallsTyped(delivery(() -> m));
    }

    @Test
    void aPayloadWhoseMappingThePeerTruncatedClosesTheConnectionAndFailsItsCallsWithARemoteException() throws Exception {
        java.nio.file.Path file = java.nio.file.Files.createTempFile("verbatim-truncated", ".area");
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file,
                java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE);
             Arena arena = Arena.ofShared()) {
            MemorySegment m = ch.map(java.nio.channels.FileChannel.MapMode.READ_WRITE, 0, 4096, arena);
            m.set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, 1L); // touched while the file still has the page
            ch.truncate(0); // as a shm peer that truncates the window file under the mapping (the JDK: InternalError)
            closesAndFailsCallsTyped(delivery(() -> m));
        } finally {
            java.nio.file.Files.deleteIfExists(file);
        }
    }
}
