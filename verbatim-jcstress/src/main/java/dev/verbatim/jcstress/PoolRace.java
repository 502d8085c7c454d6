package dev.verbatim.jcstress;

import dev.verbatim.buffer.Buffer;
import dev.verbatim.buffer.BufferPool;

/**
 * The buffer module's release-versus-use race (DESIGN §2, {@code Buffer}'s class comment), on a real
 * {@link BufferPool} of one buffer: one thread uses a buffer (reads, then writes it) while another releases it and
 * at once acquires the next buffer, which gets the same memory back (the pool holds one slot), cleared. Each racing
 * access must either complete on the buffer's own memory or throw {@link IllegalStateException}: it never reads the
 * next lease's bytes or the pool's clearing, and a write never lands in the next lease.
 */
final class PoolRace {
    /** What the buffer holds before the race. */
    static final long OLD = 0x1111;
    /** What the user writes during the race. */
    static final long LATE = 0x3333;
    /** What the next lease writes once it has looked. */
    static final long NEXT = 0x2222;
    /** An access that threw {@link IllegalStateException}. */
    static final long ENDED = -1;

    final BufferPool pool;
    final Buffer buffer;
    private Buffer next;

    PoolRace(BufferPool pool) {
        this.pool = pool;
        this.buffer = pool.tryAcquire(8);
        buffer.putLong(0, OLD);
    }

    /** The user: what its read found ({@link #ENDED} if it threw); r2 1 if its write went in, 0 if it threw. */
    long read() {
        try {
            return buffer.getLong(0);
        } catch (IllegalStateException ended) {
            return ENDED;
        }
    }

    long write() {
        try {
            buffer.putLong(0, LATE);
            return 1;
        } catch (IllegalStateException ended) {
            return 0;
        }
    }

    /** The releaser: releases, acquires the next buffer (the same slot) and returns what the next lease sees. */
    long releaseAndReuse() {
        buffer.release();
        next = pool.tryAcquire(8);
        if (next == null) {
            throw new IllegalStateException("the pool did not give the released slot back: " + pool);
        }
        long seen = next.getLong(0);
        next.putLong(0, NEXT);
        return seen;
    }

    /** After both: gives everything back (an off-heap pool's slots hold shared arenas). */
    void close() {
        pool.close();
    }
}
