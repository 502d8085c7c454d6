package dev.verbatim.buffer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.LockSupport;

/**
 * The backing memory of one lease: a {@code long[]} for heap memory, or a native region owned by
 * its own shared {@link Arena} (an allocation or a file mapping).
 *
 * <p>A pooled slot outlives the leases that view it: a pool hands the same slot to one lease after
 * another, and each lease of a native slot sees {@link #memory} re-scoped to its own arena
 * ({@link PooledView}). An unpooled slot has exactly one lease, which sees {@link #memory} itself:
 * the slot's arena is then the lease's scope (see {@link LeaseState#open}). {@link #free()} may
 * only be called once no lease can observe the slot.
 *
 * <p>Immutable; {@link #free()} is idempotent and thread-safe (shared arena).
 */
final class Slot {

    /** Alignment of native slots: a cache line, enough for every aligned layout. */
    static final long NATIVE_ALIGNMENT = 64;

    /** Largest heap slot: a {@code long[]} cannot be longer than this many elements. */
    static final long MAX_HEAP_BYTES = (Integer.MAX_VALUE - 8L) * Long.BYTES;

    final Buffer.Kind kind;
    final long capacity;
    /** Owns native or mapped memory; {@code null} for heap slots. */
    final Arena arena;
    final MemorySegment memory;

    private Slot(Buffer.Kind kind, long capacity, Arena arena, MemorySegment memory) {
        this.kind = kind;
        this.capacity = capacity;
        this.arena = arena;
        this.memory = memory;
    }

    /** A zeroed heap slot backed by a {@code long[]} (so aligned accesses up to 8 bytes work). */
    static Slot heap(long capacity) {
        if (capacity < 0 || capacity > MAX_HEAP_BYTES) {
            throw new IllegalArgumentException(
                    "heap buffer size must be between 0 and " + MAX_HEAP_BYTES + ": " + capacity);
        }
        long[] words = new long[(int) ((capacity + Long.BYTES - 1) >>> 3)];
        return new Slot(Buffer.Kind.HEAP, capacity, null, MemorySegment.ofArray(words).asSlice(0, capacity));
    }

    /** A zeroed native slot in its own shared arena. */
    static Slot offHeap(long capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException("off-heap buffer size must not be negative: " + capacity);
        }
        Arena arena = Arena.ofShared();
        try {
            return new Slot(Buffer.Kind.OFF_HEAP, capacity, arena, arena.allocate(capacity, NATIVE_ALIGNMENT));
        } catch (RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    /** A slot over a file mapping owned by {@code arena} (closing the arena unmaps it). */
    static Slot mapped(Arena arena, MemorySegment mapping) {
        return new Slot(Buffer.Kind.MAPPED, mapping.byteSize(), arena, mapping);
    }

    /** Frees native memory or unmaps the file; a no-op for heap slots (the GC owns the array). */
    void free() {
        if (arena != null) {
            closeWhenIdle(arena);
        }
    }

    /**
     * Closes a shared arena, unless it is closed already. Closing fails while a segment of it is
     * held by a native operation (a downcall, asynchronous I/O); its memory cannot be revoked,
     * reused or freed before that ends, so this waits.
     */
    static void closeWhenIdle(Arena arena) {
        while (arena.scope().isAlive()) {
            try {
                arena.close();
                return;
            } catch (IllegalStateException busy) {
                if (arena.scope().isAlive()) {
                    LockSupport.parkNanos(100_000L);
                }
            }
        }
    }
}
