package dev.verbatim.wire;

/**
 * Object index to memo slot, for a {@link Materializer} that copies a subgraph out of a message (a field read through
 * a view): slots are numbered 0, 1, 2... in the order objects are first met, so the memo holds one slot per object
 * the materialization reaches, however many objects the message holds. (A materialization of the root uses the object
 * index as the slot: its tables are the message's size, which validation already cost.)
 *
 * <p>Open addressing with linear probing on {@code index + 1} (0 is an empty cell), at most half full. Every cost is
 * proportional to the slots assigned; nothing depends on the values of the indices but their hash.
 *
 * <p>Not thread-safe: one per materialization.
 */
final class MemoSlots {
    private int[] cells = new int[16];
    private int[] slots = new int[16];
    private int size;

    /** The slot of object {@code index} (not negative), assigned now (the next number) if it has none. */
    int slot(int index) {
        int key = index + 1;
        int mask = cells.length - 1;
        int h = mix(key) & mask;
        for (int c; (c = cells[h]) != 0; h = (h + 1) & mask) {
            if (c == key) return slots[h];
        }
        int s = size++;
        cells[h] = key;
        slots[h] = s;
        if (2 * size > cells.length) grow();
        return s;
    }

    /** Slots assigned so far. */
    int size() { return size; }

    private void grow() {
        int[] oldCells = cells, oldSlots = slots;
        cells = new int[2 * oldCells.length];
        slots = new int[cells.length];
        int mask = cells.length - 1;
        for (int i = 0; i < oldCells.length; i++) {
            int key = oldCells[i];
            if (key == 0) continue;
            int h = mix(key) & mask;
            while (cells[h] != 0) h = (h + 1) & mask;
            cells[h] = key;
            slots[h] = oldSlots[i];
        }
    }

    private static int mix(int key) {
        int h = key * 0x9E3779B9;
        return h ^ (h >>> 16);
    }
}
