package dev.verbatim.wire;

import java.lang.foreign.MemorySegment;

/**
 * Writes the fields of one Java type's objects at their layout offsets. Subclasses are generated once per
 * type by {@link Codegen} (straight-line code, field reads through constant method handles that the JIT
 * inlines); the type id is written by the caller.
 *
 * <p>Thread-safe: stateless.
 */
abstract class StructWriter {
    /** Writes the fields of {@code o} into the object at {@code off}; references go through {@code w}. */
    abstract void write(Object o, MemorySegment seg, long off, WireWriter w);
}
