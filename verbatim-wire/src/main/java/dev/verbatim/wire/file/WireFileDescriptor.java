package dev.verbatim.wire.file;

import dev.verbatim.wire.MessageDescriptor;
import dev.verbatim.wire.TypeDictionary;
import dev.verbatim.wire.WireFormatException;
import dev.verbatim.wire.WireLimits;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The layout of a stored file (a graph file or a log): offsets as named constants, the checks next to
 * them. {@code docs/wire-format.md} section 8 is the full specification; this class is its executable half.
 *
 * <pre>
 * All integers little-endian. Offsets count from the first byte of the file.
 *
 *  0                 4        5        6                 8                                  16
 *  +-----------------+--------+--------+-----------------+----------------------------------+
 *  | magic "VRBT"    |version | kind   |  flags (0)      |  end: u64, the committed end     |  file header
 *  +-----------------+--------+--------+-----------------+----------------------------------+
 *  | record 0 at 16; record i+1 at the end of record i                                      |
 *  | ...                                                                                    |
 *  +----------------------------------------------------------------------------------------+  end
 *  | (a log only: room for more records, not yet committed; a reader never looks here)     |
 *  +----------------------------------------------------------------------------------------+  file size
 *
 * A record:
 *  +0        +4                 +8                 +12               +16
 *  +---------+------------------+------------------+-----------------+
 *  | message | descriptions     | CRC-32C of the   | reserved (0)    |  record header
 *  | length M| length D         | body             |                 |
 *  +---------+------------------+------------------+-----------------+
 *  | the message: M bytes (the wire format, sections 2-4), zero padding to align8     |  body
 *  | type descriptions: D bytes of UTF-8, separated by '\n', zero padding to align8  |
 *  +-----------------------------------------------------------------------------------+  next record
 * </pre>
 *
 * <p>A graph file (kind 1) holds exactly one record and its {@code end} is the file's size. A log (kind 2)
 * holds the records before {@code end}; a writer appends a record past {@code end} and then publishes the
 * new end with a release store, so a reader that loads {@code end} with acquire semantics sees only whole
 * records. The descriptions of a record are those of the types its message uses that no earlier record of
 * the file described, in the order {@link TypeDictionary#learn} needs them.
 *
 * <p>Thread-safe: constants and stateless checks only.
 */
public final class WireFileDescriptor {
    private WireFileDescriptor() {}

    /** "VRBT" read as a little-endian u32. */
    public static final int MAGIC = 'V' | 'R' << 8 | 'B' << 16 | 'T' << 24;
    /** The file format version in byte 4; a reader rejects any other. */
    public static final int FILE_VERSION = 1;
    /** Kind of a file holding one graph, written once. */
    public static final int KIND_GRAPH = 1;
    /** Kind of a file holding a log of records, appended to. */
    public static final int KIND_LOG = 2;

    public static final int MAGIC_OFFSET = 0;
    public static final int FILE_VERSION_OFFSET = 4;
    public static final int KIND_OFFSET = 5;
    public static final int FILE_FLAGS_OFFSET = 6;
    public static final int END_OFFSET = 8;
    public static final int FILE_HEADER_LENGTH = 16;

    public static final int MESSAGE_LENGTH_OFFSET = 0;
    public static final int DESCRIPTIONS_LENGTH_OFFSET = 4;
    public static final int CHECKSUM_OFFSET = 8;
    public static final int RECORD_RESERVED_OFFSET = 12;
    public static final int RECORD_HEADER_LENGTH = 16;

    /** The separator between two type descriptions of a record. */
    public static final byte DESCRIPTION_SEPARATOR = '\n';

    static final ValueLayout.OfByte U8 = ValueLayout.JAVA_BYTE;
    static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** The end field, read with acquire and written with release semantics (it is 8-aligned in a mapping). */
    private static final VarHandle END = ValueLayout.JAVA_LONG.withOrder(ByteOrder.LITTLE_ENDIAN).varHandle();

    /** {@code v} rounded up to a multiple of 8 (records and their parts are 8-aligned). */
    static long align8(long v) { return (v + 7) & ~7L; }

    /** The length of a record whose message has {@code m} bytes and descriptions {@code d} bytes. */
    public static long recordLength(long m, long d) {
        return RECORD_HEADER_LENGTH + align8(m) + align8(d);
    }

    /** The committed end of the file mapped at {@code file}, read with acquire semantics. */
    static long endAcquire(MemorySegment file) {
        return (long) END.getAcquire(file, (long) END_OFFSET);
    }

    /** Publishes a new committed end with release semantics: every store before it is visible first. */
    static void putEndRelease(MemorySegment file, long end) {
        END.setRelease(file, (long) END_OFFSET, end);
    }

    /** Writes a file header (magic, version, kind, flags 0, end) at offset 0; the end with release semantics. */
    static void putFileHeader(MemorySegment file, int kind, long end) {
        file.set(U32, MAGIC_OFFSET, MAGIC);
        file.set(U8, FILE_VERSION_OFFSET, (byte) FILE_VERSION);
        file.set(U8, KIND_OFFSET, (byte) kind);
        file.set(U16, FILE_FLAGS_OFFSET, (short) 0);
        putEndRelease(file, end);
    }

    /**
     * Checks the fixed part of a file header (16 bytes at the start of {@code header}) and returns the kind.
     *
     * @throws WireFormatException naming the offset and the rule
     */
    static int checkFileHeader(MemorySegment header, long fileSize) {
        if (fileSize < FILE_HEADER_LENGTH) {
            throw new WireFormatException(0, "file shorter than its header", fileSize + " bytes");
        }
        int magic = header.get(U32, MAGIC_OFFSET);
        if (magic != MAGIC) throw new WireFormatException(MAGIC_OFFSET, "not a Verbatim file", "magic 0x" + Integer.toHexString(magic));
        int version = header.get(U8, FILE_VERSION_OFFSET) & 0xFF;
        if (version != FILE_VERSION) throw new WireFormatException(FILE_VERSION_OFFSET, "unsupported file version", "version " + version);
        int kind = header.get(U8, KIND_OFFSET) & 0xFF;
        if (kind != KIND_GRAPH && kind != KIND_LOG) throw new WireFormatException(KIND_OFFSET, "unknown file kind", "kind " + kind);
        int flags = header.get(U16, FILE_FLAGS_OFFSET) & 0xFFFF;
        if (flags != 0) throw new WireFormatException(FILE_FLAGS_OFFSET, "unknown file flags", "0x" + Integer.toHexString(flags));
        return kind;
    }

    /**
     * Checks a committed end against the file: at least the header, 8-aligned, inside the file, and for a
     * graph file exactly the file's size.
     */
    static void checkEnd(long end, int kind, long fileSize) {
        if (end < FILE_HEADER_LENGTH || (end & 7) != 0) {
            throw new WireFormatException(END_OFFSET, "committed end not a record boundary", "end " + end);
        }
        if (end > fileSize) {
            throw new WireFormatException(END_OFFSET, "committed end beyond the file (truncated file?)", end + " > " + fileSize + " bytes");
        }
        if (kind == KIND_GRAPH && end != fileSize) {
            throw new WireFormatException(END_OFFSET, "graph file size differs from its committed end", fileSize + " bytes, end " + end);
        }
    }

    /** The lengths of a record, read from its header and checked against the end and the limits. */
    record RecordHeader(long at, int messageLength, int descriptionsLength, int checksum) {
        long messageAt() { return at + RECORD_HEADER_LENGTH; }

        long descriptionsAt() { return messageAt() + align8(messageLength); }

        long next() { return at + recordLength(messageLength, descriptionsLength); }
    }

    /**
     * Reads and checks the record header at {@code at} (a header of {@link #RECORD_HEADER_LENGTH} bytes at
     * {@code offset} of {@code seg}): the reserved word is 0, the message is at least a message header and
     * at most the limit, the descriptions at most the limit, and the record ends before {@code end}.
     */
    static RecordHeader checkRecordHeader(MemorySegment seg, long offset, long at, long end, WireLimits limits) {
        if (at + RECORD_HEADER_LENGTH > end) {
            throw new WireFormatException(at, "record header overruns the committed end", (end - at) + " bytes left");
        }
        long m = Integer.toUnsignedLong(seg.get(U32, offset + MESSAGE_LENGTH_OFFSET));
        long d = Integer.toUnsignedLong(seg.get(U32, offset + DESCRIPTIONS_LENGTH_OFFSET));
        int crc = seg.get(U32, offset + CHECKSUM_OFFSET);
        int reserved = seg.get(U32, offset + RECORD_RESERVED_OFFSET);
        if (reserved != 0) throw new WireFormatException(at + RECORD_RESERVED_OFFSET, "reserved record field not zero", null);
        if (m < MessageDescriptor.HEADER_LENGTH) {
            throw new WireFormatException(at + MESSAGE_LENGTH_OFFSET, "record message shorter than a message header", m + " bytes");
        }
        if (m > limits.maxMessageBytes()) {
            throw new WireFormatException(at + MESSAGE_LENGTH_OFFSET, "message larger than the limit", m + " > " + limits.maxMessageBytes());
        }
        long maxD = maxDescriptionBytes(limits);
        if (d > maxD) {
            throw new WireFormatException(at + DESCRIPTIONS_LENGTH_OFFSET, "type descriptions larger than the limit", d + " > " + maxD);
        }
        if (recordLength(m, d) > end - at) {
            throw new WireFormatException(at + MESSAGE_LENGTH_OFFSET, "record overruns the committed end",
                    "record of " + recordLength(m, d) + " bytes, " + (end - at) + " left");
        }
        return new RecordHeader(at, (int) m, (int) d, crc);
    }

    /** Most bytes of descriptions one record may carry under {@code limits}: every type, each at its longest (UTF-8). */
    static long maxDescriptionBytes(WireLimits limits) {
        return Math.min(MessageDescriptor.MAX_MESSAGE_BYTES, (long) limits.maxTypes() * (3L * limits.maxDescriptorChars() + 1));
    }

    /** Writes a record header at {@code at}. */
    static void putRecordHeader(MemorySegment seg, long at, int messageLength, int descriptionsLength, int checksum) {
        seg.set(U32, at + MESSAGE_LENGTH_OFFSET, messageLength);
        seg.set(U32, at + DESCRIPTIONS_LENGTH_OFFSET, descriptionsLength);
        seg.set(U32, at + CHECKSUM_OFFSET, checksum);
        seg.set(U32, at + RECORD_RESERVED_OFFSET, 0);
    }
}
