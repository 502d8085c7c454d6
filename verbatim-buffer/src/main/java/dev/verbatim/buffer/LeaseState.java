package dev.verbatim.buffer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.Cleaner;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.LockSupport;

/**
 * The life of one lease of a {@link Slot}: live, then ended exactly once by one of three causes
 * (explicit release, reclamation by the garbage collector, revocation when the pool closes).
 *
 * <p>This is what the cleaning action holds, so it must never point strongly at the {@link Lease}
 * (it holds a {@link WeakReference}, used to close the view arena of a pooled lease that is still
 * reachable), nor at a pooled lease's view arena, whose scope anchors the lease. It does hold an
 * unpooled native slot's own arena (through {@link #slot}): those segments anchor nothing.
 *
 * <h2>State word</h2>
 * <pre>
 *  31  30 29  28        27 ..................... 0
 * +---+------+---------+--------------------------+
 * | 0 | cause| escaped |  in-flight heap accesses  |
 * +---+------+---------+--------------------------+
 * cause: 0 live, 1 released, 2 reclaimed by GC, 3 revoked by pool close
 * </pre>
 * The cause is set once, by compare-and-set; whoever sets it runs {@link #end} and hands the slot
 * to the owner. The in-flight count is used only by heap leases whose slot is recycled
 * ({@link #counted}): an access increments it before checking the cause and decrements it after
 * touching memory, and the ending thread waits for it to drain, so no access to a recycled array
 * can land after the next lessee got it. Native leases need no count: closing a shared arena is
 * itself safe against concurrent accesses (the JDK's handshake). {@code escaped} records that a
 * heap segment was handed out: such an array is never recycled, because the JDK cannot revoke a
 * heap segment.
 *
 * <p>Thread-safe.
 */
final class LeaseState {

    static final int LIVE = 0;
    static final int RELEASED = 1;
    static final int RECLAIMED = 2;
    static final int REVOKED = 3;

    private static final int COUNT_MASK = (1 << 28) - 1;
    private static final int ESCAPED = 1 << 28;
    private static final int CAUSE_SHIFT = 29;
    private static final int CAUSE_MASK = 3 << CAUSE_SHIFT;

