package dev.verbatim.rpc.internal;

import dev.verbatim.buffer.internal.LazyMemory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Off-heap memory that a streamed value is assembled in (docs/rpc.md §7): reserved at the size the sender
 * announced, but paid for only as its bytes arrive. On Linux it is an anonymous private mapping made with
 * {@code MAP_NORESERVE} ({@link LazyMemory}, shared with the transport's tcp window): the kernel commits (and zeroes) a page
 * when a piece is first copied into it, so a peer that announces 2 GiB and sends one piece costs the
 * receiver that piece, not 2 GiB. Elsewhere, or without native access for this module ({@code --enable-native-access}, as the launcher
 * and the tests give), the memory is allocated (and zeroed) at once from a shared arena, within the
 * receiver's limit all the same.
 *
 * <p>A block is reused: an endpoint keeps the last one freed (up to a size) for its next streamed value, whose
 * pages are then committed already (the first touch of a fresh page costs a fault and the kernel's zeroing:
 * for 64 MiB, more than the copy). Each use reads it through a {@linkplain #view view} of its own arena,
 * closed when the use ends.
 *
 * <p>Invariant: {@link #held()} plus {@link #spare()} is the sum of the sizes of the blocks allocated and not
 * yet closed, in this process; every block is closed exactly once (when not kept, or by its endpoint's close).
 * Thread-safe.
 */
public final class StreamMemory implements AutoCloseable {
    private static final AtomicLong HELD = new AtomicLong();

    private static final AtomicLong SPARE = new AtomicLong();

    private final Arena arena = Arena.ofShared();
    private final MemorySegment segment;
    private boolean closed;
    /** Kept for reuse by its endpoint (counted in {@link #spare()}, not {@link #held()}). */
    private boolean spare;

    /** Reserves {@code size} bytes (more than 0). */
    StreamMemory(long size) {
        MemorySegment s = LazyMemory.map(size, arena, true);
        segment = s != null ? s : arena.allocate(size, 4096);
        HELD.addAndGet(size);
    }

    /**
     * The first {@code size} bytes of the block as a segment of the arena {@code use}: closing {@code use}
     * ends every access through it (a value lent to a call is valid for the call only, even though the block
     * itself is reused afterwards).
     */
    @SuppressWarnings("restricted")
    MemorySegment view(long size, Arena use) {
        if (!reusable()) {
            return segment.asSlice(0, size); // no native access: the block is used once, and closing it ends the view
        }
        return MemorySegment.ofAddress(segment.address()).reinterpret(size, use, null);
    }

    /**
     * Whether the block may serve another value after this one: only where views of their own arena can be
     * made of it (a restricted method, as the mapping is: with native access).
     */
    static boolean reusable() {
        return LazyMemory.available();
    }

    /** The block is kept for reuse ({@code true}) or taken back into use: moves it between the two counts. */
    synchronized void spare(boolean kept) {
        if (!closed && spare != kept) {
            spare = kept;
            long n = segment.byteSize();
            (kept ? SPARE : HELD).addAndGet(n);
            (kept ? HELD : SPARE).addAndGet(-n);
        }
    }

    long size() {
        return segment.byteSize();
    }

    /** The whole block. */
    MemorySegment segment() {
        return segment;
    }

    /** Frees the block (its mapping goes; every segment of it becomes unusable). Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            (spare ? SPARE : HELD).addAndGet(-segment.byteSize());
        }
        arena.close();
    }

    /** The bytes of streamed values this process holds now, assembling or lent to a running call (tests, stats). */
    public static long held() {
        return HELD.get();
    }

    /** The bytes of blocks endpoints keep for their next streamed value (pages already committed), in this process. */
    public static long spare() {
        return SPARE.get();
    }
}
