package dev.verbatim.transport.spin;

/**
 * What a thread spinning for something another thread will do (a message, room in a window, often from another
 * process) does between two looks that found nothing: a busy-wait hint while the wait is young; past
 * {@link #PATIENCE_NANOS}, a {@link Thread#yield()} now and then, which tells whether this thread's CPU is
 * shared with another runnable thread. If it is (the yield took {@link #CONTENDED_NANOS} or more: another thread
 * ran), the spinner yields at every later pause of the wait; if not, it goes back to the hint and tries again
 * {@link #RELOOK_NANOS} later.
 *
 * <pre>
 *  wait starts           PATIENCE                 yield took >= CONTENDED: the CPU is shared
 *  |---- busy hint ------|-- yield --+-- yes --> yield at every pause from then on
 *                                   +-- no  --> busy hint for RELOOK, then yield again
 * </pre>
 *
 * Why: two spinning threads that wait for each other (a caller and the peer's dispatcher, the two ends of a
 * shared-memory connection) may be put on one CPU by the scheduler, which it does on this project's 2-CPU hosts
 * whenever other work runs (Linux's autogroups weigh a whole session as one; a niced batch job in another session
 * is enough). A busy-waiting spinner then keeps the CPU for its whole time slice while the thread it waits for
 * cannot run: a shared-memory null call took 1.24 ms, a slice each way, instead of 0.3 µs. Yielding from the first
 * empty look would cost the uncontended case a system call per look and hand the CPU to any runnable thread, so
 * the spinner yields only once it has waited {@code PATIENCE_NANOS} (longer than a round trip between idle CPUs) and
 * keeps yielding only while a yield shows that someone else wants its CPU.
 *
 * <p>Where it is used: the transport's waits (a receiver's spin before it parks, a sender's wait for room) and the
 * chain's guest reads of RPC (a walk over more bases than CPUs, where every base keeps a thread waiting). Not the
 * RPC caller's and dispatcher's own first spins: yielding there made co-location last. The scheduler does not move
 * a thread that ran a moment ago, and two spinners that take turns on one CPU both always have; busy-waiting ones
 * are parted within a few slices once the other CPU is free. With a 5 µs patience there, {@code bench rpc}'s shm
 * turns on a quiet host ran at ~20 µs per call in 10 of 24 (the two ends taking turns on one CPU for the whole
 * turn); without, at 0.3-3.6 µs as before. So those spins stay pure (up to 1 ms and 200 µs) and the transport's wait after
 * them pauses as here: two ends forced onto one CPU cost ~0.3 ms of CPU per call instead of 1.2 ms.
 *
 * <p>Allocation-free: a wait's state is one {@code long} its caller keeps ({@link #begin}, {@link #pause}).
 * Thread-safe (no shared state).
 */
public final class SpinPause {
    private SpinPause() {}

    /** How long a wait busy-waits before its first yield. */
    public static final long PATIENCE_NANOS = 5_000;
    /** A yield that lasted this long gave the CPU to another thread: the CPU is shared. */
    public static final long CONTENDED_NANOS = 5_000;
    /** After a yield that returned at once (nobody else wanted the CPU), how long until the next one. */
    public static final long RELOOK_NANOS = 50_000;

    /** The state of a wait that starts (or last saw something arrive) at {@code now} ({@link System#nanoTime}). */
    public static long begin(long now) {
        return now + PATIENCE_NANOS;
    }

    /**
     * One pause of a wait in state {@code state} at time {@code now} (read at this look); returns the wait's next
     * state.
     */
    public static long pause(long state, long now) {
        if (now - state < 0) {
            Thread.onSpinWait();
            return state;
        }
        Thread.yield();
        long after = System.nanoTime();
        return after - now >= CONTENDED_NANOS ? after : after + RELOOK_NANOS;
    }
}
