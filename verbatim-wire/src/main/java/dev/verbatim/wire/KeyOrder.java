package dev.verbatim.wire;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import static dev.verbatim.wire.MessageDescriptor.*;

/**
 * The order of the keys of a map (and the elements of a set) on the wire: a map or set object carries, after its
 * entries in the sender's iteration order, the permutation that lists them in ascending key order, and the keys in that
 * order must be strictly ascending (so they are unique). The order, by the key's type:
 * <ul>
 *   <li>{@code string}: by UTF-16 code units, as {@code String.compareTo};
 *   <li>{@code box(...)}: by value, as the box's {@code compare} ({@code Double.compare}: -0.0 before 0.0, NaN last;
 *       {@code char} unsigned; {@code false} before {@code true});
 *   <li>an enum: by ordinal;
 *   <li>anything else (structs, value types, arrays, collections): by object index, so keys are distinct objects (two
 *       distinct objects equal by {@code equals} are refused when the map is materialized);
 *   <li>null (-1) before every other key.
 * </ul>
 * Views search the permutation in place (binary search) for string, box and enum keys.
 *
 * <p>Stateless; thread-safe.
 */
final class KeyOrder {
    private KeyOrder() {}

    /** How keys of a type compare: by string, by box value, by enum ordinal, by object index. */
    static final int STRING = 0, BOX = 1, ENUM = 2, INDEX = 3;

    /** The chars string keys may cost to compare when a message is validated, per byte of the message. */
    static final int CHARS_PER_BYTE = 16;

    static int of(Shape key) {
        return switch (key.kind) {
            case Shape.STRING -> STRING;
            case Shape.BOX -> BOX;
            case Shape.ENUM -> ENUM;
            default -> INDEX;
        };
    }

    // ------------------------------------------------------------------ Java objects (the writer)

    /**
     * Fills {@code order[0..n)} with the permutation that sorts the keys ascending, given the keys as Java objects
     * and as written (object indices or enum ordinals).
     */
    static void sort(Shape key, Object[] keys, int[] written, int n, int[] order) {
        int how = of(key);
        Integer[] boxed = null;
        if (n > 32) boxed = new Integer[n];
        for (int i = 0; i < n; i++) {
            if (boxed != null) boxed[i] = i;
            else order[i] = i;
        }
        if (boxed != null) {
            Arrays.sort(boxed, (a, b) -> compareJava(how, key, keys[a], written[a], keys[b], written[b]));
            for (int i = 0; i < n; i++) order[i] = boxed[i];
            return;
        }
        for (int i = 1; i < n; i++) { // insertion sort: maps and sets are mostly small
            int x = order[i];
            int j = i - 1;
            while (j >= 0 && compareJava(how, key, keys[order[j]], written[order[j]], keys[x], written[x]) > 0) {
                order[j + 1] = order[j];
                j--;
            }
            order[j + 1] = x;
        }
    }

    private static int compareJava(int how, Shape key, Object a, int wa, Object b, int wb) {
        if (how == INDEX || how == ENUM || a == null || b == null) return Integer.compare(wa, wb); // null is -1: first
        if (how == STRING) return CharSequence.compare((CharSequence) a, (CharSequence) b);
        return switch (key.element.kind) {
            case Shape.BOOL -> Boolean.compare((Boolean) a, (Boolean) b);
            case Shape.I8 -> Byte.compare((Byte) a, (Byte) b);
            case Shape.U16 -> Character.compare((Character) a, (Character) b);
            case Shape.I16 -> Short.compare((Short) a, (Short) b);
            case Shape.I32 -> Integer.compare((Integer) a, (Integer) b);
            case Shape.I64 -> Long.compare((Long) a, (Long) b);
            case Shape.F32 -> Float.compare((Float) a, (Float) b);
            default -> Double.compare((Double) a, (Double) b);
        };
    }

    // ------------------------------------------------------------------ in place (the validator, views)

    /**
     * Compares two keys as written ({@code a}, {@code b}: object indices or enum ordinals) in a message whose objects
     * are validated (every entry's offset and every string's length are known to fit).
     */
    static int compareWire(MemorySegment m, long[] entries, Shape key, int a, int b, long[] budget) {
        int how = of(key);
        if (how == INDEX || how == ENUM || a == NULL_REF || b == NULL_REF) return Integer.compare(a, b);
        long oa = Integer.toUnsignedLong(entryOffset(entries[a])), ob = Integer.toUnsignedLong(entryOffset(entries[b]));
        if (how == STRING) return compareStrings(m, oa, ob, budget);
        return compareBoxes(m, key.element.kind, oa, ob);
    }

    private static int compareBoxes(MemorySegment m, int kind, long oa, long ob) {
        return switch (kind) {
            case Shape.BOOL, Shape.I8 -> Byte.compare(m.get(I8, oa), m.get(I8, ob));
            case Shape.U16 -> Character.compare(m.get(U16, oa), m.get(U16, ob));
            case Shape.I16 -> Short.compare(m.get(I16, oa), m.get(I16, ob));
            case Shape.I32 -> Integer.compare(m.get(I32, oa), m.get(I32, ob));
            case Shape.I64 -> Long.compare(m.get(I64, oa), m.get(I64, ob));
            case Shape.F32 -> Float.compare(m.get(F32, oa), m.get(F32, ob));
            default -> Double.compare(m.get(F64, oa), m.get(F64, ob));
        };
    }

