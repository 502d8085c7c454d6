package dev.verbatim.rpc;

import java.io.Serial;
import java.util.Objects;

/**
 * A call could not be completed for a reason of the distribution itself, never of the called code:
 * the connection failed or the peer died, the call timed out, the server was overloaded, the
 * binding was incompatible or unknown. Exceptions thrown by the called implementation are rethrown
 * as themselves (or as {@link ServerException}), never wrapped in this.
 *
 * <p>Unchecked by design: RPC interfaces are plain Java interfaces, so their methods need not
 * declare it (J-RPC made every method declare a checked {@code RemoteException}, which forced the
 * distribution into every signature and every caller). A caller that must react to remote failure
 * catches it where that makes sense, and {@link #reason()} says which kind of failure it is.
 * Whether a timed-out or failed call ran on the server is unknown unless the reason says
 * {@link Reason#NOT_SENT}.
 */
public class RemoteException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** What went wrong. */
    public enum Reason {
        /** The call did not complete within its timeout (it may still run on the server). */
        TIMEOUT,
        /** The connection closed or the peer process died (the call may or may not have run). */
        CONNECTION,
        /** The call was never sent (the connection was already closed, or back-pressure timed out). */
        NOT_SENT,
        /** Too many calls are outstanding on the connection. */
        OVERLOADED,
        /** No object is exported under the name looked up (or it was unexported). */
        NOT_FOUND,
        /** The interface looked up does not match what the server exports under the name. */
        INCOMPATIBLE,
        /** The peer sent a malformed message; the connection was closed. */
        PROTOCOL,
        /** The call was cancelled by the caller. */
        CANCELLED,
        /** An argument or result cannot be carried (too large, or of a type RPC does not pass). */
        ARGUMENT
    }

    private final Reason reason;

    public RemoteException(Reason reason, String message) {
        super(message);
        this.reason = Objects.requireNonNull(reason);
    }

    public RemoteException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = Objects.requireNonNull(reason);
    }

    public Reason reason() {
        return reason;
    }

    @Override
    public String getMessage() {
        return reason + ": " + super.getMessage();
    }
}
