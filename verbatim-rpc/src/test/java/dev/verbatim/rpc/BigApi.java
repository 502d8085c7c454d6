package dev.verbatim.rpc;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Interfaces of the streamed-values tests: arrays and segments larger than a receive area. */
public final class BigApi {
    private BigApi() {}

    public interface Blobs {
        /** {@link #checksum} of the bytes. */
        long sum(byte[] bytes);

        /** {@link #checksum} of the segment's bytes, read in place. */
        long sumSegment(MemorySegment bytes);

        /** The sum of the ints, and of the longs. */
        long sumInts(int[] ints);

        /** {@code n} bytes made by {@link #fill}. */
        byte[] make(int n, int seed);

        /** The same as a segment. */
        MemorySegment makeSegment(int n, int seed);

        /** {@code n} longs, each its index times {@code k}. */
        long[] longs(int n, long k);

        /** The segment's first byte after the call's end: what reading it then threw ("none" if nothing). */
        String readAfter(MemorySegment bytes);

        void nothing();
    }

    /** Bytes no two offsets of which agree by accident: a byte out of place changes the checksum. */
    public static byte[] fill(int n, int seed) {
        byte[] b = new byte[n];
        int x = seed * 0x9E3779B9 + 1;
        for (int i = 0; i < n; i++) {
            x ^= x << 13;
            x ^= x >>> 17;
            x ^= x << 5;
            b[i] = (byte) x;
        }
        return b;
    }

    /** A position-dependent checksum of the bytes. */
    public static long checksum(MemorySegment s) {
        long h = s.byteSize();
        long n = s.byteSize() / 8;
        for (long i = 0; i < n; i++) {
            h = h * 31 + s.get(ValueLayout.JAVA_LONG_UNALIGNED, i * 8);
        }
        for (long i = n * 8; i < s.byteSize(); i++) {
            h = h * 31 + s.get(ValueLayout.JAVA_BYTE, i);
        }
        return h;
    }

    public static final class BlobsImpl implements Blobs {
        public volatile MemorySegment lastSegment;

        public BlobsImpl() {
        }

        @Override
        public long sum(byte[] bytes) {
            return checksum(MemorySegment.ofArray(bytes));
        }

        @Override
        public long sumSegment(MemorySegment bytes) {
            return checksum(bytes);
        }

        @Override
        public long sumInts(int[] ints) {
            long s = 0;
            for (int i : ints) {
                s += i;
            }
            return s;
        }

        @Override
        public byte[] make(int n, int seed) {
            return fill(n, seed);
        }

        @Override
        public MemorySegment makeSegment(int n, int seed) {
            return MemorySegment.ofArray(fill(n, seed));
        }

        @Override
        public long[] longs(int n, long k) {
            long[] r = new long[n];
            for (int i = 0; i < n; i++) {
                r[i] = i * k;
            }
            return r;
        }

        @Override
        public String readAfter(MemorySegment bytes) {
            lastSegment = bytes;
            return "none";
        }

        @Override
        public void nothing() {
        }
    }
}
