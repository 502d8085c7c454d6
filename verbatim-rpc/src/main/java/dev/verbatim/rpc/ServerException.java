package dev.verbatim.rpc;

import java.io.Serial;

/**
 * An exception thrown by the called implementation whose class the caller may not instantiate: a
 * message never names a class to load, so only exception types declared by the method's signature
 * (and common JDK runtime exceptions such as {@link IllegalArgumentException}) are recreated; any
 * other arrives as this, with the remote class name, message and cause chain.
 */
public final class ServerException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    private final String remoteClass;

    public ServerException(String remoteClass, String message) {
        super(remoteClass + (message == null ? "" : ": " + message));
        this.remoteClass = remoteClass;
    }

    /** The binary name of the exception's class in the server. */
    public String remoteClass() {
        return remoteClass;
    }
}
