package dev.verbatim.buffer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.ref.Reference;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * A region of memory with an explicit life: typed little-endian access at byte offsets, slices,
 * and an explicit {@link #release()} after which no view of it can read or write its memory.
 *
 * <h2>Kinds</h2>
 * One type for three kinds of memory ({@link #kind()}): {@link Kind#HEAP} (a {@code long[]} in
 * the Java heap), {@link Kind#OFF_HEAP} (native memory) and {@link Kind#MAPPED} (a memory-mapped
 * file). Buffers come from {@link Buffers} (one buffer, freed when it ends) or from a
 * {@link BufferPool} (memory reused by later buffers).
 *
 * <h2>Lifetime</h2>
 * A buffer is a <em>lease</em> of memory. The lease ends exactly once: by {@link #release()}, by
 * the garbage collector once no view of it is reachable (the buffer and its slices, and for pooled
 * off-heap buffers also every segment from {@link #segment()}), or by {@link BufferPool#close()}.
 * After the end, every method of every view that reads or writes memory, as well as
 * {@link #segment()}, {@link #slice} and the registration methods, throws
 * {@link IllegalStateException}; {@link #capacity()}, {@link #kind()}, {@link #isReleased()} and
 * {@link #isReadOnly()} keep answering. Memory is reused or freed only after the lease has ended
 * <em>and</em> nothing can observe it:
 * <ul>
 *   <li><b>Off-heap and mapped, unpooled ({@link Buffers}):</b> the memory lives in a shared
 *       {@link java.lang.foreign.Arena} of its own and the buffer's segments are that arena's.
 *       Ending the lease closes the arena: every segment ever handed out (slices included) throws
 *       {@code IllegalStateException} from then on, even one obtained before the release, and the
 *       memory is freed or unmapped in the same step. A segment does not keep the buffer
 *       reachable: hold the buffer while using its segments (a segment whose buffer the collector
 *       reclaimed throws, as after a release).
 *   <li><b>Off-heap, pooled:</b> each lease gets its own shared arena and sees the pool's memory
 *       only through a segment re-scoped to it; ending the lease closes that arena, with the same
 *       effect on segments, and only then does the pool reuse the memory. These segments also
 *       keep the lease reachable. (This takes the restricted method
 *       {@link MemorySegment#reinterpret(long, java.lang.foreign.Arena, java.util.function.Consumer)};
 *       see {@link BufferPool}.)
 *   <li><b>Heap:</b> the JDK cannot revoke a heap segment, so {@link Buffer} methods check the
 *       lease themselves (pooled heap buffers also count in-flight accesses, so a release waits
 *       for a racing access to finish before the array can be reused). A raw segment from
 *       {@link #segment()} stays readable after release, but only ever shows this buffer's own
 *       bytes: an array whose segment was handed out is never given to another buffer.
 * </ul>
 * The JDK's shared-arena close is safe against accesses racing on other threads. A buffer that
 * becomes unreachable without {@link #release()} is reclaimed through a
 * {@link java.lang.ref.Cleaner} (the unRef-with-callback of Javia-II and jbufs): its memory goes
 * back to its pool, or is freed. Relying on this is a leak, not a protocol: the pool counts it in
 * {@link BufferPool.Stats#reclaimedByGc()} and {@link Buffers#reclaimedByGc()}.
 *
 * <h2>Access</h2>
 * Offsets are byte offsets from the start of this view. Scalars are little-endian and may be
 * unaligned. An access outside {@code [0, capacity())} throws {@link IndexOutOfBoundsException};
 * a write to a read-only buffer throws {@link IllegalArgumentException} (as
 * {@link MemorySegment} does). New buffers read as zero, pooled ones included (a pool clears
 * reused memory), except mapped buffers, which show the file.
 *
 * <h2>Thread safety</h2>
 * A buffer may be read and written from several threads; like a Java array it does not order
 * plain accesses between threads (publish through a happens-before edge). {@link #release()} may
 * race with accesses on other threads safely: each racing access either completes on the
 * buffer's own memory or throws {@code IllegalStateException}, and never touches memory that has
 * been given to another buffer.
 *
 * <p>Instances are created only by {@link Buffers} and {@link BufferPool}.
 */
public final class Buffer {

    /** The kind of memory behind a buffer. */
    public enum Kind {
        /** A {@code long[]} in the Java heap ({@link MemorySegment#ofArray(long[])}). */
        HEAP,
        /** Native memory outside the Java heap. */
        OFF_HEAP,
        /** A memory-mapped region of a file. */
        MAPPED
    }

    static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;
    static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfChar CHAR = ValueLayout.JAVA_CHAR_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final Lease lease;
    final LeaseState state;
    final MemorySegment segment;
    /** Offset of this view inside the lease. */
    private final long offsetInLease;
    private final boolean slice;

    Buffer(Lease lease, MemorySegment segment, long offsetInLease, boolean slice) {
        this.lease = lease;
        this.state = lease.state;
        this.segment = segment;
        this.offsetInLease = offsetInLease;
        this.slice = slice;
    }

    LeaseState state() {
        return state;
    }

    // ------------------------------------------------------------------ identity and lifetime

    /** The kind of memory behind this buffer; never changes. */
    public Kind kind() {
        return state.slot.kind;
    }

    /** The size of this view in bytes; never changes, answers after release too. */
    public long capacity() {
        return segment.byteSize();
    }

    /** Whether writes are rejected (a read-only mapping); answers after release too. */
    public boolean isReadOnly() {
        return segment.isReadOnly();
    }

    /** Whether this buffer is a {@link #slice} of another (slices cannot be released themselves). */
    public boolean isSlice() {
        return slice;
    }

    /**
     * Whether the lease of this view has ended (released, reclaimed, or revoked by its pool's
     * close). Once {@code true}, stays {@code true}.
     */
    public boolean isReleased() {
        return state.isEnded();
    }

    /**
     * The memory of this view as a segment of {@link #capacity()} bytes, for code that works on
     * segments directly (the wire format writes and reads here). The segment is valid only while
     * the lease lives: for off-heap and mapped buffers every access through it, or through
     * segments derived from it, throws {@link IllegalStateException} once the lease has ended.
     * Keep this buffer (or a slice) reachable while using the segment: only a pooled off-heap
     * segment keeps its lease from being reclaimed by the garbage collector (see the class
     * comment). A heap segment cannot be revoked by the JDK: it stays readable but is never reused
     * (its array is dropped rather than recycled when the buffer ends). To write a mapped
     * buffer's changes to the device use {@link #force()}.
     *
     * @throws IllegalStateException if the lease has ended
     */
    public MemorySegment segment() {
        state.escape();
        return segment;
    }

    /**
     * A view of {@code length} bytes from {@code offset}, sharing this buffer's memory and
     * lifetime: writes through either are visible through the other, and the slice ends when the
     * buffer it was cut from ends. Slices of slices are allowed.
     *
     * @throws IndexOutOfBoundsException if {@code offset < 0}, {@code length < 0} or
     *         {@code offset + length > capacity()}
     * @throws IllegalStateException if the lease has ended
     */
    public Buffer slice(long offset, long length) {
        state.check("slice");
        MemorySegment s = segment.asSlice(offset, length);
        return new Buffer(lease, s, offsetInLease + offset, true);
    }

    /**
     * Ends the lease: every view (this buffer, its slices, for native kinds every segment handed
     * out) becomes unusable, registrations are deregistered, and the memory goes back to its pool
     * or is freed (unmapped, for a mapped file). Waits for accesses racing on other threads, and
     * for native operations holding the segment (downcalls, asynchronous I/O), to finish.
     *
     * <p>Must be called exactly once, on the buffer returned by {@link Buffers} or
     * {@link BufferPool}; releasing twice is a bug and throws.
     *
     * @throws IllegalStateException if the lease has already ended (double release, or the pool
     *         was closed)
     * @throws UnsupportedOperationException on a slice (release the buffer it was cut from)
     */
    public void release() {
        if (slice) {
            throw new UnsupportedOperationException(
                    "a slice cannot be released; release the buffer it was sliced from");
        }
        try {
            if (!state.end(LeaseState.RELEASED)) {
                throw state.cannotRelease();
            }
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * For a writable mapped buffer, writes the changes in this view's range to the storage
     * device ({@link MemorySegment#force()}); for other buffers, does nothing.
     *
     * @throws IllegalStateException if the lease has ended
     */
    public void force() {
        LeaseState s = state;
        s.enter();
        try {
            if (s.slot.kind == Kind.MAPPED && !s.slot.memory.isReadOnly()) {
                s.slot.memory.asSlice(offsetInLease, capacity()).force();
            }
        } finally {
            s.exit();
            Reference.reachabilityFence(this);
        }
    }

    // ------------------------------------------------------------------ registration

    /**
     * Attaches an opaque registration (a transport's handle for this memory, DESIGN §2) to the
     * lease of this buffer; slices share the lease's registrations. Its
     * {@link Registration#deregister()} runs exactly once, when {@link #deregister(Object)} is
     * called with its key or when the lease ends, after the views became unusable and before the
     * memory is reused or freed. A registration must not hold a strong reference to the buffer
     * or its segment, or the garbage collector can never reclaim the buffer.
     *
     * @throws IllegalStateException if a registration with an equal key is attached, or the lease
     *         has ended
     */
    public void register(Registration registration) {
        state.register(registration);
    }

    /**
     * The registration attached with a key {@link Object#equals equal} to {@code key}, or
     * {@code null} if none.
     *
     * @throws IllegalStateException if the lease has ended
     */
    public Registration registration(Object key) {
        return state.registration(key);
    }

    /**
     * Detaches the registration with key {@code key} and runs its
     * {@link Registration#deregister()}.
     *
     * @return {@code false} if no registration had that key
     * @throws IllegalStateException if the lease has ended (its registrations were already
     *         deregistered)
     */
    public boolean deregister(Object key) {
        return state.deregister(key);
    }

    // ------------------------------------------------------------------ scalars

    /** Reads the byte at {@code offset}. */
    public byte getByte(long offset) {
        LeaseState s = state;
        s.enter();
        try {
            return segment.get(BYTE, offset);
        } finally {
            s.exit();
            Reference.reachabilityFence(this);
        }
    }

    /** Writes the byte at {@code offset}. */
    public void putByte(long offset, byte value) {
        LeaseState s = state;
        s.enter();
        try {
            segment.set(BYTE, offset, value);
        } finally {
            s.exit();
            Reference.reachabilityFence(this);
        }
    }

    /** Reads a little-endian {@code short} at {@code offset} (any alignment). */
    public short getShort(long offset) {
        LeaseState s = state;
        s.enter();
        try {
            return segment.get(SHORT, offset);
        } finally {
            s.exit();
            Reference.reachabilityFence(this);
        }
    }

    /** Writes a little-endian {@code short} at {@code offset} (any alignment). */
    public void putShort(long offset, short value) {
        LeaseState s = state;
        s.enter();
        try {
            segment.set(SHORT, offset, value);
        } finally {
            s.exit();
            Reference.reachabilityFence(this);
        }
    }

    /** Reads a little-endian {@code char} at {@code offset} (any alignment). */
    public char getChar(long offset) {
        LeaseState s = state;
        s.enter();
        try {
            return segment.get(CHAR, offset);
        } finally {
            s.exit();
            Reference.reachabilityFence(this);
        }
    }

    /** Writes a little-endian {@code char} at {@code offset} (any alignment). */
    public void putChar(long offset, char value) {
        LeaseState s = state;
        s.enter();
        try {
            segment.set(CHAR, offset, value);
        } finally {
            s.exit();
            Reference.reachabilityFence(this);
        }
    }

    /** Reads a little-endian {@code int} at {@code offset} (any alignment). */
    public int getInt(long offset) {
        LeaseState s = state;
        s.enter();
        try {
            return segment.get(INT, offset);
        } finally {
            s.exit();
            Reference.reachabilityFence(this);
        }
    }

    /** Writes a little-endian {@code int} at {@code offset} (any alignment). */
    public void putInt(long offset, int value) {
        LeaseState s = state;
        s.enter();
        try {
            segment.set(INT, offset, value);
        } finally {
            s.exit();
            Reference.reachabilityFence(this);
        }
    }

    /** Reads a little-endian {@code long} at {@code offset} (any alignment). */
    public long getLong(long offset) {
        LeaseState s = state;
        s.enter();
        try {
            return segment.get(LONG, offset);
        } finally {
            s.exit();
            Reference.reachabilityFence(this);
        }
    }

    /** Writes a little-endian {@code long} at {@code offset} (any alignment). */
    public void putLong(long offset, long value) {
        LeaseState s = state;
        s.enter();
        try {
            segment.set(LONG, offset, value);
        } finally {
            s.exit();
            Reference.reachabilityFence(this);
        }
    }

    /** Reads a little-endian IEEE 754 {@code float} at {@code offset} (any alignment). */
    public float getFloat(long offset) {
        LeaseState s = state;
        s.enter();
        try {
            return segment.get(FLOAT, offset);
        } finally {
            s.exit();
            Reference.reachabilityFence(this);
        }
    }

    /** Writes a little-endian IEEE 754 {@code float} at {@code offset}; NaN bits are kept. */
    public void putFloat(long offset, float value) {
        LeaseState s = state;
        s.enter();
        try {
            segment.set(FLOAT, offset, value);
        } finally {
            s.exit();
            Reference.reachabilityFence(this);
        }
    }

    /** Reads a little-endian IEEE 754 {@code double} at {@code offset} (any alignment). */
    public double getDouble(long offset) {
        LeaseState s = state;
        s.enter();
        try {
            return segment.get(DOUBLE, offset);
        } finally {
            s.exit();
            Reference.reachabilityFence(this);
        }
    }

    /** Writes a little-endian IEEE 754 {@code double} at {@code offset}; NaN bits are kept. */
    public void putDouble(long offset, double value) {
        LeaseState s = state;
        s.enter();
        try {
            segment.set(DOUBLE, offset, value);
        } finally {
            s.exit();
            Reference.reachabilityFence(this);
        }
    }

    // ------------------------------------------------------------------ bulk: arrays (bodies in BulkCopy)

    /**
     * Copies {@code count} bytes from this buffer at {@code offset} into {@code dst} from index
     * {@code dstIndex}.
     *
     * @throws IndexOutOfBoundsException if either range is out of bounds (nothing is copied)
     */
    public void getArray(long offset, byte[] dst, int dstIndex, int count) {
        BulkCopy.toArray(this, offset, BYTE, dst, dstIndex, count);
    }

    /** Copies {@code count} little-endian shorts from {@code offset} into {@code dst}. */
    public void getArray(long offset, short[] dst, int dstIndex, int count) {
        BulkCopy.toArray(this, offset, SHORT, dst, dstIndex, count);
    }

    /** Copies {@code count} little-endian chars from {@code offset} into {@code dst}. */
    public void getArray(long offset, char[] dst, int dstIndex, int count) {
        BulkCopy.toArray(this, offset, CHAR, dst, dstIndex, count);
    }

    /** Copies {@code count} little-endian ints from {@code offset} into {@code dst}. */
    public void getArray(long offset, int[] dst, int dstIndex, int count) {
        BulkCopy.toArray(this, offset, INT, dst, dstIndex, count);
    }

    /** Copies {@code count} little-endian longs from {@code offset} into {@code dst}. */
    public void getArray(long offset, long[] dst, int dstIndex, int count) {
        BulkCopy.toArray(this, offset, LONG, dst, dstIndex, count);
    }

    /** Copies {@code count} little-endian floats from {@code offset} into {@code dst}. */
    public void getArray(long offset, float[] dst, int dstIndex, int count) {
        BulkCopy.toArray(this, offset, FLOAT, dst, dstIndex, count);
    }

    /** Copies {@code count} little-endian doubles from {@code offset} into {@code dst}. */
    public void getArray(long offset, double[] dst, int dstIndex, int count) {
        BulkCopy.toArray(this, offset, DOUBLE, dst, dstIndex, count);
    }

    /**
     * Copies {@code count} bytes of {@code src} from index {@code srcIndex} into this buffer at
     * {@code offset}.
     *
     * @throws IndexOutOfBoundsException if either range is out of bounds (nothing is copied)
     */
    public void putArray(long offset, byte[] src, int srcIndex, int count) {
        BulkCopy.fromArray(this, offset, BYTE, src, srcIndex, count);
    }

    /** Copies {@code count} shorts of {@code src} into this buffer at {@code offset}, little-endian. */
    public void putArray(long offset, short[] src, int srcIndex, int count) {
        BulkCopy.fromArray(this, offset, SHORT, src, srcIndex, count);
    }

    /** Copies {@code count} chars of {@code src} into this buffer at {@code offset}, little-endian. */
    public void putArray(long offset, char[] src, int srcIndex, int count) {
        BulkCopy.fromArray(this, offset, CHAR, src, srcIndex, count);
    }

    /** Copies {@code count} ints of {@code src} into this buffer at {@code offset}, little-endian. */
    public void putArray(long offset, int[] src, int srcIndex, int count) {
        BulkCopy.fromArray(this, offset, INT, src, srcIndex, count);
    }

    /** Copies {@code count} longs of {@code src} into this buffer at {@code offset}, little-endian. */
    public void putArray(long offset, long[] src, int srcIndex, int count) {
        BulkCopy.fromArray(this, offset, LONG, src, srcIndex, count);
    }

    /** Copies {@code count} floats of {@code src} into this buffer at {@code offset}, little-endian. */
    public void putArray(long offset, float[] src, int srcIndex, int count) {
        BulkCopy.fromArray(this, offset, FLOAT, src, srcIndex, count);
    }

    /** Copies {@code count} doubles of {@code src} into this buffer at {@code offset}, little-endian. */
    public void putArray(long offset, double[] src, int srcIndex, int count) {
        BulkCopy.fromArray(this, offset, DOUBLE, src, srcIndex, count);
    }

    // ------------------------------------------------------------------ bulk: segments, buffers (bodies in BulkCopy)

    /**
     * Copies {@code length} bytes from this buffer at {@code offset} into {@code dst} at
     * {@code dstOffset}. Overlapping ranges are copied as if through a temporary copy.
     *
     * @throws IndexOutOfBoundsException if either range is out of bounds
     * @throws IllegalStateException if this lease has ended, or {@code dst} is not accessible
     */
    public void getSegment(long offset, MemorySegment dst, long dstOffset, long length) {
        Objects.requireNonNull(dst, "dst");
        BulkCopy.segments(this, segment, offset, dst, dstOffset, length);
    }

    /**
     * Copies {@code length} bytes of {@code src} from {@code srcOffset} into this buffer at
     * {@code offset}. Overlapping ranges are copied as if through a temporary copy.
     *
     * @throws IndexOutOfBoundsException if either range is out of bounds
     * @throws IllegalStateException if this lease has ended, or {@code src} is not accessible
     */
    public void putSegment(long offset, MemorySegment src, long srcOffset, long length) {
        Objects.requireNonNull(src, "src");
        BulkCopy.segments(this, src, srcOffset, segment, offset, length);
    }

    /**
     * Copies {@code length} bytes of {@code src} from {@code srcOffset} into this buffer at
     * {@code offset}, without handing out either buffer's segment. {@code src} may be this
     * buffer or share its memory; overlapping ranges are copied as if through a temporary copy.
     *
     * @throws IndexOutOfBoundsException if either range is out of bounds
     * @throws IllegalStateException if either lease has ended
     */
    public void putBuffer(long offset, Buffer src, long srcOffset, long length) {
        BulkCopy.fromBuffer(this, offset, src, srcOffset, length);
    }

    /**
     * Sets {@code length} bytes from {@code offset} to {@code value}.
     *
     * @throws IndexOutOfBoundsException if the range is out of bounds
     */
    public void fill(long offset, long length, byte value) {
        BulkCopy.fill(this, offset, length, value);
    }

    /** A description of the buffer (kind, capacity, whether it is a slice or released). */
    @Override
    public String toString() {
        return "Buffer[" + kind() + ", capacity=" + capacity()
                + (slice ? ", slice at " + offsetInLease : "")
                + (isReleased() ? ", released" : "") + "]";
    }
}
