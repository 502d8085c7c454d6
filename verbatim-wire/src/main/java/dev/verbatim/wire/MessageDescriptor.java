package dev.verbatim.wire;

import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The layout of a Verbatim message: offsets as named constants, the checks next to them.
 * {@code docs/wire-format.md} is the full specification; this class is its executable half.
 *
 * <pre>
 * All integers little-endian. Offsets count from the first byte of the message.
 *
 *  0        1        2                 4                                   8
 *  +--------+--------+-----------------+-----------------------------------+
 *  |version | flags  |  type count T   |          object count N           |  header
 *  +--------+--------+-----------------+-----------------------------------+
 *  | object 0 (the root) at offset 8; object i+1 at align8(end of object i) |  objects
 *  | ...                                                                    |
 *  +------------------------------------------------------------------------+  tail = align8(end of last object)
 *  | type table: T x u64 structural fingerprints                            |
 *  +------------------------------------------------------------------------+
 *  | object table: N x u64 entries: bits 0-31 offset of object i,           |
 *  |                                bits 32-63 its type id                  |
 *  +------------------------------------------------------------------------+  message length = tail + 8T + 8N
 *
 * Type ids 1..17 are the built-in types below; 64+k is entry k of the type table. Objects carry no
 * header: their type is in the object table, so a reference (a u32 object index, 0xFFFFFFFF for null)
 * is type-checked with one table read.
 *
 *  struct   fields at the offsets of the type's layout (sorted by size, then name, each aligned to its size)
 *  array    [u32 length][4 zero bytes if elements are 8 bytes][elements]
 *  string   [u32 length | coder bit 31][chars: Latin-1 bytes, or UTF-16LE if coder]
 *  box      [the value]
 * </pre>
 *
 * <p>Thread-safe: constants only.
 */
public final class MessageDescriptor {
    private MessageDescriptor() {}

    /** The format version written in byte 0; a reader rejects any other. */
    public static final int VERSION = 1;

    public static final int VERSION_OFFSET = 0;
    public static final int FLAGS_OFFSET = 1;
    public static final int TYPE_COUNT_OFFSET = 2;
    public static final int OBJECT_COUNT_OFFSET = 4;
    public static final int HEADER_LENGTH = 8;
    /** Where the root object (object 0) starts when the message is not null. */
    public static final int FIRST_OBJECT_OFFSET = HEADER_LENGTH;

    public static final int OBJECT_ALIGNMENT = 8;
    public static final int TYPE_ENTRY_LENGTH = 8;
    public static final int OBJECT_ENTRY_LENGTH = 8;

    /** Offsets are u32 but kept below 2^31 so that every offset fits a Java {@code int}. */
    public static final long MAX_MESSAGE_BYTES = 0x7FFF_FFF8L;
    public static final int MAX_TYPES = 0xFFFF;

    public static final int NULL_REF = -1;

    public static final int ARRAY_LENGTH_OFFSET = 0;
    public static final int STRING_LENGTH_OFFSET = 0;
    public static final int STRING_DATA_OFFSET = 4;
    public static final int STRING_UTF16_BIT = 0x8000_0000;

    /** Built-in type ids. */
    public static final int T_BOOLEAN_ARRAY = 1, T_BYTE_ARRAY = 2, T_CHAR_ARRAY = 3, T_SHORT_ARRAY = 4,
            T_INT_ARRAY = 5, T_LONG_ARRAY = 6, T_FLOAT_ARRAY = 7, T_DOUBLE_ARRAY = 8, T_STRING = 9,
            T_BOOLEAN = 10, T_BYTE = 11, T_CHAR = 12, T_SHORT = 13, T_INT = 14, T_LONG = 15, T_FLOAT = 16, T_DOUBLE = 17;
    /** The value types (docs/wire-format.md §3, "Value types"): structs of fixed layout with built-in ids. */
    public static final int T_INSTANT = 18, T_DURATION = 19, T_LOCAL_DATE = 20, T_LOCAL_TIME = 21, T_LOCAL_DATE_TIME = 22,
            T_OFFSET_DATE_TIME = 23, T_ZONED_DATE_TIME = 24, T_UUID = 25, T_BIG_INTEGER = 26, T_BIG_DECIMAL = 27;
    public static final int MAX_BUILTIN = 27;
    /** Type ids at and above this name entry {@code id - FIRST_TABLE_TYPE_ID} of the type table. */
    public static final int FIRST_TABLE_TYPE_ID = 64;

    static final ValueLayout.OfByte I8 = ValueLayout.JAVA_BYTE;
    static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfChar U16 = ValueLayout.JAVA_CHAR_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    static long align8(long v) { return (v + 7) & ~7L; }

    /** Where the elements of an array start: 4, or 8 for 8-byte elements (kept 8-aligned). */
    static int arrayDataOffset(int elementSize) { return elementSize == 8 ? 8 : 4; }

    /** An object table entry. */
    static long objectEntry(int offset, int typeId) { return (offset & 0xFFFF_FFFFL) | ((long) typeId << 32); }

    static int entryOffset(long entry) { return (int) entry; }

    static int entryType(long entry) { return (int) (entry >>> 32); }

    /** Length of a message with the given tail (aligned end of objects), types and objects. */
    static long messageLength(long tail, int types, int objects) {
        return tail + (long) TYPE_ENTRY_LENGTH * types + (long) OBJECT_ENTRY_LENGTH * objects;
    }
}
