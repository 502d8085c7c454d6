package dev.verbatim.wire;

import java.lang.foreign.MemorySegment;

/**
 * A zero-copy view of a primitive array inside a validated message (the PSOArray of the Jaguar paper).
 * Declare an accessor as {@code ArrayView.OfInt values()} instead of {@code int[] values()} to read the
 * elements where they landed; {@code int[]} returns a copy. Element reads are bounds-checked.
 *
 * <p>A view is valid while the memory of its message is; thread-safe for reads.
 */
public interface ArrayView {
    /** Number of elements. */
    int length();

    /** The elements as a read-only segment (little-endian), no copy. */
    MemorySegment segment();

    interface OfBoolean extends ArrayView { boolean get(int i); boolean[] toArray(); }
    interface OfByte extends ArrayView { byte get(int i); byte[] toArray(); }
    interface OfChar extends ArrayView { char get(int i); char[] toArray(); }
    interface OfShort extends ArrayView { short get(int i); short[] toArray(); }
    interface OfInt extends ArrayView { int get(int i); int[] toArray(); }
    interface OfLong extends ArrayView { long get(int i); long[] toArray(); }
    interface OfFloat extends ArrayView { float get(int i); float[] toArray(); }
    interface OfDouble extends ArrayView { double get(int i); double[] toArray(); }
}
