package dev.verbatim.wire.file;

import dev.verbatim.buffer.Buffer;
import dev.verbatim.buffer.Buffers;
import dev.verbatim.wire.Message;
import dev.verbatim.wire.internal.WireInternals;
import dev.verbatim.wire.TypeDictionary;
import dev.verbatim.wire.WireFormatException;
import dev.verbatim.wire.WireLimits;
import dev.verbatim.wire.WireReader;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.verbatim.wire.file.WireFileDescriptor.*;

/**
 * What a stored file (graph file or log) holds, read and checked from end to end: the header, every
 * committed record (lengths, type descriptions, message validated, and optionally the record checksums),
 * and a summary of the types and objects. The engine of {@code verbatim file inspect} and
 * {@code verbatim file verify}.
 *
 * @param kind          {@link WireFileDescriptor#KIND_GRAPH} or {@link WireFileDescriptor#KIND_LOG}
 * @param fileSize      the file's size in bytes (a log's capacity)
 * @param end           the committed end
 * @param records       committed records (1 for a graph file)
 * @param messageBytes  bytes of all messages together
 * @param objects       objects in all messages together
 * @param types         every type that a record described or an object has, in order of first appearance
 * @param tornRecordAt  the file offset of an uncommitted record header at the end (a writer died while
 *                      appending; readers ignore it, the next writer overwrites it), or -1
 * @param checksums     whether the record checksums were verified
 */
public record WireFileInfo(Path path, int kind, long fileSize, long end, long records, long messageBytes, long objects,
                           List<TypeInfo> types, long tornRecordAt, boolean checksums) {

    /**
     * One type of a stored file.
     *
     * @param described whether the file carries its description (built-in types are never described)
     * @param objects   objects of this type in all messages
     * @param bytes     bytes of those objects, each padded to 8, not counting table entries
     */
    public record TypeInfo(long fingerprint, String description, boolean described, long objects, long bytes) {}

    public WireFileInfo {
        types = List.copyOf(types);
    }

    /** "graph" or "log". */
    public String kindName() { return kind == KIND_GRAPH ? "graph" : "log"; }

    /**
     * Reads and checks the whole file.
     *
     * @param checksums also check every record's CRC-32C (a pass over every byte)
     * @throws WireFormatException at the first problem, naming the file offset and the rule
     * @throws IOException if the file cannot be read or mapped
     */
    public static WireFileInfo read(Path file, WireLimits limits, boolean checksums) throws IOException {
        Buffer mapping = Buffers.map(file, FileChannel.MapMode.READ_ONLY);
        try {
            MemorySegment s = mapping.segment();
            long size = s.byteSize();
            int kind = checkFileHeader(s, size);
            long end = endAcquire(s);
            checkEnd(end, kind, size);
            TypeDictionary dictionary = new TypeDictionary(limits);
            WireReader reader = new WireReader(limits);
            Map<Long, long[]> counts = new LinkedHashMap<>(); // fingerprint -> {objects, bytes}
            Map<Long, String> descriptions = new LinkedHashMap<>();
            long records = 0, messageBytes = 0, objects = 0;
            for (long at = FILE_HEADER_LENGTH; at < end; ) {
                RecordHeader h = checkRecordHeader(s, at, at, end, limits);
                if (kind == KIND_GRAPH && h.next() != end) {
                    throw new WireFormatException(at, "graph file does not hold exactly one record", "record ends at " + h.next() + ", file at " + end);
                }
                if (checksums) {
                    int crc = FileRecords.bodyChecksum(s, h);
                    if (crc != h.checksum()) {
                        throw new WireFormatException(at + CHECKSUM_OFFSET, "record checksum mismatch",
                                "stored " + Integer.toHexString(h.checksum()) + ", computed " + Integer.toHexString(crc));
                    }
                }
                for (FileRecords.Description d : FileRecords.descriptions(s, h, limits)) {
                    try {
                        descriptions.putIfAbsent(dictionary.learn(d.text()), d.text());
                    } catch (WireFormatException e) {
                        throw FileRecords.inFile(e, d.at(), "type description at file offset " + d.at());
                    }
                }
                Message m = FileRecords.validate(s, null, h, reader); // counted here, not handed out
                count(m, counts);
                records++;
                messageBytes += h.messageLength();
                objects += m.objectCount();
                at = h.next();
            }
            if (kind == KIND_GRAPH && records != 1) throw new WireFormatException(FILE_HEADER_LENGTH, "graph file does not hold exactly one record", "no record");
            long torn = kind == KIND_LOG && end + RECORD_HEADER_LENGTH <= size
                    && (s.get(U64, end) != 0 || s.get(U64, end + 8) != 0) ? end : -1;
            List<TypeInfo> types = new ArrayList<>();
            for (Map.Entry<Long, String> e : descriptions.entrySet()) {
                long[] c = counts.getOrDefault(e.getKey(), new long[2]);
                types.add(new TypeInfo(e.getKey(), e.getValue(), true, c[0], c[1]));
            }
            for (Map.Entry<Long, long[]> e : counts.entrySet()) {
                if (descriptions.containsKey(e.getKey())) continue;
                String canonical = WireInternals.get().canonicalDescription(e.getKey());
                types.add(new TypeInfo(e.getKey(), canonical == null ? "?" : canonical, false, e.getValue()[0], e.getValue()[1]));
            }
            return new WireFileInfo(file, kind, size, end, records, messageBytes, objects, types, torn, checksums);
        } finally {
            mapping.release();
        }
    }

    /** Adds each object of {@code m} to the count and bytes of its type. */
    private static void count(Message m, Map<Long, long[]> counts) {
        WireInternals.get().forEachObject(m, new WireInternals.ObjectSink() {
            private long previousFp;
            private long[] c;

            @Override
            public void object(long fp, long bytes) {
                if (c == null || fp != previousFp) {
                    c = counts.computeIfAbsent(fp, k -> new long[2]);
                    previousFp = fp;
                }
                c[0]++;
                c[1] += bytes;
            }
        });
    }
}