    /** One daemon thread for the whole library. */
    private static final Cleaner CLEANER = Cleaner.create();

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(LeaseState.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final Owner owner;
    final Slot slot;
    /** Bytes visible to the lease (at most the slot's capacity). */
    final long size;
    /** Whether accesses are counted (heap slots that will be recycled). */
    final boolean counted;

    /** The state word; accessed only through {@link #STATE}. */
    private volatile int state;
    private volatile WeakReference<Lease> lease;
    private volatile Cleaner.Cleanable cleanable;

    // Guarded by this.
    private List<Registration> registrations;
    private boolean registrationsClosed;

    private LeaseState(Owner owner, Slot slot, long size, boolean counted) {
        this.owner = owner;
        this.slot = slot;
        this.size = size;
        this.counted = counted;
    }

    /**
     * Starts a lease of the first {@code size} bytes of {@code slot} and returns its root buffer.
     * <ul>
     *   <li>Heap slots: the views check this state on every access (the JDK cannot revoke a heap
     *       segment).
     *   <li>Unpooled native slots: the slot is the lease's alone, so its own shared arena is the
     *       lease's scope: closing it revokes every segment and frees (or unmaps) the memory in one
     *       step, and no restricted method is needed. Its segments do not anchor the {@link Lease}.
     *   <li>Pooled native slots: the memory outlives the lease, so it is re-scoped to a fresh
     *       shared arena whose cleanup list anchors the {@link Lease} ({@link PooledView}, the
     *       module's one restricted call).
     * </ul>
     */
    static Buffer open(Owner owner, Slot slot, long size) {
        boolean heap = slot.arena == null;
        LeaseState state = new LeaseState(owner, slot, size, heap && owner.recycles());
        Lease lease;
        MemorySegment view;
        if (heap) {
            lease = new Lease(state, null);
            view = slot.memory.asSlice(0, size);
        } else if (owner.recycles()) {
            Arena arena = Arena.ofShared();
            lease = new Lease(state, arena);
            view = PooledView.of(slot, size, arena, lease);
        } else {
            lease = new Lease(state, slot.arena);
            view = slot.memory.byteSize() == size ? slot.memory : slot.memory.asSlice(0, size);
        }
        state.lease = new WeakReference<>(lease);
        state.cleanable = CLEANER.register(lease, new Reclaim(state));
        return new Buffer(lease, view, 0, false);
    }

    /** Cleaning action: must hold only the state, never the lease. */
    private record Reclaim(LeaseState state) implements Runnable {
        @Override
        public void run() {
            state.end(RECLAIMED);
        }
    }

    // ---------------------------------------------------------------- access

    /** Opens an access: throws {@link IllegalStateException} if the lease has ended. */
    void enter() {
        if (counted) {
            int s = (int) STATE.getAndAdd(this, 1);
            if ((s & CAUSE_MASK) != 0) {
                STATE.getAndAdd(this, -1);
                throw ended(s, "access");
            }
        } else {
            check("access");
        }
    }

    /** Closes an access opened by {@link #enter()}. */
    void exit() {
        if (counted) {
            STATE.getAndAdd(this, -1);
        }
    }

    /** Throws {@link IllegalStateException} if the lease has ended. */
    void check(String what) {
        int s = (int) STATE.getAcquire(this);
        if ((s & CAUSE_MASK) != 0) {
            throw ended(s, what);
        }
    }

    /** Records that a raw segment is handed out (heap: the array will not be recycled). */
    void escape() {
        if (slot.arena == null) {
            int s = (int) STATE.getAndBitwiseOr(this, ESCAPED);
            if ((s & CAUSE_MASK) != 0) {
                throw ended(s, "segment()");
            }
        } else {
            check("segment()");
        }
    }

    boolean escaped() {
        return ((int) STATE.getVolatile(this) & ESCAPED) != 0;
    }

    boolean isEnded() {
        return ((int) STATE.getVolatile(this) & CAUSE_MASK) != 0;
    }

    // ---------------------------------------------------------------- ending

    /**
     * Ends the lease for {@code cause} if it is still live: no new access can start, in-flight
     * heap accesses drain, the view arena closes (every native segment of the lease becomes
     * inaccessible), registrations are deregistered, and the owner takes the slot back.
     *
     * @return {@code false} if the lease had already ended (nothing done)
     * @throws RuntimeException the first exception thrown by a {@link Registration#deregister()},
     *         after the slot was handed back anyway
     */
    boolean end(int cause) {
        int s;
        do {
            s = (int) STATE.getVolatile(this);
            if ((s & CAUSE_MASK) != 0) {
                return false;
            }
        } while (!STATE.compareAndSet(this, s, s | (cause << CAUSE_SHIFT)));

        if (counted) {
            awaitNoAccess();
        }
        Arena scope = reachableScope();
        if (scope != null) {
            Slot.closeWhenIdle(scope);
        }
        RuntimeException failure = deregisterAll();
        try {
            owner.dispose(this, cause);
        } finally {
            Cleaner.Cleanable c = cleanable;
            if (cause != RECLAIMED && c != null) {
                c.clean(); // drops the cleaner's registration; the action finds the lease ended
            }
        }
        if (failure != null) {
            throw failure;
        }
        return true;
    }

    /**
     * The arena to close so that no segment of the lease can be used any more, or {@code null} if
     * there is none that could still be reachable: for heap slots (nothing to revoke); for an
     * unpooled native slot its own arena, which its segments hold without keeping the
     * {@link Lease} reachable (so it is closed even when the garbage collector ends the lease);
     * for a pooled native slot the lease's view arena if the lease is still reachable (when it is
     * not, no segment of that arena is either: they anchor it).
     */
    private Arena reachableScope() {
        if (slot.arena == null) {
            return null;
        }
        if (!owner.recycles()) {
            return slot.arena;
        }
        WeakReference<Lease> ref = lease;
        Lease l = ref == null ? null : ref.get();
        return l == null ? null : l.viewArena;
    }

    private void awaitNoAccess() {
        for (int spins = 0; ((int) STATE.getVolatile(this) & COUNT_MASK) != 0; spins++) {
            if (spins < 100) {
                Thread.onSpinWait();
            } else if (spins < 200) {
                Thread.yield();
            } else {
                LockSupport.parkNanos(50_000L);
            }
        }
    }

    // ---------------------------------------------------------------- registrations

    synchronized void register(Registration registration) {
        Objects.requireNonNull(registration, "registration");
        Object key = Objects.requireNonNull(registration.key(), "registration.key()");
        if (registrationsClosed) {
            throw ended((int) STATE.getVolatile(this), "register");
        }
        if (registrations == null) {
            registrations = new ArrayList<>(2);
        }
        for (Registration r : registrations) {
            if (r.key().equals(key)) {
                throw new IllegalStateException("buffer already registered with key " + key);
            }
        }
        registrations.add(registration);
    }

    synchronized Registration registration(Object key) {
        Objects.requireNonNull(key, "key");
        if (registrationsClosed) {
            throw ended((int) STATE.getVolatile(this), "registration");
        }
        if (registrations != null) {
            for (Registration r : registrations) {
                if (r.key().equals(key)) {
                    return r;
                }
            }
        }
        return null;
    }

    boolean deregister(Object key) {
        Objects.requireNonNull(key, "key");
        Registration found = null;
        synchronized (this) {
            if (registrationsClosed) {
                throw ended((int) STATE.getVolatile(this), "deregister");
            }
            if (registrations != null) {
                for (int i = 0; i < registrations.size(); i++) {
                    if (registrations.get(i).key().equals(key)) {
                        found = registrations.remove(i);
                        break;
                    }
                }
            }
        }
        if (found == null) {
            return false;
        }
        found.deregister();
        return true;
    }

    /** Closes the registration list and deregisters in reverse order; returns the first failure. */
    private RuntimeException deregisterAll() {
        List<Registration> toRun;
        synchronized (this) {
            registrationsClosed = true;
            toRun = registrations;
            registrations = null;
        }
        RuntimeException failure = null;
        if (toRun != null) {
            for (int i = toRun.size() - 1; i >= 0; i--) {
                try {
                    toRun.get(i).deregister();
                } catch (RuntimeException e) {
                    if (failure == null) {
                        failure = e;
                    } else {
                        failure.addSuppressed(e);
                    }
                }
            }
        }
        return failure;
    }

    // ---------------------------------------------------------------- messages

    private IllegalStateException ended(int s, String what) {
        int cause = (s & CAUSE_MASK) >>> CAUSE_SHIFT;
        String why = switch (cause) {
            case RELEASED -> "it was released";
            case RECLAIMED -> "it was reclaimed by the garbage collector";
            case REVOKED -> "its pool was closed";
            default -> "it ended";
        };
        return new IllegalStateException(what + " on a " + describe() + " that is no longer usable: " + why);
    }

    /** The error for {@code release()} on a lease that already ended. */
    IllegalStateException cannotRelease() {
        int s = (int) STATE.getVolatile(this);
        if ((s & CAUSE_MASK) >>> CAUSE_SHIFT == RELEASED) {
            return new IllegalStateException("double release of a " + describe()
                    + ": release() must be called exactly once per buffer");
        }
        return ended(s, "release");
    }

    String describe() {
        return slot.kind + " buffer of " + size + " bytes";
    }

    @Override
    public String toString() {
        return describe() + (isEnded() ? " (ended)" : "");
    }
}
