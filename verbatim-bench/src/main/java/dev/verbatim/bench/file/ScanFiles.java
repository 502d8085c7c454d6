package dev.verbatim.bench.file;

import dev.verbatim.wire.file.WireFile;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * The data of the file scan (Jaguar Figure 9): {@code n} random ints, stored twice, as a raw file of
 * little-endian ints (read by {@code DataInputStream}, {@code MappedByteBuffer} and C) and as a Verbatim
 * graph file whose root is the {@code int[]} (read through {@code ArrayView.OfInt}).
 *
 * @param raw the raw file: exactly {@code 4 n} bytes
 * @param graph the graph file of the same ints
 * @param max the largest of the ints, which every scan must find
 */
record ScanFiles(int ints, Path raw, Path graph, int max) {

    static ScanFiles create(Path dir, String name, int bytes, long seed) throws IOException {
        int n = bytes / Integer.BYTES;
        int[] data = new SplittableRandom(seed).ints(n).toArray();
        int max = Integer.MIN_VALUE;
        for (int v : data) max = Math.max(max, v);
        Path raw = dir.resolve(name + ".ints");
        ByteBuffer chunk = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
        try (OutputStream out = Files.newOutputStream(raw)) {
            for (int v : data) {
                if (!chunk.hasRemaining()) {
                    out.write(chunk.array(), 0, chunk.position());
                    chunk.clear();
                }
                chunk.putInt(v);
            }
            out.write(chunk.array(), 0, chunk.position());
        }
        Path graph = dir.resolve(name + ".vbt");
        WireFile.write(graph, data);
        return new ScanFiles(n, raw, graph, max);
    }
}
