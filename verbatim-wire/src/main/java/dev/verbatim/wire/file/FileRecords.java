package dev.verbatim.wire.file;

import dev.verbatim.wire.Message;
import dev.verbatim.wire.TypeDictionary;
import dev.verbatim.wire.WireFormatException;
import dev.verbatim.wire.WireLimits;
import dev.verbatim.wire.WireReader;
import dev.verbatim.wire.internal.WireInternals;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongPredicate;
import java.util.zip.CRC32C;

import static dev.verbatim.wire.file.WireFileDescriptor.*;

/**
 * Reading and writing the records of a stored file ({@link WireFileDescriptor}): the type descriptions a
 * record carries, its checksum, and its message, validated with errors placed at their offset in the file.
 *
 * <p>Thread-safe: stateless.
 */
final class FileRecords {
    private FileRecords() {}

    /**
     * Learns the record's descriptions into {@code dictionary}, then validates its message (which keeps {@code owner}
     * reachable).
     *
     * @throws WireFormatException with the offset in the file, for bad descriptions or a bad message
     */
    static Message read(MemorySegment file, Object owner, RecordHeader h, TypeDictionary dictionary, WireReader reader) {
        for (Description d : descriptions(file, h, reader.limits())) {
            try {
                dictionary.learn(d.text());
            } catch (WireFormatException e) {
                throw inFile(e, d.at(), "type description at file offset " + d.at());
            }
        }
        return validate(file, owner, h, reader);
    }

    /**
     * Validates the record's message (its types must be known); the message and its views keep {@code owner}
     * (the file's mapping) reachable.
     */
    static Message validate(MemorySegment file, Object owner, RecordHeader h, WireReader reader) {
        try {
            return reader.validate(file.asSlice(h.messageAt(), h.messageLength()), owner);
        } catch (WireFormatException e) {
            throw inFile(e, h.messageAt(), "message at file offset " + h.messageAt());
        }
    }

    /** One type description of a record and the file offset of its first byte. */
    record Description(long at, String text) {}

    /** The descriptions of a record: strict UTF-8, separated by {@code '\n'}, at most {@code limits.maxTypes()}. */
    static List<Description> descriptions(MemorySegment file, RecordHeader h, WireLimits limits) {
        List<Description> out = new ArrayList<>();
        int n = h.descriptionsLength();
        if (n == 0) return out;
        long base = h.descriptionsAt();
        byte[] bytes = file.asSlice(base, n).toArray(ValueLayout.JAVA_BYTE);
        int start = 0;
        for (int i = 0; i <= n; i++) {
            if (i < n && bytes[i] != DESCRIPTION_SEPARATOR) continue;
            if (out.size() == limits.maxTypes()) {
                throw new WireFormatException(base + start, "more type descriptions than the type limit", "limit " + limits.maxTypes());
            }
            try {
                String text = StandardCharsets.UTF_8.newDecoder()
                        .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT)
                        .decode(ByteBuffer.wrap(bytes, start, i - start)).toString();
                out.add(new Description(base + start, text));
            } catch (CharacterCodingException e) {
                throw new WireFormatException(base + start, "type description not UTF-8", null);
            }
            start = i + 1;
        }
        return out;
    }

    /** The CRC-32C of {@code length} bytes of {@code seg} from {@code from}. */
    static int checksum(MemorySegment seg, long from, long length) {
        CRC32C crc = new CRC32C();
        long done = 0;
        while (done < length) {
            long chunk = Math.min(length - done, 1L << 30);
            crc.update(seg.asSlice(from + done, chunk).asByteBuffer());
            done += chunk;
        }
        return (int) crc.getValue();
    }

    /** The checksum a record's header must carry: of its body (message, descriptions, padding). */
    static int bodyChecksum(MemorySegment file, RecordHeader h) {
        return checksum(file, h.messageAt(), h.next() - h.messageAt());
    }

    /**
     * The descriptions a record must carry for the message just written at {@code at} (of {@code length}
     * bytes): its type table's types and what they mention, minus those {@code described} already.
     */
    static List<String> newDescriptions(MemorySegment seg, long at, long length, LongPredicate described) {
        return WireInternals.get().newDescriptions(seg, at, length, described);
    }

    /** The descriptions joined for a record, in UTF-8. */
    static byte[] encode(List<String> descriptions) {
        return String.join(String.valueOf((char) DESCRIPTION_SEPARATOR), descriptions).getBytes(StandardCharsets.UTF_8);
    }

    /** The exception {@code e} found inside a part of the file that starts at {@code base}, moved to file offsets. */
    static WireFormatException inFile(WireFormatException e, long base, String where) {
        WireFormatException moved = new WireFormatException(e.offset() >= 0 ? base + e.offset() : base, e.rule(),
                where + ": " + e.getMessage());
        moved.initCause(e);
        return moved;
    }
}
