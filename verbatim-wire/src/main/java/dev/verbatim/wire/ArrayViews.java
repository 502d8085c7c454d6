package dev.verbatim.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static dev.verbatim.wire.MessageDescriptor.*;

/** The {@link ArrayView} implementations over a read-only slice of a message. */
final class ArrayViews {
    private ArrayViews() {}

    static ArrayView of(int kind, MemorySegment s) {
        return switch (kind) {
            case Shape.BOOL -> new Bools(s);
            case Shape.I8 -> new Bytes(s);
            case Shape.U16 -> new Chars(s);
            case Shape.I16 -> new Shorts(s);
            case Shape.I32 -> new Ints(s);
            case Shape.I64 -> new Longs(s);
            case Shape.F32 -> new Floats(s);
            default -> new Doubles(s);
        };
    }

    private abstract static class Base implements ArrayView {
        final MemorySegment s;
        final int n;

        Base(MemorySegment s, int size) {
            this.s = s;
            this.n = (int) (s.byteSize() / size);
        }

        @Override public int length() { return n; }

        @Override public MemorySegment segment() { return s; }

        @Override public String toString() { return getClass().getSimpleName() + "[" + n + "]"; }
    }

    static final class Bools extends Base implements ArrayView.OfBoolean {
        Bools(MemorySegment s) { super(s, 1); }
        @Override public boolean get(int i) { return s.get(I8, java.util.Objects.checkIndex(i, n)) != 0; }
        @Override public boolean[] toArray() { boolean[] a = new boolean[n]; for (int i = 0; i < n; i++) a[i] = get(i); return a; }
    }

    static final class Bytes extends Base implements ArrayView.OfByte {
        Bytes(MemorySegment s) { super(s, 1); }
        @Override public byte get(int i) { return s.get(I8, java.util.Objects.checkIndex(i, n)); }
        @Override public byte[] toArray() { return s.toArray(ValueLayout.JAVA_BYTE); }
    }

    static final class Chars extends Base implements ArrayView.OfChar {
        Chars(MemorySegment s) { super(s, 2); }
        @Override public char get(int i) { return s.get(U16, 2L * java.util.Objects.checkIndex(i, n)); }
        @Override public char[] toArray() { return s.toArray(U16); }
    }

    static final class Shorts extends Base implements ArrayView.OfShort {
        Shorts(MemorySegment s) { super(s, 2); }
        @Override public short get(int i) { return s.get(I16, 2L * java.util.Objects.checkIndex(i, n)); }
        @Override public short[] toArray() { return s.toArray(I16); }
    }

    static final class Ints extends Base implements ArrayView.OfInt {
        Ints(MemorySegment s) { super(s, 4); }
        @Override public int get(int i) { return s.get(I32, 4L * java.util.Objects.checkIndex(i, n)); }
        @Override public int[] toArray() { return s.toArray(I32); }
    }

    static final class Longs extends Base implements ArrayView.OfLong {
        Longs(MemorySegment s) { super(s, 8); }
        @Override public long get(int i) { return s.get(I64, 8L * java.util.Objects.checkIndex(i, n)); }
        @Override public long[] toArray() { return s.toArray(I64); }
    }

    static final class Floats extends Base implements ArrayView.OfFloat {
        Floats(MemorySegment s) { super(s, 4); }
        @Override public float get(int i) { return s.get(F32, 4L * java.util.Objects.checkIndex(i, n)); }
        @Override public float[] toArray() { return s.toArray(F32); }
    }

    static final class Doubles extends Base implements ArrayView.OfDouble {
        Doubles(MemorySegment s) { super(s, 8); }
        @Override public double get(int i) { return s.get(F64, 8L * java.util.Objects.checkIndex(i, n)); }
        @Override public double[] toArray() { return s.toArray(F64); }
    }
}
