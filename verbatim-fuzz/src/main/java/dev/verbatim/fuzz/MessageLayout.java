package dev.verbatim.fuzz;

import dev.verbatim.wire.MessageDescriptor;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Where things are in a message of bytes, as far as its header says ({@link MessageDescriptor} has the layout
 * diagram): its type and object counts, the end of its objects ({@code tail}) and where its two tables start.
 * A message too short for a header, or whose counts do not fit its length, has no plausible layout: every field
 * but {@code length} is then 0. Reads and writes of little-endian words that fall outside the array do nothing
 * (reads give 0), so mutations never fail on a short message.
 */
record MessageLayout(int length, int types, int objects, int tail, int typeTable, int objectTable) {
    static final VarHandle I16 = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    static final VarHandle I32 = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    static final VarHandle I64 = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    static int getInt(byte[] b, int at) { return at >= 0 && at + 4 <= b.length ? (int) I32.get(b, at) : 0; }

    static void putInt(byte[] b, int at, int v) { if (at >= 0 && at + 4 <= b.length) I32.set(b, at, v); }

    static void putLong(byte[] b, int at, long v) { if (at >= 0 && at + 8 <= b.length) I64.set(b, at, v); }

    /** The type count in a message's header, or 0 if it has no header. */
    static int typeCount(byte[] m) {
        return m.length >= MessageDescriptor.HEADER_LENGTH ? (short) I16.get(m, MessageDescriptor.TYPE_COUNT_OFFSET) & 0xFFFF : 0;
    }

    /** The layout of a message as its header says. */
    static MessageLayout of(byte[] m) {
        int len = m.length;
        if (len < MessageDescriptor.HEADER_LENGTH) return new MessageLayout(len, 0, 0, 0, 0, 0);
        int t = (short) I16.get(m, MessageDescriptor.TYPE_COUNT_OFFSET) & 0xFFFF;
        int n = getInt(m, MessageDescriptor.OBJECT_COUNT_OFFSET);
        long tail = len - (long) MessageDescriptor.TYPE_ENTRY_LENGTH * t - (long) MessageDescriptor.OBJECT_ENTRY_LENGTH * n;
        if (n < 0 || tail < MessageDescriptor.HEADER_LENGTH || tail > len) return new MessageLayout(len, 0, 0, 0, 0, 0);
        return new MessageLayout(len, t, n, (int) tail, (int) tail, (int) tail + MessageDescriptor.TYPE_ENTRY_LENGTH * t);
    }

    boolean plausible() { return tail > 0; }

    /** Offset of object i according to its object table entry (low 32 bits), or -1. */
    int objectStart(byte[] m, int i) {
        int o = getInt(m, objectTable + MessageDescriptor.OBJECT_ENTRY_LENGTH * i);
        return o >= MessageDescriptor.HEADER_LENGTH && o < tail ? o : -1;
    }
}
