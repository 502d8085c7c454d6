package dev.verbatim.wire;

import java.io.Serial;

/**
 * A message, descriptor or file broke a rule of the wire format. Carries the byte offset where the
 * problem was found (or {@code -1} when it concerns the whole message) and the rule that was broken,
 * so a bad peer or a damaged file can be diagnosed from the exception alone.
 *
 * <p>This is the only exception the validator throws for bad bytes, and the only one a view or the
 * materializer throws when the memory of a validated message changed under it (a shared-memory peer
 * scribbling after validation).
 */
public final class WireFormatException extends RuntimeException {
    @Serial private static final long serialVersionUID = 1L;

    private final long offset;
    private final String rule;

    public WireFormatException(long offset, String rule, String detail) {
        super((offset >= 0 ? "at offset " + offset + ": " : "") + rule + (detail == null || detail.isEmpty() ? "" : " (" + detail + ")"));
        this.offset = offset;
        this.rule = rule;
    }

    /** Byte offset in the message where the broken rule was detected, or -1. */
    public long offset() { return offset; }

    /** The rule that was broken, a short stable phrase such as {@code "reference out of range"}. */
    public String rule() { return rule; }
}
