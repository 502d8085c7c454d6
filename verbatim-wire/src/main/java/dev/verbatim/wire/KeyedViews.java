package dev.verbatim.wire;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;

import static dev.verbatim.wire.MessageDescriptor.*;

/**
 * Maps and sets read in place through views: unmodifiable {@link Map}s and {@link Set}s over a map or set object of a
 * message. Iteration follows the sender's order (the entries as written); {@code get}, {@code containsKey} and
 * {@code contains} with a string, box or enum key binary-search the object's key order ({@link KeyOrder}) in place,
 * comparing the probe with the keys where they lie, with no key materialized; other keys are found by a scan that
 * reads each key and compares it with {@code equals}. Keys and values are read on each access, as every view field
 * (views for accessor interfaces and {@code CharSequence}, copies for records, strings, ...).
 *
 * <p>Every read re-checks what it reads (indices, lengths): a message changed after validation yields at worst a
 * {@link WireFormatException}. Thread-safe for reads, as the message.
 */
final class KeyedViews {
    private KeyedViews() {}

    static Map<Object, Object> map(Message msg, int r, Binding b) { return new MapView(new Keyed(msg, r, b)); }

    static Set<Object> set(Message msg, int r, Binding b) { return new SetView(new Keyed(msg, r, b)); }

    /** The layout of one map or set object: {@code [u32 n][n keys][n values (maps)][n u32 order]}. */
    private static final class Keyed {
        final Message msg;
        final Binding b;
        final int n;
        final long keys, values, order;

        Keyed(Message msg, int r, Binding b) {
            this.msg = msg;
            this.b = b;
            long o = msg.objectOffset(r, b.w);
            this.n = msg.keyedLength(o, b.w);
            this.keys = o + 4;
            this.values = keys + 4L * n;
            this.order = keys + (long) (b.w.keyedEntrySize() - 4) * n;
        }

        int writtenKey(int i) { return msg.seg.get(I32, keys + 4L * i); }

        Object key(int i) { return read(writtenKey(i), b.element); }

        Object value(int i) { return read(msg.seg.get(I32, values + 4L * i), b.mapValue); }

        private Object read(int x, Binding e) {
            if (e.r.jkind == JType.REF) return msg.slot(x, e.r.raw); // a map value passed by reference
            if (e.r.jkind == JType.ENUM) {
                if (x == NULL_REF) return null;
                if (x < 0 || x >= e.enumValues.length) throw Message.changed(-1, "enum ordinal out of range");
                return e.enumValue(x);
            }
            return msg.readRef(x, e);
        }

        /** The entry whose key equals {@code probe}, or -1. */
        int find(Object probe) {
            Shape k = b.w.element;
            int how = KeyOrder.of(k);
            Object p = probe;
            if (probe == null) how = KeyOrder.INDEX;
            else if (how == KeyOrder.STRING && !(probe instanceof CharSequence)) return -1;
            else if (how == KeyOrder.BOX && probe.getClass() != b.element.r.raw) return -1;
            else if (how == KeyOrder.ENUM) {
                p = null;
                Object[] reader = b.element.enumValues;
                for (int w = 0; w < reader.length; w++) if (reader[w] == probe) p = w;
                if (p == null) return -1;
            }
            if (how == KeyOrder.INDEX) { // by equals, in the sender's order
                for (int i = 0; i < n; i++) if (Objects.equals(key(i), probe)) return i;
                return -1;
            }
            int lo = 0, hi = n - 1;
            while (lo <= hi) {
                int mid = (lo + hi) >>> 1;
                int i = msg.seg.get(I32, order + 4L * mid);
                if (i < 0 || i >= n) throw Message.changed(order + 4L * mid, "map or set order out of range");
                int c = KeyOrder.compareProbe(msg, k, writtenKey(i), p);
                if (c == 0) return i;
                if (c < 0) lo = mid + 1;
                else hi = mid - 1;
            }
            return -1;
        }
    }

    /** Entries {@code 0 .. n-1}, in the sender's order. */
    private abstract static class Walk<T> implements Iterator<T> {
        final Keyed k;
        int i;

        Walk(Keyed k) { this.k = k; }

        @Override public boolean hasNext() { return i < k.n; }

        @Override public T next() {
            if (i >= k.n) throw new NoSuchElementException();
            return at(i++);
        }

        abstract T at(int i);
    }

    private static final class MapView extends AbstractMap<Object, Object> {
        private final Keyed k;

        MapView(Keyed k) { this.k = k; }

        @Override public int size() { return k.n; }

        @Override public Object get(Object key) {
            int i = k.find(key);
            return i < 0 ? null : k.value(i);
        }

        @Override public boolean containsKey(Object key) { return k.find(key) >= 0; }

        @Override public Set<Entry<Object, Object>> entrySet() {
            return new AbstractSet<>() {
                @Override public int size() { return k.n; }

                @Override public Iterator<Entry<Object, Object>> iterator() {
                    return new Walk<>(k) {
                        @Override Entry<Object, Object> at(int i) { return new SimpleImmutableEntry<>(k.key(i), k.value(i)); }
                    };
                }
            };
        }
    }

    private static final class SetView extends AbstractSet<Object> {
        private final Keyed k;

        SetView(Keyed k) { this.k = k; }

        @Override public int size() { return k.n; }

        @Override public boolean contains(Object o) { return k.find(o) >= 0; }

        @Override public Iterator<Object> iterator() {
            return new Walk<>(k) {
                @Override Object at(int i) { return k.key(i); }
            };
        }
    }
}
