package dev.verbatim.buffer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.ref.Reference;
import java.util.Objects;

/**
 * The bulk copies of a {@link Buffer}: between its memory and Java arrays, memory segments and
 * other buffers, and fill. The public methods are {@link Buffer}'s ({@code getArray},
 * {@code putArray}, {@code getSegment}, {@code putSegment}, {@code putBuffer}, {@code fill}); this
 * class holds their bodies.
 *
 * <p>Invariants, the same as for {@link Buffer}'s scalar accessors: every copy runs between
 * {@link LeaseState#enter()} and {@link LeaseState#exit()} of each lease it touches (so a release
 * racing on another thread waits for it, or it throws {@link IllegalStateException} and touches
 * nothing), and keeps each buffer reachable until the copy is done
 * ({@link Reference#reachabilityFence}), so the garbage collector cannot end a lease under it.
 * Bounds are checked by {@link MemorySegment#copy} before any byte moves. Stateless.
 */
final class BulkCopy {
    private BulkCopy() {
    }

    /** Copies {@code count} elements of {@code layout} from {@code from} at {@code offset} into the array {@code dst}. */
    static void toArray(Buffer from, long offset, ValueLayout layout, Object dst, int dstIndex, int count) {
        Objects.requireNonNull(dst, "dst");
        LeaseState s = from.state;
        s.enter();
        try {
            MemorySegment.copy(from.segment, layout, offset, dst, dstIndex, count);
        } finally {
            s.exit();
            Reference.reachabilityFence(from);
        }
    }

    /** Copies {@code count} elements of {@code layout} of the array {@code src} into {@code to} at {@code offset}. */
    static void fromArray(Buffer to, long offset, ValueLayout layout, Object src, int srcIndex, int count) {
        Objects.requireNonNull(src, "src");
        LeaseState s = to.state;
        s.enter();
        try {
            MemorySegment.copy(src, srcIndex, to.segment, layout, offset, count);
        } finally {
            s.exit();
            Reference.reachabilityFence(to);
        }
    }

    /**
     * Copies {@code length} bytes from {@code src} at {@code srcOffset} to {@code dst} at
     * {@code dstOffset} inside the lease of {@code guarded}, whose own segment is one of the two.
     */
    static void segments(Buffer guarded, MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset,
                         long length) {
        LeaseState s = guarded.state;
        s.enter();
        try {
            MemorySegment.copy(src, srcOffset, dst, dstOffset, length);
        } finally {
            s.exit();
            Reference.reachabilityFence(guarded);
        }
    }

    /**
     * Copies {@code length} bytes of {@code src} from {@code srcOffset} into {@code to} at
     * {@code offset}, inside both leases (the source's entered first).
     */
    static void fromBuffer(Buffer to, long offset, Buffer src, long srcOffset, long length) {
        Objects.requireNonNull(src, "src");
        LeaseState from = src.state;
        LeaseState into = to.state;
        from.enter();
        try {
            into.enter();
            try {
                MemorySegment.copy(src.segment, srcOffset, to.segment, offset, length);
            } finally {
                into.exit();
            }
        } finally {
            from.exit();
            Reference.reachabilityFence(to);
            Reference.reachabilityFence(src);
        }
    }

    /** Sets {@code length} bytes of {@code to} from {@code offset} to {@code value}. */
    static void fill(Buffer to, long offset, long length, byte value) {
        LeaseState s = to.state;
        s.enter();
        try {
            to.segment.asSlice(offset, length).fill(value);
        } finally {
            s.exit();
            Reference.reachabilityFence(to);
        }
    }
}
