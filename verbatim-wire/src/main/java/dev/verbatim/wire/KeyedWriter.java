package dev.verbatim.wire;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import static dev.verbatim.wire.MessageDescriptor.I32;

/**
 * Writes a map or a set for its {@link WireWriter} (docs/wire-format.md, maps and sets): its length, its keys (elements)
 * and, for a map, its values, each in the collection's iteration order, then the order of the keys ({@link KeyOrder}).
 * Keys and values are placed through the writer ({@link WireWriter#ref}, {@link WireWriter#ordinal}).
 *
 * <p>Not thread-safe: one per writer; it keeps its scratch tables between maps.
 */
final class KeyedWriter {
    private final WireWriter w;
    /** A map's or set's keys, as objects and as written, and their order: kept between maps. */
    private Object[] keys = new Object[16];
    private int[] written = new int[16];
    private int[] order = new int[16];

    KeyedWriter(WireWriter w) {
        this.w = w;
    }

    /** Writes map or set {@code o} of type {@code t} at {@code pos}; its size in bytes, or -1 if it does not fit before {@code limit}. */
    long write(Object o, JType t, MemorySegment seg, long pos, long limit) {
        boolean map = t.jkind == JType.MAP;
        java.util.Collection<?> ks = map ? ((java.util.Map<?, ?>) o).keySet() : (java.util.Set<?>) o;
        int n = ks.size();
        if (pos + 4 + (long) n * t.shape.keyedEntrySize() > limit) return -1;
        seg.set(I32, pos, n);
        if (n > keys.length) {
            keys = new Object[Math.max(n, 2 * keys.length)];
            written = new int[keys.length];
            order = new int[keys.length];
        }
        int i = 0;
        for (Object k : ks) {
            if (i == n) throw new java.util.ConcurrentModificationException("map or set changed size while being written");
            keys[i] = k;
            written[i] = t.element.isInline() ? w.ordinal(k, t.element) : w.ref(k, t.element);
            seg.set(I32, pos + 4 + 4L * i, written[i]);
            i++;
        }
        if (i != n) throw new java.util.ConcurrentModificationException("map or set changed size while being written");
        long at = pos + 4 + 4L * n;
        if (map) {
            i = 0;
            for (Object v : ((java.util.Map<?, ?>) o).values()) {
                if (i++ == n) throw new java.util.ConcurrentModificationException("map changed size while being written");
                seg.set(I32, at, t.mapValue.isInline() ? w.ordinal(v, t.mapValue) : w.ref(v, t.mapValue));
                at += 4;
            }
        }
        KeyOrder.sort(t.shape.element, keys, written, n, order);
        Arrays.fill(keys, 0, n, null);
        MemorySegment.copy(order, 0, seg, I32, at, n);
        return 4 + (long) n * t.shape.keyedEntrySize();
    }

    /** Drops scratch tables a huge map grew: one huge message does not pin memory. */
    void shrink() {
        if (keys.length > (1 << 16)) {
            keys = new Object[16];
            written = new int[16];
            order = new int[16];
        }
    }
}
