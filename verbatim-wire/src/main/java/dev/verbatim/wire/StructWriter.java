package dev.verbatim.wire;

import java.lang.foreign.MemorySegment;

/**
 * Writes runs of one Java type's objects at their layout offsets. Subclasses are generated once per type
 * by {@link Codegen}: straight-line code per object (field reads through constant method handles that the
 * JIT inlines, the layout's holes zeroed, references through {@link WireWriter#ref}), in a loop over the
 * writer's queue while the next object is of the same type, so a list or an array of records costs one
 * dispatch, not one per object.
 *
 * <p>Thread-safe: stateless.
 */
abstract class StructWriter {
    /**
     * Writes the queued objects {@code w.objects[i..]} while they are of this writer's type, each at the
     * next 8-aligned position from {@code w.pos}, recording each one's object-table entry
     * ({@code entryType | offset - base}); leaves {@code w.pos} after the last.
     *
     * @return the index after the run, or -1 if the next object would not fit before {@code limit}
     */
    abstract int writeRun(WireWriter w, int i, MemorySegment seg, long base, long limit, long entryType);

    /**
     * What {@link #writeRun} does but writing nothing: places the objects the run references in the queue, in
     * the same order, for {@link WireWriter#sizeOf}. A run's objects all have this type's (fixed) size.
     *
     * @return the index after the run
     */
    abstract int sizeRun(WireWriter w, int i);
}
