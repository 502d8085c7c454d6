package dev.verbatim.buffer;

import java.lang.foreign.Arena;

/**
 * The reachability anchor of one lease: every view of the lease keeps this object reachable, and
 * the {@link java.lang.ref.Cleaner} watches it.
 *
 * <ul>
 *   <li>{@link Buffer} objects (the buffer and its slices) hold it in a field.
 *   <li>Segments handed out for pooled off-heap leases hold the lease's {@link #viewArena} scope,
 *       whose cleanup list holds a {@link PooledView.Anchor}, which holds this object.
 *   <li>Segments of unpooled off-heap and mapped leases hold only their memory's own scope, which
 *       points nowhere: they do not keep this object reachable (see {@link Buffers}).
 * </ul>
 *
 * So this object becomes unreachable only when no buffer or slice of the lease, and for pooled
 * off-heap leases no segment of it, is reachable. Nothing the cleaning action holds
 * ({@link LeaseState}, {@link Slot}, the owner) may point back here, except weakly.
 *
 * <p>Immutable.
 */
final class Lease {

    final LeaseState state;
    /**
     * The scope whose closing revokes every segment of the lease: for unpooled native memory the
     * arena that owns it (so closing it also frees or unmaps it), for pooled off-heap memory a
     * fresh arena of this lease only; {@code null} for heap slots.
     */
    final Arena viewArena;

    Lease(LeaseState state, Arena viewArena) {
        this.state = state;
        this.viewArena = viewArena;
    }
}
