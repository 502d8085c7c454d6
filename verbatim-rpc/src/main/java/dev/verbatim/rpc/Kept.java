package dev.verbatim.rpc;

import dev.verbatim.buffer.Buffer;
import dev.verbatim.buffer.Buffers;
import dev.verbatim.buffer.Registration;
import dev.verbatim.wire.WireFormatException;
import dev.verbatim.wire.WireReader;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.LongAdder;

/**
 * A view or {@code MemorySegment} argument kept past the call it came with ({@link Node#keep}): its own
 * copy of the argument's bytes, outside the connection's receive memory, readable until {@link #close()}.
 *
 * <p>Lifetime: the copy lives in an off-heap {@link Buffer}. {@link #close()} frees it at once: from then
 * on {@link #get()} and every read through the view or segment it returned (and views, strings and arrays
 * read from them) throw {@link IllegalStateException}; nothing ever reads memory that was given to something
 * else. A {@code Kept} that is never closed is freed by the garbage collector once it and everything read
 * through it are unreachable (the buffer's cleaner, as in jbufs); {@link Node#keptBytes()} counts what is
 * held either way.
 *
 * <p>Why a copy: the connection's receive memory belongs to the connection, which may unmap it when the
 * peer misbehaves or the connection closes; a copy is the only way a kept view can never fault and never
 * hold up the connection (a kept argument holds none of its receive memory, so the peer is never slowed down
 * by it). Keeping costs one copy of the argument's bytes and one validation pass over its objects.
 *
 * <p>Thread-safe: the value may be read from any thread; {@code close} may be called from any thread, once
 * or more.
 *
 * @param <T> the view interface, or {@code MemorySegment}
 */
public final class Kept<T> implements AutoCloseable {
    private static final LongAdder LIVE_BYTES = new LongAdder();
    private static final LongAdder LIVE = new LongAdder();
    private static final ThreadLocal<WireReader> READERS = ThreadLocal.withInitial(WireReader::new);

    private final T value;
    private final Buffer buffer;
    private final long bytes;

    private Kept(T value, Buffer buffer, long bytes) {
        this.value = value;
        this.buffer = buffer;
        this.bytes = bytes;
    }

    /**
     * Copies {@code source} (in place in a receive area, valid while its call runs) and reads the copy as
     * {@code view}, or as a read-only segment when {@code view} is null. A shm peer that truncated the window file
     * under {@code source} makes it a {@link WireFormatException} (the JDK reports the fault as an
     * {@link InternalError}), and nothing is kept.
     */
    @SuppressWarnings("unchecked")
    static <T> Kept<T> copy(MemorySegment source, Class<?> view) {
        long n = source.byteSize();
        Buffer b = Buffers.offHeap(n);
        try {
            MemorySegment s = b.segment().asSlice(0, n);
            try {
                MemorySegment.copy(source, 0, s, 0, n);
            } catch (IllegalStateException e) {
                throw new IllegalStateException("the argument cannot be kept: its connection closed", e);
            }
            MemorySegment ro = s.asReadOnly();
            // validated again: the copy may differ from what was validated (a shm peer writing after it sent)
            Object v = view == null ? ro : READERS.get().validate(ro, b).view(view); // the view keeps b reachable
            b.register(new Counted(n));
            return new Kept<>((T) v, b, n);
        } catch (InternalError e) { // the JDK's report of a fault on a mapping a shm peer truncated: see Truncation
            b.release();
            throw new WireFormatException(-1, "the peer truncated the shared memory under the argument", e.getMessage());
        } catch (RuntimeException | Error e) {
            b.release();
            throw e;
        }
    }

    /**
     * The kept view or segment (the same object every time).
     *
     * @throws IllegalStateException once closed
     */
    public T get() {
        if (buffer.isReleased()) {
            throw new IllegalStateException("the kept argument was closed");
        }
        return value;
    }

    /** The bytes this holds (the argument's wire message, or the segment's length). */
    public long byteSize() {
        return bytes;
    }

    /** False once closed. */
    public boolean isOpen() {
        return !buffer.isReleased();
    }

    /**
     * Frees the copy: the view or segment, and everything read through it, throw {@link IllegalStateException}
     * from now on. Idempotent.
     */
    @Override
    public void close() {
        if (!buffer.isReleased()) {
            try {
                buffer.release();
            } catch (IllegalStateException racedWithAnotherClose) {
                // closed by another thread meanwhile
            }
        }
    }

    @Override
    public String toString() {
        return "Kept[" + bytes + " bytes" + (isOpen() ? "]" : ", closed]");
    }

    static long liveBytes() {
        return LIVE_BYTES.sum();
    }

    static long live() {
        return LIVE.sum();
    }

    /** Counts a kept copy until its buffer ends (closed, or collected). Holds no reference to the buffer. */
    private static final class Counted implements Registration {
        private final long bytes;

        Counted(long bytes) {
            this.bytes = bytes;
            LIVE_BYTES.add(bytes);
            LIVE.increment();
        }

        @Override
        public Object key() {
            return this;
        }

        @Override
        public void deregister() {
            LIVE_BYTES.add(-bytes);
            LIVE.decrement();
        }
    }
}
