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

    /**
     * What went wrong. A reason crosses the wire (in {@code FAIL} and {@code LOOKUP_FAIL}) as its fixed
     * {@link #code()}, never as its position in this enum: adding or reordering constants does not change
     * the protocol. A code a peer sends that no constant has is a protocol error of that peer.
     */
    public enum Reason {
        /** The call did not complete within its timeout (it may still run on the server). */
        TIMEOUT(0),
        /** The connection closed or the peer process died (the call may or may not have run). */
        CONNECTION(1),
        /** The call was never sent (the connection was already closed, or back-pressure timed out). */
        NOT_SENT(2),
        /** Too many calls are outstanding on the connection. */
        OVERLOADED(3),
        /** No object is exported under the name looked up (or it was unexported). */
        NOT_FOUND(4),
        /** The interface looked up does not match what the server exports under the name. */
        INCOMPATIBLE(5),
        /** The peer sent a malformed message; the connection was closed. */
        PROTOCOL(6),
        /** The call was cancelled by the caller. */
        CANCELLED(7),
        /** An argument or result cannot be carried (too large, or of a type RPC does not pass). */
        ARGUMENT(8),
        /**
         * The object's base is gone: it died or closed, or another incarnation of it answers at its
         * addresses (docs/objects.md §2). Calls to its objects fail at once, and will go on failing.
         */
        GONE(9),
        /**
         * The call was not sent: the calling thread already waits in as many nested calls as a thread may
         * (a chain that comes back runs on the thread waiting in it, and each level holds that thread's
         * stack: docs/rpc.md §4, {@code -Dverbatim.rpc.maxNesting}). Thrown where a local recursion that
         * deep would throw {@link StackOverflowError}, before the stack runs out.
         */
        TOO_DEEP(10);

        private static final Reason[] BY_CODE = new Reason[11];

        static {
            for (Reason r : values()) {
                if (BY_CODE[r.code] != null) {
                    throw new ExceptionInInitializerError("two reasons with code " + r.code);
                }
                BY_CODE[r.code] = r;
            }
        }

        private final int code;

        Reason(int code) {
            this.code = code;
        }

        /** The number this reason has on the wire (fixed: docs/rpc.md §1). */
        public int code() {
            return code;
        }

        /** The reason with wire number {@code code}, or null if there is none (a peer's protocol error). */
        public static Reason ofCode(int code) {
            return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
        }
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