    /**
     * Two validated strings at {@code oa}, {@code ob}, by UTF-16 code units; the chars compared are taken from
     * {@code budget[0]} (a message whose keys share long prefixes across many maps could otherwise cost far more than
     * its size to check).
     */
    private static int compareStrings(MemorySegment m, long oa, long ob, long[] budget) {
        int ha = m.get(I32, oa), hb = m.get(I32, ob);
        int na = ha & ~STRING_UTF16_BIT, nb = hb & ~STRING_UTF16_BIT;
        boolean ua = (ha & STRING_UTF16_BIT) != 0, ub = (hb & STRING_UTF16_BIT) != 0;
        long da = oa + STRING_DATA_OFFSET, db = ob + STRING_DATA_OFFSET;
        int i = 0;
        try {
            for (int n = Math.min(na, nb); i < n; i++) {
                char ca = ua ? m.get(U16, da + 2L * i) : (char) (m.get(I8, da + i) & 0xFF);
                char cb = ub ? m.get(U16, db + 2L * i) : (char) (m.get(I8, db + i) & 0xFF);
                if (ca != cb) return Character.compare(ca, cb);
            }
            return Integer.compare(na, nb);
        } finally {
            budget[0] -= i + 1;
        }
    }

    /**
     * Compares key {@code written} of a message with a Java value {@code probe} of the key's type (a
     * {@code CharSequence}, the box, or the writer's enum ordinal as an {@code Integer}); the key's string or box is
     * read in place, bounds-checked against {@code tail} (the memory may have changed since validation).
     */
    static int compareProbe(Message msg, Shape key, int written, Object probe) {
        int how = of(key);
        if (written == NULL_REF) return -1;
        if (how == ENUM) return Integer.compare(written, (Integer) probe);
        MemorySegment m = msg.seg;
        if (how == STRING) {
            long o = msg.objectOffset(written, Shape.STRING_SHAPE);
            int h = msg.stringHeader(o);
            CharSequence p = (CharSequence) probe;
            int n = h & ~STRING_UTF16_BIT;
            boolean u = (h & STRING_UTF16_BIT) != 0;
            long d = o + STRING_DATA_OFFSET;
            for (int i = 0, k = Math.min(n, p.length()); i < k; i++) {
                char c = u ? m.get(U16, d + 2L * i) : (char) (m.get(I8, d + i) & 0xFF);
                if (c != p.charAt(i)) return Character.compare(c, p.charAt(i));
            }
            return Integer.compare(n, p.length());
        }
        long o = msg.objectOffset(written, key);
        return switch (key.element.kind) {
            case Shape.BOOL -> Boolean.compare(Materializer.bool(m, o), (Boolean) probe);
            case Shape.I8 -> Byte.compare(m.get(I8, o), (Byte) probe);
            case Shape.U16 -> Character.compare(m.get(U16, o), (Character) probe);
            case Shape.I16 -> Short.compare(m.get(I16, o), (Short) probe);
            case Shape.I32 -> Integer.compare(m.get(I32, o), (Integer) probe);
            case Shape.I64 -> Long.compare(m.get(I64, o), (Long) probe);
            case Shape.F32 -> Float.compare(m.get(F32, o), (Float) probe);
            default -> Double.compare(m.get(F64, o), (Double) probe);
        };
    }

    /**
     * Checks the map or set object at {@code pos} (of {@code n} entries, validated as an object): its order is a
     * permutation of {@code [0, n)} and lists the keys strictly ascending. Run after the walk, when every object the
     * keys name is known to fit.
     */
    static void check(MemorySegment m, Shape s, long pos, long[] entries, long[] budget) {
        int n = m.get(I32, pos + ARRAY_LENGTH_OFFSET);
        long keys = pos + 4, order = keys + (long) (s.keyedEntrySize() - 4) * n;
        boolean[] seen = new boolean[n];
        int prev = -1;
        for (int i = 0; i < n; i++) {
            long at = order + 4L * i;
            int k = m.get(I32, at);
            if (k < 0 || k >= n || seen[k]) throw new WireFormatException(at, "map or set order not a permutation", "index " + k + " of " + n);
            seen[k] = true;
            if (i > 0) {
                int a = m.get(I32, keys + 4L * prev), b = m.get(I32, keys + 4L * k);
                if (compareWire(m, entries, s.element, a, b, budget) >= 0) {
                    throw new WireFormatException(at, "map keys or set elements not unique and in order", "entries " + prev + " and " + k);
                }
                if (budget[0] < 0) {
                    throw new WireFormatException(at, "map keys cost more to compare than the message's budget",
                            "string keys compared char by char beyond " + CHARS_PER_BYTE + " chars per byte of the message");
                }
            }
            prev = k;
        }
    }
}
