package dev.verbatim.wire;

import java.lang.foreign.MemorySegment;

/**
 * Writes runs of one Java type's objects at their layout offsets. Subclasses are generated once per type
 * by {@link StructWriterGenerator}: straight-line code per object (field reads through constant method handles that the
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

    /** What {@link #writeChain} returns when the graph is not a chain it can write alone: the general writer then writes it. */
    static final int NOT_A_CHAIN = -2;

    /**
     * Whether this writer's type is a chain type: a record or final class whose one reference field is of its own
     * type (a linked list's node). A graph whose root is of a chain type is a chain: no other object can be reached.
     */
    boolean chains() { return false; }

    /**
     * Writes the chain from {@code head} (of this writer's type) as a whole message's objects, object k being the k-th
     * node, without the identity index or the queue: a chain shares an object only through a cycle, which Brent's
     * algorithm finds as it walks (a compare per node), and then this gives up. Records no object-table entry: node
     * k's is {@code entryType | HEADER_LENGTH + k * A} (A its aligned size), which the writer stores once the count is
     * known.
     *
     * @return the number of objects, or {@link #NOT_A_CHAIN} if a node is of another class, the chain cycles, or it
     *         does not fit before {@code limit} (the general writer then decides)
     */
    int writeChain(WireWriter w, Object head, MemorySegment seg, long base, long limit, long entryType) { return NOT_A_CHAIN; }

    /**
     * Whether this writer's type is flat ({@link FlatWriterGenerator#isFlat}): a record or class whose reference fields
     * all hold leaves, objects that reference nothing (strings, boxes, primitive arrays, records or final classes of
     * primitives and enums such as {@code Instant} and {@code UUID}). A message whose root is of a flat type holds the
     * root and its distinct leaves only.
     */
    boolean flat() { return false; }

    /**
     * Writes a whole message from {@code root} (of this writer's type) without the identity index or the queue: the
     * root, then its distinct non-null leaves in the order the general writer would queue them, each leaf compared by
     * identity with the earlier ones of its class; stores every object-table entry (the root's {@code entryType |
     * HEADER_LENGTH}) and calls {@link WireWriter#finishFlat}.
     *
     * @return the message length, or -1 if it does not fit before {@code limit} (nor would the general writer's)
     */
    long writeFlat(WireWriter w, Object root, MemorySegment seg, long base, long limit, long entryType) {
        throw new UnsupportedOperationException("not a flat type");
    }
}
