package dev.verbatim.rpc.internal;

import dev.verbatim.rpc.RemoteException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A message whose write into the peer's window the connection's close cuts (the transport closes that memory; the
 * write fails with the {@link IllegalStateException} of closed memory) fails as the close: a call with a typed
 * {@link RemoteException}, an answer by closing the endpoint, never a raw {@code IllegalStateException}. And the
 * thread does not keep an interrupt flag it did not have when it began: on JDK 25 the handshake that closes a shared
 * arena under a thread inside an access leaves that thread interrupted (JDK-8306324, docs/transport.md §4.7), and a
 * caller's next wait would fail as cancelled. A flag the thread had before stays. Over a scripted connection whose
 * claim plays the close at the write: no threads, no timing.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClosedUnderWritesTest {
    /** What the JVM does to a thread writing into memory a close takes away: the flag, then the exception. */
    private static Runnable closeUnderTheWrite(ScriptedConnection connection) {
        return () -> {
            connection.close();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Already closed");
        };
    }

    private static Binding counter(Endpoint endpoint) {
        return new Binding(endpoint, RemoteInterface.of(Parts.Counter.class), 1, false, Duration.ofMinutes(1), null);
    }

    @AfterEach
    void clearFlag() {
        Thread.interrupted(); // (a failed assertion must not leave it to the next test)
    }

    @Test
    void aCallWhoseWriteTheCloseCutsFailsAsTheConnectionAndLeavesNoInterruptBehind() {
        ScriptedConnection connection = new ScriptedConnection();
        Endpoint endpoint = new Endpoint(connection, new Exports(), false, () -> { });
        Binding b = counter(endpoint);
        connection.onSegment = closeUnderTheWrite(connection);

        RemoteException e = assertThrows(RemoteException.class, () -> endpoint.call(b, b.remote.methods[0], new Object[]{1}));
        assertEquals(RemoteException.Reason.CONNECTION, e.reason(), e.getMessage());
        assertInstanceOf(IllegalStateException.class, e.getCause().getCause(), "the close's exception is kept as the cause");
        assertFalse(Thread.currentThread().isInterrupted(), "the caller kept an interrupt nobody sent it");
        assertFalse(connection.claimOpen, "the claim was given back");
        assertTrue(endpoint.calls().mapEmpty(), "the call was forgotten");
        endpoint.closeWith("test over");
    }

    @Test
    void aCallerInterruptedBeforeItsCallKeepsItsFlagWhenTheCloseCutsTheWrite() {
        ScriptedConnection connection = new ScriptedConnection();
        Endpoint endpoint = new Endpoint(connection, new Exports(), false, () -> { });
        Binding b = counter(endpoint);
        connection.onSegment = closeUnderTheWrite(connection);

        Thread.currentThread().interrupt();
        RemoteException e = assertThrows(RemoteException.class, () -> endpoint.call(b, b.remote.methods[0], new Object[]{1}));
        assertEquals(RemoteException.Reason.CONNECTION, e.reason(), e.getMessage());
        assertTrue(Thread.interrupted(), "a genuine interrupt was lost");
        endpoint.closeWith("test over");
    }

    @Test
    void anIllegalStateExceptionWhileTheConnectionIsOpenIsNotTakenForTheClose() {
        ScriptedConnection connection = new ScriptedConnection();
        Endpoint endpoint = new Endpoint(connection, new Exports(), false, () -> { });
        Binding b = counter(endpoint);
        IllegalStateException bug = new IllegalStateException("something else went wrong");
        connection.onSegment = () -> {
            Thread.currentThread().interrupt(); // (whoever set it: not the close's doing, so it stays)
            throw bug;
        };

        assertSame(bug, assertThrows(IllegalStateException.class, () -> endpoint.call(b, b.remote.methods[0], new Object[]{1})));
        assertTrue(Thread.interrupted(), "a flag was cleared though the connection did not close");
        assertTrue(connection.isOpen());
        endpoint.closeWith("test over");
    }

    @Test
    void anAnswerWhoseWriteTheCloseCutsClosesTheEndpointAndLeavesNoInterruptBehind() {
        ScriptedConnection connection = new ScriptedConnection();
        Endpoint endpoint = connection.inlineCounter();
        connection.incoming.add(ScriptedConnection.counterCall(10, 1));
        connection.onSegment = closeUnderTheWrite(connection);

        assertDoesNotThrow(() -> ScriptedConnection.pollOne(endpoint));
        assertFalse(Thread.currentThread().isInterrupted(), "the answering thread kept an interrupt nobody sent it");
        assertFalse(endpoint.isOpen(), "the endpoint closed with its connection");
        assertTrue(connection.sent.isEmpty(), "nothing was sent after the close: " + connection.sent.size());
        assertFalse(connection.claimOpen, "the claim was given back");
    }
}
