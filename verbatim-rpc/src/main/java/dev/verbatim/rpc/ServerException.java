package dev.verbatim.rpc;

import java.io.Serial;

/**
 * An exception thrown by the called implementation whose class the caller may not instantiate: a
 * message never names a class to load, so only exception types declared by the method's signature
 * (and common JDK runtime exceptions such as {@link IllegalArgumentException}) are recreated; any
 * other arrives as this, with the remote class name, message and cause chain.
 *
 * <p>An exporter discloses an exception its method does not declare only if it asks
 * ({@link ExportOptions#withErrorDetails}); otherwise such an exception arrives as its nearest common JDK
 * runtime class, or as this with the remote class {@link #UNDISCLOSED}, and a message saying the details
 * stayed on the server (docs/rpc.md §3).
 */
public final class ServerException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** The {@link #remoteClass()} of an undeclared exception whose export keeps its details. */
    public static final String UNDISCLOSED = "undisclosed";

    private final String remoteClass;

    public ServerException(String remoteClass, String message) {
        super(remoteClass + (message == null ? "" : ": " + message));
        this.remoteClass = remoteClass;
    }

    /** The binary name of the exception's class in the server, or {@link #UNDISCLOSED}. */
    public String remoteClass() {
        return remoteClass;
    }
}
