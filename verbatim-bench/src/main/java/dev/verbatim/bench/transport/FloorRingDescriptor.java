package dev.verbatim.bench.transport;

/**
 * Layout of the floor stream's shared file: a single-producer, single-consumer ring of records.
 *
 * <pre>
 *   0            128          256                       4096
 *   +------------+------------+-------------------------+------------------------------------+
 *   | tail(8)    | head(8)    |          unused         | ring: capacity bytes (power of 2)  |
 *   +------------+------------+-------------------------+------------------------------------+
 *   record: length(4) reserved(4) payload(length) padding to 8;  length PADDING: skip to ring end
 * </pre>
 *
 * Positions only grow; a position's ring offset is {@code position & (capacity - 1)}. A record
 * never wraps: one that would is preceded by a {@link #PADDING} record to the end of the ring.
 * The producer writes records plainly, then stores {@code tail} with release; the consumer loads
 * {@code tail} with acquire, reads records up to it, and stores {@code head} with release (every
 * eighth of the ring, and before it waits); the
 * producer loads {@code head} with acquire when its cached copy says the ring is full.
 */
final class FloorRingDescriptor {
    private FloorRingDescriptor() {}

    static final long TAIL = 0;
    static final long HEAD = 128;
    static final long RING = 4096;
    static final int HEADER = 8;
    static final int PADDING = -1;
    /** At least four records of the largest message fit, and at least 4 MiB. */
    static long capacity(int maxSize) {
        long need = 4L * record(maxSize);
        long min = Long.getLong("verbatim.bench.floor.ring", 4L << 20);
        return Math.max(min, Long.highestOneBit(need - 1) << 1);
    }

    static long fileSize(int maxSize) {
        return RING + capacity(maxSize);
    }

    /** Bytes a record of a {@code size}-byte message takes: header, payload, padding to 8. */
    static int record(int size) {
        return (HEADER + size + 7) & ~7;
    }
}
