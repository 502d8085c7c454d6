package dev.verbatim.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.Array;
import java.nio.charset.StandardCharsets;

import static dev.verbatim.wire.MessageDescriptor.*;

/**
 * Strings, boxes and primitive arrays copied out of a validated message into heap values (for the {@link Materializer}
 * and for views of such fields): no graph, so no materializer state. Every length is read again and checked to fit
 * before the tables (the memory may have changed since validation).
 *
 * <p>Stateless; thread-safe.
 */
final class HeapValues {
    private HeapValues() {}

    /** Strings up to this many chars are read a word at a time (a bulk copy costs more than it saves for them). */
    private static final int SHORT_STRING = 64;

    /**
     * The string at {@code o}, exactly as written (unpaired surrogates included), its length (read again: the memory
     * may have changed) checked to fit before the tables.
     *
     * <p>Short strings are read in 8-byte words from the object's start: the object starts 8-aligned and its chars end
     * before the tables, which start 8-aligned, so every word read lies inside the message (the first one too: the
     * validated object holds at least its 4-byte header).
     */
    static String readString(Message m, long o) {
        return readString(m, o, null);
    }

    /** A scratch array for {@link #readString(Message, long, byte[])}: one per materializer. */
    static byte[] stringScratch() { return new byte[SHORT_STRING]; }

    /**
     * {@link #readString(Message, long)}, a short Latin-1 string's bytes gathered in {@code scratch} (of
     * {@link #stringScratch}'s size; null: a new array): the string's own copy is then the only one that allocates.
     */
    static String readString(Message m, long o, byte[] scratch) {
        MemorySegment seg = m.seg;
        long w = seg.get(I64, o);
        int h = (int) w;
        int n = h & ~STRING_UTF16_BIT;
        boolean utf16 = (h & STRING_UTF16_BIT) != 0;
        long end = o + STRING_DATA_OFFSET + (utf16 ? 2L * n : n);
        if (end > m.tail) throw Message.changed(o, "string length out of range");
        if (n > SHORT_STRING) {
            long data = o + STRING_DATA_OFFSET;
            if (utf16) {
                char[] c = new char[n];
                MemorySegment.copy(seg, U16, data, c, 0, n);
                return new String(c);
            }
            byte[] a = new byte[n];
            MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, data, a, 0, n);
            return new String(a, StandardCharsets.ISO_8859_1);
        }
        if (utf16) {
            char[] c = new char[n];
            int j = STRING_DATA_OFFSET; // the byte of the object the next char starts at
            for (int i = 0; i < n; i++, j += 2) {
                if ((j & 7) == 0) w = seg.get(I64, o + j);
                c[i] = (char) (w >>> ((j & 7) << 3));
            }
            return new String(c);
        }
        byte[] a = scratch != null ? scratch : new byte[n];
        int j = STRING_DATA_OFFSET;
        for (int i = 0; i < n; i++, j++) {
            if ((j & 7) == 0) w = seg.get(I64, o + j);
            a[i] = (byte) (w >>> ((j & 7) << 3));
        }
        return new String(a, 0, n, StandardCharsets.ISO_8859_1);
    }

    /** A string, box or primitive array copied out of the message. */
    static Object readValue(Message m, int r, Binding b) {
        MemorySegment seg = m.seg;
        switch (b.r.jkind) {
            case JType.STRING -> {
                return readString(m, m.objectOffset(r, Shape.STRING_SHAPE));
            }
            case JType.BOXED -> {
                int k = b.w.element.kind;
                long o = m.objectOffset(r, b.w);
                if (o + LeafEncoding.boxSize(k) > m.tail) throw Message.changed(o, "box out of range");
                return readPrim(seg, k, o);
            }
            case JType.PRIM_ARRAY -> {
                int k = b.w.element.kind;
                long o = m.objectOffset(r, b.w);
                int n = m.arrayLength(o, b.w);
                Object v = Array.newInstance(b.r.raw.getComponentType(), n);
                if (k == Shape.BOOL) {
                    boolean[] a = (boolean[]) v;
                    for (int j = 0; j < n; j++) a[j] = seg.get(I8, o + 4 + j) != 0;
                } else {
                    MemorySegment.copy(seg, LeafEncoding.elementLayout(k), o + b.w.arrayDataOffset(), v, 0, n);
                }
                return v;
            }
            default -> throw new IllegalStateException("not a value type: " + b.r);
        }
    }

    static Object readPrim(MemorySegment seg, int kind, long at) {
        return switch (kind) {
            case Shape.BOOL -> Materializer.bool(seg, at);
            case Shape.I8 -> seg.get(I8, at);
            case Shape.U16 -> seg.get(U16, at);
            case Shape.I16 -> seg.get(I16, at);
            case Shape.I32 -> seg.get(I32, at);
            case Shape.I64 -> seg.get(I64, at);
            case Shape.F32 -> seg.get(F32, at);
            default -> seg.get(F64, at);
        };
    }
}
