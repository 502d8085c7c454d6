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

    /** Chars a {@link String} is copied through the writer's scratch arrays in: longer strings go in chunks of it. */
    static final int CHUNK = 1024;

    /** Scratch arrays for {@link #writeString(String, byte[], char[], MemorySegment, long, long)}: one per writer. */
    static byte[] latin1Scratch() { return new byte[STRING_DATA_OFFSET + CHUNK + OBJECT_ALIGNMENT]; }

    static char[] utf16Scratch() { return new char[CHUNK + OBJECT_ALIGNMENT / 2]; }

    /**
     * Writes a {@code String} at {@code pos} (8-aligned from the message's start) and zeroes its padding. A string of
     * at most {@link #CHUNK} chars is copied out whole ({@code getChars}), narrowed into {@code bytes} after its header
     * (the OR of its chars says whether one is beyond U+00FF) and bulk-copied with its header and padding in one copy;
     * a wide one is copied from {@code chars} as UTF-16. A longer string is narrowed a chunk at a time, and written
     * again as UTF-16 at the first char beyond U+00FF. Returns the size with its padding ({@code align8} of it), or -1
     * if it would pass {@code limit}.
     */
    static long writeString(String s, byte[] bytes, char[] chars, MemorySegment seg, long pos, long limit) {
        int n = s.length();
        long data = pos + STRING_DATA_OFFSET;
        long padded = align8(STRING_DATA_OFFSET + (long) n);
        if (pos + padded > limit) return -1; // UTF-16 is longer still
        if (n <= CHUNK) {
            s.getChars(0, n, chars, 0);
            int any = 0;
            for (int i = 0; i < n; i++) {
                char c = chars[i];
                any |= c;
                bytes[STRING_DATA_OFFSET + i] = (byte) c;
            }
            if (any > 0xFF) return writeUtf16(chars, n, seg, pos, limit);
            bytes[0] = (byte) n;
            bytes[1] = (byte) (n >>> 8);
            bytes[2] = (byte) (n >>> 16);
            bytes[3] = (byte) (n >>> 24);
            for (int i = STRING_DATA_OFFSET + n; i < padded; i++) bytes[i] = 0;
            MemorySegment.copy(bytes, 0, seg, I8, pos, (int) padded);
            return padded;
        }
        int from = 0;
        do {
            int k = Math.min(CHUNK, n - from);
            for (int i = 0; i < k; i++) {
                char c = s.charAt(from + i);
                if (c > 0xFF) return writeUtf16(s, chars, seg, pos, limit);
                bytes[i] = (byte) c;
            }
            int copy = k;
            if (from + k == n) { // the last chunk carries the padding's zeros
                int end = (int) (padded - STRING_DATA_OFFSET);
                for (int i = k; i < end - from; i++) bytes[i] = 0;
                copy = end - from;
            }
            MemorySegment.copy(bytes, 0, seg, I8, data + from, copy);
            from += k;
        } while (from < n);
        seg.set(I32, pos, n);
        return padded;
    }

    /** A string of at most {@link #CHUNK} chars, in {@code chars[0..n)}, with a char beyond U+00FF: as UTF-16. */
    private static long writeUtf16(char[] chars, int n, MemorySegment seg, long pos, long limit) {
        long padded = align8(STRING_DATA_OFFSET + 2L * n);
        if (pos + padded > limit) return -1;
        int end = (int) ((padded - STRING_DATA_OFFSET) / 2);
        for (int i = n; i < end; i++) chars[i] = 0;
        seg.set(I32, pos, n | STRING_UTF16_BIT);
        MemorySegment.copy(chars, 0, seg, U16, pos + STRING_DATA_OFFSET, end);
        return padded;
    }

    /** {@link #writeString(String, byte[], char[], MemorySegment, long, long)} for a long string with a char beyond U+00FF. */
    private static long writeUtf16(String s, char[] chars, MemorySegment seg, long pos, long limit) {
        int n = s.length();
        long data = pos + STRING_DATA_OFFSET;
        long padded = align8(STRING_DATA_OFFSET + 2L * n);
        if (pos + padded > limit) return -1;
        int from = 0;
        do {
            int k = Math.min(CHUNK, n - from);
            s.getChars(from, from + k, chars, 0);
            int copy = k;
            if (from + k == n) {
                int end = (int) ((padded - STRING_DATA_OFFSET) / 2);
                for (int i = k; i < end - from; i++) chars[i] = 0;
                copy = end - from;
            }
            MemorySegment.copy(chars, 0, seg, U16, data + 2L * from, copy);
            from += k;
        } while (from < n);
        seg.set(I32, pos, n | STRING_UTF16_BIT);
        return padded;
    }

    /** Writes a string object at {@code pos}; returns its size, or -1 if it would pass {@code limit}. */
    static long writeString(CharSequence s, MemorySegment seg, long pos, long limit) {
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
