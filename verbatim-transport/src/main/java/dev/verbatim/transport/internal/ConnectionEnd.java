package dev.verbatim.transport.internal;

import dev.verbatim.transport.TransportException;
import dev.verbatim.transport.TransportException.Reason;

/**
 * Whether a {@link BaseConnection} can still be used and, once it cannot, why, with the {@link TransportException}
 * that says so (docs/transport.md §4.4, §6): this side closed it ({@code CLOSED}), the peer closed it cleanly
 * ({@code PEER_CLOSED}) or vanished ({@code PEER_GONE}), or the protocol failed ({@code PROTOCOL}, which also closes
 * it). Each cause is set once, by whichever thread learns of it (the application's, the pump, a watchdog, the
 * heartbeat), and read by every other.
 *
 * <p>It is kept apart from the connection's sending and receiving because those are per message and this is once per
 * life, and it costs them one read: the per-message paths look at {@link #ended()} alone, and at the rest
 * ({@link #throwIfUnsendable}) only once it is set. Thread-safe: every field is volatile; {@link #close} is the one check-and-set, under this object's monitor.
 */
final class ConnectionEnd {
    private static final int PEER_OPEN = 0;
    private static final int PEER_CLOSED = 1;
    private static final int PEER_GONE = 2;

    private final String description;
    private volatile boolean closed;
    private volatile int peerState = PEER_OPEN;
    private volatile String peerReason;
    private volatile String protocolFailure;
    /**
     * Zero while the connection is usable; set once (after the field that says why) when this side
     * closes, the peer ends or the protocol fails. The per-message paths read only this word and
     * take the slow paths that read the others when it is set.
     */
    private volatile int ended;

    ConnectionEnd(String description) {
        this.description = description;
    }

    /** Whether anything ended the connection (the one word the per-message paths read). */
    boolean ended() {
        return ended != 0;
    }

    /** Whether this side closed the connection. */
    boolean closed() {
        return closed;
    }

    /** Whether the peer has neither closed nor vanished (nothing is said of this side). */
    boolean peerOpen() {
        return peerState == PEER_OPEN;
    }

    /** Whether the connection is usable: not closed, the peer there, the protocol kept. */
    boolean open() {
        return !closed && peerState == PEER_OPEN && protocolFailure == null;
    }

    /** Marks the connection closed by this side; true the first time only (the caller then releases what it holds). */
    synchronized boolean close() {
        if (closed) {
            return false;
        }
        closed = true;
        ended = 1;
        return true;
    }

    /** The peer closed cleanly ({@code clean}) or vanished, for {@code reason}; only the first end counts. */
    void peerEnded(boolean clean, String reason) {
        if (peerState == PEER_OPEN) {
            peerReason = reason;
            peerState = clean ? PEER_CLOSED : PEER_GONE;
            ended = 1;
        }
    }

    /** The protocol failed, as {@code v} says; returns the exception to throw (the caller closes the connection). */
    TransportException protocolFailed(ProtocolViolation v) {
        protocolFailure = v.getMessage();
        ended = 1;
        return new TransportException(Reason.PROTOCOL, description + ": " + v.getMessage() + "; the connection was closed");
    }

    /** Throws what ended the connection, if this side closed it or the protocol failed (the cause rather than the close). */
    void throwIfClosedOrFailed() {
        if (protocolFailure != null) { // the cause of the close, rather than the close
            throw protocolException();
        }
        if (closed) {
            throw closedException();
        }
    }

    /** Throws what ended the connection, if anything did: nothing more can be sent. */
    void throwIfUnsendable() {
        throwIfClosedOrFailed();
        int p = peerState;
        if (p != PEER_OPEN) {
            throw peerFailure(p);
        }
    }

    /** What the peer's end means to a caller: {@code PEER_CLOSED} or {@code PEER_GONE}, with the peer's reason. */
    TransportException peerFailure() {
        return peerFailure(peerState);
    }

    private TransportException peerFailure(int p) {
        return p == PEER_CLOSED
                ? new TransportException(Reason.PEER_CLOSED, description + ": the peer closed the connection"
                        + (peerReason == null ? "" : " (" + peerReason + ")"))
                : new TransportException(Reason.PEER_GONE, description + ": the peer is gone"
                        + (peerReason == null ? "" : " (" + peerReason + ")"));
    }

    /**
     * An {@link IllegalStateException} from memory unmapped by a concurrent close becomes what ended the connection:
     * {@code PROTOCOL} if a protocol failure closed it (another thread's pump found it: the heartbeat's), else
     * {@code CLOSED}.
     */
    RuntimeException closedOr(IllegalStateException e) {
        if (!closed) {
            return e;
        }
        return protocolFailure != null ? protocolException() : closedException();
    }

    private TransportException protocolException() {
        return new TransportException(Reason.PROTOCOL, description + ": " + protocolFailure);
    }

    private TransportException closedException() {
        return new TransportException(Reason.CLOSED, description + " is closed");
    }
}
