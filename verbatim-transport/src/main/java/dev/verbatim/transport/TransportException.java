package dev.verbatim.transport;

import java.io.Serial;
import java.util.Objects;

/**
 * A connection or listener could not do what was asked, for the {@link Reason} given. Unchecked:
 * a transport failure is not something a caller can fix at each call site; the RPC layer above
 * turns it into its own {@code RemoteException}.
 *
 * <p>Hot paths do not throw for ordinary conditions: a full receive window is a {@code null}
 * from {@link Connection#tryClaim(int)} or a bounded wait in {@link Connection#claim(int)}, and
 * "nothing arrived yet" is a {@code null} from {@link Connection#poll()}.
 */
public final class TransportException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** Why an operation failed. */
    public enum Reason {
        /** This side closed the connection or listener. */
        CLOSED,
        /** The peer closed the connection cleanly; everything it sent before was delivered. */
        PEER_CLOSED,
        /** The peer process died or the network dropped the connection (detected within a second). */
        PEER_GONE,
        /** A bounded wait ran out (back-pressure, connect, accept handshake). */
        TIMEOUT,
        /** The peer broke the protocol (a malformed frame or record); the connection was closed. */
        PROTOCOL,
        /** Setting up failed: no listener at the address, address in use, handshake refused. */
        CONNECT,
        /** An I/O error of the operating system. */
        IO,
        /**
         * The peers did not authenticate each other (tcp): they did not prove a shared secret
         * ({@link ConnectionOptions#withSharedSecret(byte[])}: the secrets differ, or only one side
         * has one), or a check of the TLS handshake failed ({@link ConnectionOptions#withTls}: an
         * unknown CA, a certificate expired or not yet valid, a wrong host name, no client
         * certificate, only one side using TLS); the message names the check. Kept apart from
         * {@link #CONNECT} because retrying does not help: the configuration must change.
         */
        AUTH,
        /**
         * The listener refused the connection because it holds as many connections as its limit
         * allows ({@link ConnectionOptions#withListenerLimits}); retrying once some have closed may
         * succeed.
         */
        BUSY
    }

    private final Reason reason;

    public TransportException(Reason reason, String message) {
        super(message);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    public TransportException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    /** Why the operation failed. */
    public Reason reason() {
        return reason;
    }

    @Override
    public String getMessage() {
        return reason + ": " + super.getMessage();
    }
}
