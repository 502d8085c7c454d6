package dev.verbatim.buffer;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A bounded pool of heap or off-heap memory that hands out {@link Buffer}s and reuses their memory
 * once they end (jbufs' buffer pools).
 *
 * <h2>Sizes and bounds</h2>
 * A request for {@code size} bytes gets a buffer of exactly {@code size} bytes carved from a slot
 * whose capacity is {@code size} rounded up to a power of two (at least 64 bytes); slots are kept
 * per capacity and reused for any request that rounds to the same capacity. Two bounds hold at
 * every moment: at most {@code maxBuffers} buffers are leased, and the slots the pool holds
 * (leased and idle, counted by capacity) take at most {@code maxBytes}. Idle slots of other
 * capacities are freed when a new slot needs their room. Over a bound, {@link #tryAcquire(long)}
 * returns {@code null} and {@link #acquire(long, Duration)} waits up to its timeout, then throws
 * {@link PoolExhaustedException}.
 *
 * <h2>Reuse</h2>
 * Memory goes back to the pool when a buffer ends: on {@link Buffer#release()} (or
 * {@link #release(Buffer)}), or when the garbage collector proves no view of it reachable (counted
 * in {@link Stats#reclaimedByGc()}). Each lease of off-heap memory has its own shared arena that
 * is closed before the slot is reused, so a segment of an earlier lease throws
 * {@link IllegalStateException} instead of reading the next lessee's bytes. A pooled heap array is
 * reused only if its buffer never handed out a raw segment ({@link Buffer#segment()}), which the
 * JDK could not revoke; otherwise it is dropped and a fresh array allocated later. Reused memory
 * is zeroed before it is handed out again.
 *
 * <h2>Native access</h2>
 * An off-heap pool re-scopes its reused memory to each lease with the restricted method
 * {@link java.lang.foreign.MemorySegment#reinterpret(long, java.lang.foreign.Arena, java.util.function.Consumer)}:
 * the only way the JDK offers to revoke a lease's segments without freeing the memory under them,
 * and to let those segments keep their lease from the garbage collector (the reasons in full are
 * in the module's source, {@code PooledView}). Applications that create off-heap pools run with
 * {@code --enable-native-access=dev.verbatim.buffer} (module path) or
 * {@code --enable-native-access=ALL-UNNAMED} (class path); without it the JDK prints a warning at
 * the first acquisition, and under {@code --illegal-native-access=deny} acquiring throws
 * {@link IllegalCallerException}. Heap pools, and the unpooled buffers of {@link Buffers}, call no
 * restricted method.
 *
 * <h2>Closing</h2>
 * {@link #close()} revokes the buffers still leased (their views throw
 * {@link IllegalStateException} from then on, their registrations are deregistered) and frees all
 * memory; acquiring from a closed pool throws {@link IllegalStateException}.
 *
 * <h2>Thread safety</h2>
 * Thread-safe: every method may be called from any thread. Acquisition and return take one lock
 * per pool; creating or ending a lease of off-heap memory also opens or closes a shared arena,
 * which costs microseconds, so transports keep long-lived buffers and slice them rather than
 * acquiring one per message.
 */
public final class BufferPool implements AutoCloseable {

    /**
     * A consistent snapshot of a pool. Invariants: {@code inUse <= maxBuffers},
     * {@code bytesInUse + bytesFree == bytesHeld <= maxBytes}, and
     * {@code acquired == released + reclaimedByGc + revokedOnClose + inUse}.
     *
     * @param kind           the kind of memory pooled
     * @param maxBytes       bound on the bytes of slots held (leased plus idle)
     * @param maxBuffers     bound on the buffers leased at once
     * @param bytesHeld      bytes of all slots the pool holds, leased and idle
     * @param bytesInUse     bytes of the slots of leased buffers (slot capacity, not requested size)
     * @param bytesFree      bytes of idle slots ready for reuse
     * @param inUse          buffers currently leased
     * @param free           idle slots ready for reuse
     * @param acquired       buffers handed out since the pool was created
     * @param released       buffers ended by {@link Buffer#release()}
     * @param reclaimedByGc  buffers reclaimed by the garbage collector without a release (leaks)
     * @param revokedOnClose buffers still leased when the pool was closed
     * @param closed         whether the pool is closed
     */
    public record Stats(Buffer.Kind kind, long maxBytes, int maxBuffers, long bytesHeld, long bytesInUse,
                        long bytesFree, int inUse, int free, long acquired, long released, long reclaimedByGc,
                        long revokedOnClose, boolean closed) {
    }

    /** Smallest slot: 64 bytes (a cache line). */
    private static final int MIN_SHIFT = 6;
    /** Largest off-heap slot: 2^62 bytes (requests beyond cannot be rounded to a power of two). */
    private static final int MAX_SHIFT_OFF_HEAP = 62;
    /** Largest heap slot: 8 GiB, a {@code long[]} of 2^30 elements. */
    private static final int MAX_SHIFT_HEAP = 33;

    private final Buffer.Kind kind;
    private final long maxBytes;
    private final int maxBuffers;
    private final int maxShift;
    private final Owner owner = new PoolOwner();

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition returned = lock.newCondition();
    // Guarded by lock.
    /** Idle slots per capacity class (index = log2(capacity) - MIN_SHIFT); most recent first. */
    private final List<ArrayDeque<Slot>> idle;
    private final Set<LeaseState> leased = Collections.newSetFromMap(new IdentityHashMap<>());
    private boolean closed;
    private long bytesHeld;
    private long bytesInUse;
    private long bytesFree;
    private int inUse;
    private int free;
    private long acquired;
    private long released;
    private long reclaimed;
    private long revoked;

    private BufferPool(Buffer.Kind kind, long maxBytes, int maxBuffers, int maxShift) {
        if (maxBytes < (1L << MIN_SHIFT)) {
            throw new IllegalArgumentException(
                    "maxBytes must be at least " + (1L << MIN_SHIFT) + ": " + maxBytes);
        }
        if (maxBuffers <= 0) {
            throw new IllegalArgumentException("maxBuffers must be positive: " + maxBuffers);
        }
        this.kind = kind;
        this.maxBytes = maxBytes;
        this.maxBuffers = maxBuffers;
        this.maxShift = maxShift;
        this.idle = new ArrayList<>(maxShift - MIN_SHIFT + 1);
        for (int i = MIN_SHIFT; i <= maxShift; i++) {
            idle.add(new ArrayDeque<>());
        }
    }

    /**
     * A pool of heap buffers backed by {@code long[]} arrays.
     *
     * @param maxBytes   bound on the bytes of arrays held, leased and idle (at least 64)
     * @param maxBuffers bound on the buffers leased at once (positive)
     * @throws IllegalArgumentException if a bound is out of range (the message names it)
     */
    public static BufferPool heap(long maxBytes, int maxBuffers) {
        return new BufferPool(Buffer.Kind.HEAP, maxBytes, maxBuffers, MAX_SHIFT_HEAP);
    }

    /**
     * A pool of off-heap (native) buffers, aligned to 64 bytes.
     *
     * @param maxBytes   bound on the bytes of native memory held, leased and idle (at least 64)
     * @param maxBuffers bound on the buffers leased at once (positive)
     * @throws IllegalArgumentException if a bound is out of range (the message names it)
     */
    public static BufferPool offHeap(long maxBytes, int maxBuffers) {
        return new BufferPool(Buffer.Kind.OFF_HEAP, maxBytes, maxBuffers, MAX_SHIFT_OFF_HEAP);
    }

    /** The kind of buffers this pool hands out. */
    public Buffer.Kind kind() {
        return kind;
    }

    /**
     * A zeroed buffer of exactly {@code size} bytes, or {@code null} at once if the bounds do not
     * allow one now.
     *
     * @throws IllegalArgumentException if {@code size} is negative, or too large for this pool
     *         ever to hold (the message names it)
     * @throws IllegalStateException if the pool is closed
     */
    public Buffer tryAcquire(long size) {
        try {
            return acquire(size, false, 0L);
        } catch (InterruptedException e) {
            throw new AssertionError("tryAcquire does not wait", e);
        }
    }

    /**
     * A zeroed buffer of exactly {@code size} bytes, waiting up to {@code timeout} for other
     * buffers to end if the bounds do not allow one now.
     *
     * @throws PoolExhaustedException if no buffer could be acquired within the timeout
     * @throws IllegalArgumentException if {@code size} is negative, or too large for this pool
     *         ever to hold (the message names it)
     * @throws IllegalStateException if the pool is closed, or closes while waiting
     * @throws InterruptedException if interrupted while waiting
     */
    public Buffer acquire(long size, Duration timeout) throws InterruptedException {
        Objects.requireNonNull(timeout, "timeout");
        long nanos = timeout.isNegative() ? 0L : saturatedNanos(timeout);
        return acquire(size, true, nanos);
    }

    /**
     * Ends {@code buffer}'s lease, like {@link Buffer#release()}, after checking that it came
     * from this pool.
     *
     * @throws IllegalArgumentException if {@code buffer} was not acquired from this pool
     * @throws IllegalStateException if it was already released, or revoked by {@link #close()}
     * @throws UnsupportedOperationException if it is a slice
     */
    public void release(Buffer buffer) {
        Objects.requireNonNull(buffer, "buffer");
        if (buffer.state().owner != owner) {
            throw new IllegalArgumentException(buffer + " was not acquired from this pool (" + this + ")");
        }
        buffer.release();
    }

    /** A consistent snapshot of the pool's bounds, holdings and counters. */
    public Stats stats() {
        lock.lock();
        try {
            return new Stats(kind, maxBytes, maxBuffers, bytesHeld, bytesInUse, bytesFree, inUse, free,
                    acquired, released, reclaimed, revoked, closed);
        } finally {
            lock.unlock();
        }
    }

    /** Whether {@link #close()} has been called. */
    public boolean isClosed() {
        lock.lock();
        try {
            return closed;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Closes the pool: wakes waiting acquirers (they throw {@link IllegalStateException}), frees
     * idle memory, and revokes every buffer still leased (its views throw
     * {@link IllegalStateException}, its registrations are deregistered, its memory is freed).
     * Calling it again does nothing.
     *
     * @throws RuntimeException the first exception thrown by a {@link Registration#deregister()}
     *         of a revoked buffer, after all memory was freed
     */
    @Override
    public void close() {
        List<LeaseState> toRevoke;
        List<Slot> toFree = new ArrayList<>();
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            toRevoke = new ArrayList<>(leased);
            for (ArrayDeque<Slot> slots : idle) {
                toFree.addAll(slots);
                slots.clear();
            }
            bytesHeld -= bytesFree;
            bytesFree = 0;
            free = 0;
            returned.signalAll();
        } finally {
            lock.unlock();
        }
        toFree.forEach(Slot::free);
        RuntimeException failure = null;
        for (LeaseState state : toRevoke) {
            try {
                state.end(LeaseState.REVOKED);
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return "BufferPool[" + kind + ", maxBytes=" + maxBytes + ", maxBuffers=" + maxBuffers + "]";
    }

    // ------------------------------------------------------------------ internals

    private Buffer acquire(long size, boolean wait, long nanos) throws InterruptedException {
        int shift = shiftFor(size);
        long capacity = 1L << shift;
        ArrayDeque<Slot> slots = idle.get(shift - MIN_SHIFT);
        Slot reused = null;
        List<Slot> evicted = List.of();
        lock.lock();
        try {
            for (;;) {
                if (closed) {
                    throw new IllegalStateException("cannot acquire from a closed pool: " + this);
                }
                if (inUse < maxBuffers) {
                    reused = slots.pollFirst();
                    if (reused != null) {
                        free--;
                        bytesFree -= capacity;
                        break;
                    }
                    if (bytesHeld + capacity <= maxBytes) {
                        bytesHeld += capacity;
                        break;
                    }
                    if (bytesHeld - bytesFree + capacity <= maxBytes) {
                        evicted = evict(bytesHeld + capacity - maxBytes);
                        bytesHeld += capacity;
                        break;
                    }
                }
                if (!wait) {
                    return null;
                }
                if (nanos <= 0L) {
                    throw new PoolExhaustedException("no " + size + "-byte buffer (slot of " + capacity
                            + " bytes) became available in time from " + this + ": " + inUse
                            + " buffers leased holding " + bytesInUse + " bytes, " + bytesHeld
                            + " bytes held", size);
                }
                nanos = returned.awaitNanos(nanos);
            }
            inUse++;
            bytesInUse += capacity;
            acquired++;
        } finally {
            lock.unlock();
        }
        evicted.forEach(Slot::free);

        Slot slot = reused;
        Buffer buffer;
        try {
            if (slot != null) {
                slot.memory.asSlice(0, size).fill((byte) 0);
            } else {
                slot = kind == Buffer.Kind.HEAP ? Slot.heap(capacity) : Slot.offHeap(capacity);
            }
            buffer = LeaseState.open(owner, slot, size);
        } catch (RuntimeException | Error e) {
            undoAcquire(capacity, slot);
            throw e;
        }
        boolean revoke;
        lock.lock();
        try {
            revoke = closed;
            if (!revoke) {
                leased.add(buffer.state());
            }
        } finally {
            lock.unlock();
        }
        if (revoke) { // closed while the lease was being set up
            buffer.state().end(LeaseState.REVOKED);
            throw new IllegalStateException("cannot acquire from a closed pool: " + this);
        }
        return buffer;
    }

    /** Gives back what {@link #acquire} reserved when setting up the lease failed. */
    private void undoAcquire(long capacity, Slot slot) {
        lock.lock();
        try {
            inUse--;
            bytesInUse -= capacity;
            bytesHeld -= capacity;
            acquired--;
            returned.signalAll();
        } finally {
            lock.unlock();
        }
        if (slot != null) {
            slot.free();
        }
    }

    /** Removes idle slots, largest first, until at least {@code bytes} are released. */
    private List<Slot> evict(long bytes) {
        List<Slot> out = new ArrayList<>();
        long got = 0;
        for (int i = idle.size() - 1; i >= 0 && got < bytes; i--) {
            ArrayDeque<Slot> slots = idle.get(i);
            while (got < bytes && !slots.isEmpty()) {
                Slot s = slots.pollLast();
                got += s.capacity;
                free--;
                bytesFree -= s.capacity;
                bytesHeld -= s.capacity;
                out.add(s);
            }
        }
        return out;
    }

    /** log2 of the slot capacity for {@code size}, validating the size. */
    private int shiftFor(long size) {
        if (size < 0) {
            throw new IllegalArgumentException("buffer size must not be negative: " + size);
        }
        if (size > (1L << maxShift)) {
            throw new IllegalArgumentException("buffer size " + size + " is larger than the largest "
                    + kind + " buffer a pool can hold (" + (1L << maxShift) + " bytes)");
        }
        int shift = size <= 1 ? MIN_SHIFT : Math.max(MIN_SHIFT, 64 - Long.numberOfLeadingZeros(size - 1));
        if ((1L << shift) > maxBytes) {
            throw new IllegalArgumentException("buffer size " + size + " (a slot of " + (1L << shift)
                    + " bytes) exceeds this pool's maxBytes " + maxBytes);
        }
        return shift;
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException overflow) {
            return Long.MAX_VALUE;
        }
    }

    /** Takes slots back from ended leases. */
    private final class PoolOwner implements Owner {
        @Override
        public void dispose(LeaseState lease, int cause) {
            Slot slot = lease.slot;
            boolean freeIt;
            lock.lock();
            try {
                leased.remove(lease);
                inUse--;
                bytesInUse -= slot.capacity;
                switch (cause) {
                    case LeaseState.RELEASED -> released++;
                    case LeaseState.RECLAIMED -> reclaimed++;
                    default -> revoked++;
                }
                // A heap array whose segment escaped may still be read: never hand it out again.
                freeIt = closed || (slot.arena == null && lease.escaped());
                if (freeIt) {
                    bytesHeld -= slot.capacity;
                } else {
                    idle.get(Long.numberOfTrailingZeros(slot.capacity) - MIN_SHIFT).addFirst(slot);
                    free++;
                    bytesFree += slot.capacity;
                }
                returned.signalAll();
            } finally {
                lock.unlock();
            }
            if (freeIt) {
                slot.free();
            }
        }

        @Override
        public boolean recycles() {
            return true;
        }

        @Override
        public String toString() {
            return BufferPool.this.toString();
        }
    }
}
