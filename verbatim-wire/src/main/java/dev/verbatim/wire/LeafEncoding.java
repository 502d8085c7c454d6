package dev.verbatim.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static dev.verbatim.wire.MessageDescriptor.*;

/**
 * The bytes of leaf objects, which hold no references: boxed values, strings (Latin-1 when every char fits a
 * byte, else UTF-16, the flag in the length word) and the header of a primitive array. Stateless; shared by the
 * writer, the validator (sizes) and the materializer (bulk copies). Layouts: {@link MessageDescriptor}.
 */
final class LeafEncoding {
    private LeafEncoding() {}

    /** Writes an array's length (and the zero padding before 8-byte elements); returns the data offset. */
    static int arrayHeader(MemorySegment seg, long pos, int n, int elementSize) {
        seg.set(I32, pos, n);
        int data = arrayDataOffset(elementSize);
        if (data == 8) seg.set(I32, pos + 4, 0);
        return data;
    }

    /** The bytes of a boxed primitive of kind {@code k}. */
    static int boxSize(int k) { return Shape.PRIM_SIZES[k]; }

    /** Writes a boxed primitive of kind {@code k}; returns its size. */
    static long writeBox(Object o, int k, MemorySegment seg, long at) {
        switch (k) {
            case Shape.BOOL -> seg.set(I8, at, (byte) ((Boolean) o ? 1 : 0));
            case Shape.I8 -> seg.set(I8, at, (Byte) o);
            case Shape.U16 -> seg.set(U16, at, (Character) o);
            case Shape.I16 -> seg.set(I16, at, (Short) o);
            case Shape.I32 -> seg.set(I32, at, (Integer) o);
            case Shape.I64 -> seg.set(I64, at, (Long) o);
            case Shape.F32 -> seg.set(F32, at, (Float) o);
            default -> seg.set(F64, at, (Double) o);
        }
        return boxSize(k);
    }

    /** Whether every char of {@code s} fits one byte (the string is then written as Latin-1). */
    static boolean isLatin1(CharSequence s) {
        for (int i = 0, n = s.length(); i < n; i++) if (s.charAt(i) > 0xFF) return false;
        return true;
    }

    /** Strings up to this many chars are written a word at a time by {@link #writeString}. */
    static final int SHORT_STRING = 64;

    /**
     * Writes a string object at {@code pos} (8-aligned within its message); returns its size, or -1 if it would pass
     * {@code limit}.
     *
     * <p>A short Latin-1 string is written with its zero padding in 8-byte words, the length word and the first four
     * chars in one store, while one pass over its chars checks that each fits a byte: the general path's pre-pass and
     * per-byte stores (each with its own bounds check) cost more than the string's bytes on small payloads. The size
     * returned is then the padded one (the writer pads to 8 anyway); a string with a char beyond U+00FF is rewritten
     * as UTF-16 by the general path over the words written.
     */
    static long writeString(CharSequence s, MemorySegment seg, long pos, long limit) {
        int n = s.length();
        if (n <= SHORT_STRING) {
            long padded = (STRING_DATA_OFFSET + n + 7) & ~7L;
            if (pos + padded <= limit) {
                long w = n;
                int wide = 0;
                int j = STRING_DATA_OFFSET; // the byte of the object the next char goes to
                for (int i = 0; i < n; i++, j++) {
                    char c = s.charAt(i);
                    wide |= c;
                    w |= (long) (c & 0xFF) << ((j & 7) << 3);
                    if ((j & 7) == 7) {
                        seg.set(I64, pos + j - 7, w);
                        w = 0;
                    }
                }
                if (wide <= 0xFF) {
                    if ((j & 7) != 0) seg.set(I64, pos + (j & ~7), w);
                    return padded;
                }
            }
        }
        return writeStringGeneral(s, seg, pos, limit);
    }

    /**
     * {@link #writeString} of a long string, a UTF-16 one, or one near {@code limit}: a method of its own, so that the
     * short path stays small enough for the JIT to inline into the writer's loop (through one method holding both,
     * two 4-char strings took 17.4-17.7 ns, against 11.4-11.5 now).
     */
    private static long writeStringGeneral(CharSequence s, MemorySegment seg, long pos, long limit) {
        int n = s.length();
        long p = pos + STRING_DATA_OFFSET;
        boolean latin1 = isLatin1(s);
        if (p + (latin1 ? (long) n : 2L * n) > limit) return -1;
        if (latin1) {
            seg.set(I32, pos, n);
            for (int i = 0; i < n; i++) seg.set(I8, p + i, (byte) s.charAt(i));
            return STRING_DATA_OFFSET + n;
        }
        seg.set(I32, pos, n | STRING_UTF16_BIT);
        for (int i = 0; i < n; i++) seg.set(U16, p + 2L * i, s.charAt(i));
        return STRING_DATA_OFFSET + 2L * n;
    }

    /** The layout of one element of a primitive array of kind {@code k}. */
    static ValueLayout elementLayout(int k) {
        return switch (k) {
            case Shape.BOOL -> ValueLayout.JAVA_BOOLEAN;
            case Shape.I8 -> I8;
            case Shape.U16 -> U16;
            case Shape.I16 -> I16;
            case Shape.I32 -> I32;
            case Shape.I64 -> I64;
            case Shape.F32 -> F32;
            default -> F64;
        };
    }
}
