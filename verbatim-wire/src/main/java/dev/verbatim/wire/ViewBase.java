package dev.verbatim.wire;

import java.lang.foreign.MemorySegment;

/**
 * The base of generated view classes: a view is the triple (message, segment, offset of its object).
 * Accessors read fields at constant offsets from {@link #off}; references resolve lazily through the message.
 *
 * <p>Thread-safe for reads; valid while the message's memory is.
 */
abstract class ViewBase {
    final Message msg;
    final MemorySegment seg;
    /** The object's offset in its message (messages are under 2^31 bytes): an int keeps a view at 24 bytes. */
    final int off;

    ViewBase(Message msg, MemorySegment seg, long off) {
        this.msg = msg;
        this.seg = seg;
        this.off = (int) off;
    }

    /** A new view of the same class: the prototype of a binding makes the root views (one virtual call, no handle). */
    abstract ViewBase make(Message msg, MemorySegment seg, long off);

    /** The view interface's type, for writing a view back into a message. */
    abstract JType viewType();

    /** The offset of this view's object in its message. */
    final long offset() { return off; }

    @Override
    public String toString() {
        return viewType().raw.getSimpleName() + "@view(offset " + off + ")";
    }
}
