package dev.verbatim.transport.internal;

import java.io.Serial;

/** The peer broke the record or frame protocol; the connection turns it into {@code PROTOCOL}. */
public final class ProtocolViolation extends Exception {
    @Serial
    private static final long serialVersionUID = 1L;

    public ProtocolViolation(String message) {
        super(message, null, false, false);
    }
}
