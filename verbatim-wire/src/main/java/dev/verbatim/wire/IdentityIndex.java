package dev.verbatim.wire;

/**
 * Object → index by identity: the writer's record of the objects already placed in the message (sharing
 * and cycles). Open addressing with linear probing over one {@code long[]}: a slot holds
 * {@code (stamp << 32) | index}, and only slots of the current stamp are live, so starting a new message
 * is one increment, not a clear. Keys are not stored: a slot's index names the object in the writer's
 * queue, which the caller passes in.
 *
 * <p>A message's first {@link #LINEAR} objects are found by scanning the queue instead: most small messages (a trade,
 * a call's arguments) never hash at all, and {@code System.identityHashCode} costs more than comparing a few
 * references (and installs a hash in each new object's header on first use). The table is filled with those objects
 * when the message outgrows the scan.
 *
 * <p>Not thread-safe: one per {@link WireWriter}.
 */
final class IdentityIndex {
    private static final int INITIAL = 128;
    /** Tables beyond this are dropped after the message that grew them: one huge graph does not pin memory. */
    private static final int KEEP = 1 << 17;

    /** Up to this many objects a message's objects are scanned, not hashed. */
    static final int LINEAR = 8;

    private long[] slots = new long[INITIAL];
    private long stampBits = 1L << 32;
    /** Whether the table holds this message's objects (it has more than {@link #LINEAR}); else they are scanned. */
    private boolean hashing;

    /**
     * The index of {@code key} among {@code objects[0..count)}, or -1 after entering it with index
     * {@code count} (the caller then places it at {@code objects[count]}).
     */
    int enter(Object key, Object[] objects, int count) {
        if (!hashing) {
            for (int i = 0; i < count; i++) if (objects[i] == key) return i;
            if (count < LINEAR) return -1;
            enterAll(objects, count); // the message outgrows the scan: from now on the table answers
            hashing = true;
        }
        long[] t = slots;
        if ((count + 1) * 2 > t.length) t = grow(objects, count);
        int mask = t.length - 1;
        int h = hash(key) & mask;
        long stamp = stampBits;
        while (true) {
            long e = t[h];
            if ((e & 0xFFFF_FFFF_0000_0000L) != stamp) {
                t[h] = stamp | count;
                return -1;
            }
            int idx = (int) e;
            if (objects[idx] == key) return idx;
            h = (h + 1) & mask;
        }
    }

    /** Enters {@code objects[0..count)} (scanned so far) in the table: its entries of earlier messages are dead. */
    private void enterAll(Object[] objects, int count) {
        long[] t = slots;
        if ((count + 1) * 2 > t.length) {
            grow(objects, count);
            return;
        }
        int mask = t.length - 1;
        long stamp = stampBits;
        for (int i = 0; i < count; i++) {
            int h = hash(objects[i]) & mask;
            while ((t[h] & 0xFFFF_FFFF_0000_0000L) == stamp) h = (h + 1) & mask;
            t[h] = stamp | i;
        }
    }

    /** Doubles the table and enters {@code objects[0..count)} again. */
    private long[] grow(Object[] objects, int count) {
        long[] t = new long[Math.max(INITIAL, Integer.highestOneBit(Math.max(1, count)) * 4)];
        int mask = t.length - 1;
        long stamp = stampBits;
        for (int i = 0; i < count; i++) {
            int h = hash(objects[i]) & mask;
            while ((t[h] & 0xFFFF_FFFF_0000_0000L) == stamp) h = (h + 1) & mask;
            t[h] = stamp | i;
        }
        slots = t;
        return t;
    }

    /** Forgets every entry: the next message starts empty. */
    void clear() {
        hashing = false;
        long next = stampBits + (1L << 32);
        if (next == 0 || slots.length > KEEP) { // the stamp wrapped (after 2^32 messages), or the table is huge
            slots = new long[INITIAL];
            next = 1L << 32;
        }
        stampBits = next;
    }

    private static int hash(Object o) {
        int h = System.identityHashCode(o);
        return h ^ (h >>> 16);
    }
}
