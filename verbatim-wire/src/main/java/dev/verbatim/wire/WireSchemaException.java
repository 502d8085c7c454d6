package dev.verbatim.wire;

import java.io.Serial;

/**
 * A Java type cannot be carried by Verbatim (an unsupported field type, an interface method that is not an
 * accessor, a missing constructor), or two versions of a type cannot be read as each other. The message
 * names the type and the field. Thrown once, when a type is first bound, never per message.
 */
public final class WireSchemaException extends IllegalArgumentException {
    @Serial private static final long serialVersionUID = 1L;

    public WireSchemaException(String message) { super(message); }

    public WireSchemaException(String message, Throwable cause) { super(message, cause); }
}
