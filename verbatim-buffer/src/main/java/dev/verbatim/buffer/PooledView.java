package dev.verbatim.buffer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.Consumer;

/**
 * The view of a reused off-heap slot that one lease of a {@link BufferPool} sees: the slot's memory
 * re-scoped to the lease's own shared arena with
 * {@link MemorySegment#reinterpret(long, Arena, Consumer)}. This is the module's only call of a
 * restricted method, and only {@link BufferPool#offHeap off-heap pools} reach it; unpooled buffers
 * ({@link Buffers}) and heap pools never do.
 *
 * <h2>Why a pool needs it</h2>
 * A pooled slot outlives its leases, so two things must hold of the segments of one lease that the
 * JDK offers, without a restricted method, only for memory that dies with its scope:
 * <ul>
 *   <li><b>Revocation without freeing.</b> Ending the lease must make every segment of it throw,
 *       while the memory stays allocated for the next lessee. A segment is revoked only by closing
 *       its scope, and closing the scope that allocated memory frees it; a segment of existing
 *       memory in a different, narrower scope is made only by {@code reinterpret}.
 *   <li><b>A segment anchors its lease.</b> The garbage collector must not hand the slot to the
 *       next lessee while a segment of the lease is reachable. A segment keeps reachable nothing
 *       but its scope, and a scope keeps reachable only its cleanup actions; of the public API only
 *       restricted methods ({@code reinterpret} with a cleanup action, {@code Linker.upcallStub},
 *       {@code SymbolLookup.libraryLookup}) put an object of the caller's there. The
 *       {@link Anchor} is that object.
 * </ul>
 * The narrowing is sound: the size is at most the slot's, and the new lifetime (the lease's arena,
 * closed before the slot is reused or freed) is contained in the slot's.
 *
 * <p>Run with {@code --enable-native-access=dev.verbatim.buffer} (module path) or
 * {@code --enable-native-access=ALL-UNNAMED} (class path) when using off-heap pools, or the JDK
 * prints a warning at the first acquisition (and {@code --illegal-native-access=deny} makes it
 * throw {@link IllegalCallerException}).
 *
 * <p>Stateless.
 */
final class PooledView {

    private PooledView() {
    }

    /**
     * The first {@code size} bytes of {@code slot} as a segment that dies when {@code leaseArena}
     * closes, and whose scope keeps {@code lease} reachable.
     */
    @SuppressWarnings("restricted")
    static MemorySegment of(Slot slot, long size, Arena leaseArena, Lease lease) {
        return slot.memory.reinterpret(size, leaseArena, new Anchor(lease));
    }

    /**
     * Registered as the cleanup action of a lease's arena: it does nothing when run, its only job
     * is to be reachable from the arena's scope and to keep the lease reachable in turn. A fresh
     * instance per lease (a non-capturing lambda would be a shared constant).
     */
    static final class Anchor implements Consumer<MemorySegment> {
        private final Lease lease;

        Anchor(Lease lease) {
            this.lease = lease;
        }

        @Override
        public void accept(MemorySegment ignored) {
            // Nothing to clean: the pool takes the slot back after the arena is closed.
        }

        @Override
        public String toString() {
            return "Anchor[" + lease.state + "]";
        }
    }
}
