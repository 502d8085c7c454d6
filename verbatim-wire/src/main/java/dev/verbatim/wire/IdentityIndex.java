package dev.verbatim.wire;

import java.util.Arrays;

/**
 * Object → index by identity, open addressing with linear probing: the writer's record of objects already
 * placed in the message (sharing and cycles). Cleared in time proportional to what was inserted.
 *
 * <p>Not thread-safe: one per {@link WireWriter}.
 */
final class IdentityIndex {
    private Object[] keys = new Object[64];
    private int[] values = new int[64];
    private int[] used = new int[32];
    private int size;

    /** The index of {@code key} if present; otherwise inserts it with {@code value} and returns -1. One probe sequence. */
    int getOrPut(Object key, int value) {
        if ((size + 1) * 2 > keys.length) grow();
        Object[] k = keys;
        int mask = k.length - 1;
        int i = hash(key) & mask;
        while (true) {
            Object cur = k[i];
            if (cur == key) return values[i];
            if (cur == null) break;
            i = (i + 1) & mask;
        }
        k[i] = key;
        values[i] = value;
        if (size == used.length) used = Arrays.copyOf(used, size * 2);
        used[size++] = i;
        return -1;
    }

    private void insert(Object key, int value) {
        Object[] k = keys;
        int mask = k.length - 1;
        int i = hash(key) & mask;
        while (k[i] != null) i = (i + 1) & mask;
        k[i] = key;
        values[i] = value;
        if (size == used.length) used = Arrays.copyOf(used, size * 2);
        used[size++] = i;
    }

    private void grow() {
        Object[] oldK = keys;
        int[] oldV = values;
        int[] oldUsed = used;
        int n = size;
        keys = new Object[oldK.length * 2];
        values = new int[oldK.length * 2];
        size = 0;
        for (int j = 0; j < n; j++) {
            int slot = oldUsed[j];
            insert(oldK[slot], oldV[slot]);
        }
    }

    void clear() {
        Object[] k = keys;
        int[] u = used;
        for (int j = 0; j < size; j++) k[u[j]] = null;
        size = 0;
        if (k.length > (1 << 16)) {
            keys = new Object[64]; // a huge graph once should not pin a huge table forever
            values = new int[64];
            used = new int[32];
        }
    }

    private static int hash(Object o) {
        int h = System.identityHashCode(o);
        return h ^ (h >>> 16);
    }
}
