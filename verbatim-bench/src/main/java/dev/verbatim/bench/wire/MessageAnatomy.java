package dev.verbatim.bench.wire;

import dev.verbatim.wire.MessageDescriptor;
import dev.verbatim.wire.WireWriter;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Where a Verbatim message's bytes go, read from its header and tables (docs/wire-format.md): the
 * 8-byte header, the type table (8 bytes per type), the object table (8 bytes per object), and the
 * objects, of which the strings' alignment padding is counted apart. What the format itself costs a
 * small message is {@link #tables()} + {@link #stringPadding()}: {@link #withoutTablesAndPadding()}
 * is the size the same objects would take without them, the bound a size target is measured against.
 *
 * <pre>
 *   [header 8][objects ... each at an 8-aligned offset][type table 8T][object table 8N]
 *                 string: [u32 length|coder][chars][zero padding to 8]
 * </pre>
 *
 * @param size the message length
 * @param types T, the type-table entries
 * @param objects N, the object-table entries
 * @param strings how many of the objects are strings
 * @param stringPadding the zero bytes after the strings' chars up to the next 8-byte boundary
 */
public record MessageAnatomy(long size, int types, int objects, int strings, long stringPadding) {
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** The anatomy of the message {@link WireWriter} writes for {@code root}. */
    public static MessageAnatomy of(Object root) {
        return of(MemorySegment.ofArray(new WireWriter().toByteArray(root)));
    }

    /** The anatomy of a well-formed message (one that validates) filling {@code m}. */
    public static MessageAnatomy of(MemorySegment m) {
        long size = m.byteSize();
        long header = m.get(I64, 0);
        int types = (int) (header >>> (8 * MessageDescriptor.TYPE_COUNT_OFFSET)) & 0xFFFF;
        int objects = (int) (header >>> (8 * MessageDescriptor.OBJECT_COUNT_OFFSET));
        long tail = size - (long) MessageDescriptor.TYPE_ENTRY_LENGTH * types - (long) MessageDescriptor.OBJECT_ENTRY_LENGTH * objects;
        long table = tail + (long) MessageDescriptor.TYPE_ENTRY_LENGTH * types;
        long[] offsets = new long[objects];
        int[] typeIds = new int[objects];
        for (int i = 0; i < objects; i++) {
            long e = m.get(I64, table + 8L * i);
            offsets[i] = e & 0xFFFF_FFFFL;
            typeIds[i] = (int) (e >>> 32);
        }
        long[] sorted = offsets.clone();
        Arrays.sort(sorted);
        int strings = 0;
        long padding = 0;
        for (int i = 0; i < objects; i++) {
            if (typeIds[i] != MessageDescriptor.T_STRING) {
                continue;
            }
            strings++;
            int word = m.get(I32, offsets[i]);
            long bytes = MessageDescriptor.STRING_DATA_OFFSET
                    + (long) (word & ~MessageDescriptor.STRING_UTF16_BIT) * ((word & MessageDescriptor.STRING_UTF16_BIT) != 0 ? 2 : 1);
            int k = Arrays.binarySearch(sorted, offsets[i]);
            long next = k + 1 < objects ? sorted[k + 1] : tail;
            padding += next - offsets[i] - bytes;
        }
        return new MessageAnatomy(size, types, objects, strings, padding);
    }

    /** Bytes of the header, the type table and the object table. */
    public long tables() {
        return MessageDescriptor.HEADER_LENGTH + (long) MessageDescriptor.TYPE_ENTRY_LENGTH * types
                + (long) MessageDescriptor.OBJECT_ENTRY_LENGTH * objects;
    }

    /** The message without its header, tables and string padding: the objects' own bytes. */
    public long withoutTablesAndPadding() {
        return size - tables() - stringPadding;
    }
}
