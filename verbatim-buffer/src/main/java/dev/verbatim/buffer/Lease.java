package dev.verbatim.buffer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.Consumer;

/**
 * The reachability anchor of one lease: every view of the lease keeps this object reachable, and
 * the {@link java.lang.ref.Cleaner} watches it.
 *
 * <ul>
 *   <li>{@link Buffer} objects (the buffer and its slices) hold it in a field.
 *   <li>{@link MemorySegment}s handed out for native leases hold the lease's {@link #viewArena}
 *       session, whose cleanup list holds an {@link Anchor}, which holds this object.
 * </ul>
 *
 * So this object becomes unreachable only when no buffer, slice or native segment of the lease is
 * reachable. Nothing the cleaning action holds ({@link LeaseState}, {@link Slot}, the owner) may
 * point back here, except weakly.
 *
 * <p>Immutable.
 */
final class Lease {

    final LeaseState state;
    /** The lease's own scope for native slots; {@code null} for heap slots. */
    final Arena viewArena;

    Lease(LeaseState state, Arena viewArena) {
        this.state = state;
        this.viewArena = viewArena;
    }

    /**
     * Registered as the cleanup action of {@link #viewArena}: it does nothing when run, its only
     * job is to be reachable from the arena's session and to keep the lease reachable in turn. A
     * fresh instance per lease (a non-capturing lambda would be a shared constant).
     */
    static final class Anchor implements Consumer<MemorySegment> {
        private final Lease lease;

        Anchor(Lease lease) {
            this.lease = lease;
        }

        @Override
        public void accept(MemorySegment ignored) {
            // Nothing to clean: the owner frees the slot after the arena is closed.
        }

        @Override
        public String toString() {
            return "Anchor[" + lease.state + "]";
        }
    }
}
