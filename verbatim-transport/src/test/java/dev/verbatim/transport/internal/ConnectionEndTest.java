package dev.verbatim.transport.internal;

import dev.verbatim.transport.TransportException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class ConnectionEndTest {
    @Test
    void aReadThatFindsTheWindowGoneAfterAProtocolFailureReportsTheFailureNotTheClose() {
        // the heartbeat's pump found the violation and closed the connection; the receiver's read then hit the unmapped
        // window (TcpConnectionTest.malformedFramesCloseTheConnectionWithAReason saw CLOSED instead of PROTOCOL once)
        ConnectionEnd end = new ConnectionEnd("test");
        end.protocolFailed(new ProtocolViolation("the peer sent a frame of unknown type 99"));
        end.close();
        RuntimeException e = end.closedOr(new IllegalStateException("Already closed"));
        TransportException t = assertInstanceOf(TransportException.class, e);
        assertEquals(TransportException.Reason.PROTOCOL, t.reason(), t.getMessage());
        assertTrue(t.getMessage().contains("unknown type 99"), t.getMessage());
    }

    @Test
    void aReadThatFindsTheWindowGoneAfterThisSideClosedReportsTheClose() {
        ConnectionEnd end = new ConnectionEnd("test");
        end.close();
        TransportException t = assertInstanceOf(TransportException.class, end.closedOr(new IllegalStateException("Already closed")));
        assertEquals(TransportException.Reason.CLOSED, t.reason());
        IllegalStateException open = new IllegalStateException("not from a close");
        assertSame(open, new ConnectionEnd("open").closedOr(open));
    }
}
