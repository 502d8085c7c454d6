package dev.verbatim.bench.file;

import dev.verbatim.wire.ArrayView;
import dev.verbatim.wire.file.WireFile;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.FileInputStream;
import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The Java variants of the file scan: each opens the file, finds the largest int, and closes it, so each
 * figure includes opening (and for the mapped variants mapping and page faults) as in Jaguar's Figure 9.
 * Every loop, the C one included, keeps the maximum the same way ({@code if (x > max) max = x}: a branch
 * the predictor learns, as random data rarely sets a new maximum); {@code Math.max} compiles to a
 * dependent conditional move and would make every variant three times slower on a warm mapping.
 */
final class Scans {
    private Scans() {}

    /** {@code DataInputStream} straight on a {@code FileInputStream}: a {@code read} system call per int. */
    static int dis(Path raw, int ints) throws IOException {
        try (DataInputStream in = new DataInputStream(new FileInputStream(raw.toFile()))) {
            return disLoop(in, ints);
        }
    }

    /** {@code DataInputStream} on a {@code BufferedInputStream} (the default 8 KiB buffer). */
    static int disBuffered(Path raw, int ints) throws IOException {
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(new FileInputStream(raw.toFile())))) {
            return disLoop(in, ints);
        }
    }

    private static int disLoop(DataInputStream in, int ints) throws IOException {
        int max = Integer.MIN_VALUE;
        for (int i = 0; i < ints; i++) {
            int x = Integer.reverseBytes(in.readInt()); // the file is little-endian, DataInput big-endian
            if (x > max) max = x;
        }
        return max;
    }

    /**
     * {@code FileChannel.map} as a {@code MappedByteBuffer}, little-endian. Java cannot unmap such a buffer;
     * the garbage collector does, later.
     */
    static int mappedByteBuffer(Path raw) throws IOException {
        try (FileChannel ch = FileChannel.open(raw, StandardOpenOption.READ)) {
            MappedByteBuffer b = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size());
            b.order(ByteOrder.LITTLE_ENDIAN);
            int max = Integer.MIN_VALUE;
            for (int i = 0, n = b.limit() >>> 2; i < n; i++) {
                int x = b.getInt(i << 2);
                if (x > max) max = x;
            }
            return max;
        }
    }

    /** Verbatim: open the graph file (map + validate), read the root {@code int[]} in place, close (unmap). */
    static int verbatim(Path graph) throws IOException {
        try (WireFile f = WireFile.open(graph)) {
            return max(f);
        }
    }

    /** Verbatim: load the graph file (read into the heap + validate), read the root {@code int[]} there, close. */
    static int verbatimLoad(Path graph) throws IOException {
        try (WireFile f = WireFile.load(graph)) {
            return max(f);
        }
    }

    private static int max(WireFile f) {
        ArrayView.OfInt a = f.view(ArrayView.OfInt.class);
        int max = Integer.MIN_VALUE;
        for (int i = 0, n = a.length(); i < n; i++) {
            int x = a.get(i);
            if (x > max) max = x;
        }
        return max;
    }

    /** {@link WireFile#load} (read into the heap, validate), read the first element of a stored int array; close. */
    static int loadFirst(Path graph) throws IOException {
        try (WireFile f = WireFile.load(graph)) {
            return f.view(ArrayView.OfInt.class).get(0);
        }
    }

    /** Open, validate and read the first element of a stored int array; close. */
    static int openFirst(Path graph) throws IOException {
        try (WireFile f = WireFile.open(graph)) {
            return f.view(ArrayView.OfInt.class).get(0);
        }
    }
}
