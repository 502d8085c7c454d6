package dev.verbatim.objects.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The payload of an RPC {@code T_SHARED} value: a shared object's reference (docs/objects.md §1). All
 * integers little-endian.
 *
 * <pre>
 *  0             8        12       16             24        26         28         32
 *  +-------------+--------+--------+--------------+---------+----------+----------+----------------------
 *  | owner (u64) | id u32 | flags  | weight (u64) | naddr   | niface   | reserved | strings: naddr addresses,
 *  |             |        | u32 =0 |              | u16     | u16      | u32 = 0  | then niface interface
 *  +-------------+--------+--------+--------------+---------+----------+----------+ names, each [u16 n][n bytes UTF-8]
 * </pre>
 *
 * The payload ends exactly after the last string (RPC pads the value). Checks on reading: at least
 * {@link #FIXED} bytes; owner non-zero; flags and reserved zero; weight below 2^63; at most
 * {@link #MAX_ADDRESSES} addresses and {@link #MAX_INTERFACES} interfaces, each string at most
 * {@link #MAX_STRING} bytes and inside the payload, nothing after the last. What a reference means to its
 * receiver (its own object coming home, or another base's) is checked by {@link ObjectSpace}.
 */
public final class ReferenceDescriptor {
    private ReferenceDescriptor() {}

    public static final int OWNER = 0;
    public static final int ID = 8;
    public static final int FLAGS = 12;
    public static final int WEIGHT = 16;
    public static final int ADDRESSES = 24;
    public static final int INTERFACES = 26;
    public static final int RESERVED = 28;
    public static final int FIXED = 32;
    public static final int MAX_ADDRESSES = 8;
    public static final int MAX_INTERFACES = 32;
    public static final int MAX_STRING = 1024;

    /** The payload of {@code r}. */
    public static byte[] encode(Reference r) {
        List<byte[]> strings = new ArrayList<>();
        int n = FIXED;
        for (String s : r.addresses()) {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            strings.add(b);
            n += 2 + b.length;
        }
        for (String s : r.interfaces()) {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            strings.add(b);
            n += 2 + b.length;
        }
        byte[] out = new byte[n];
        MemorySegment m = MemorySegment.ofArray(out);
        m.set(ValueLayout.JAVA_LONG_UNALIGNED, OWNER, r.owner());
        m.set(ValueLayout.JAVA_INT_UNALIGNED, ID, r.id());
        m.set(ValueLayout.JAVA_LONG_UNALIGNED, WEIGHT, r.weight());
        m.set(ValueLayout.JAVA_SHORT_UNALIGNED, ADDRESSES, (short) r.addresses().size());
        m.set(ValueLayout.JAVA_SHORT_UNALIGNED, INTERFACES, (short) r.interfaces().size());
        long at = FIXED;
        for (byte[] b : strings) {
            m.set(ValueLayout.JAVA_SHORT_UNALIGNED, at, (short) b.length);
            MemorySegment.copy(MemorySegment.ofArray(b), 0, m, at + 2, b.length);
            at += 2 + b.length;
        }
        return out;
    }

    /**
     * The reference in {@code m}, checked as the class comment says.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static Reference decode(MemorySegment m) {
        if (m.byteSize() < FIXED) {
            throw new IllegalArgumentException("a shared reference of " + m.byteSize() + " bytes");
        }
        long owner = m.get(ValueLayout.JAVA_LONG_UNALIGNED, OWNER);
        int id = m.get(ValueLayout.JAVA_INT_UNALIGNED, ID);
        long weight = m.get(ValueLayout.JAVA_LONG_UNALIGNED, WEIGHT);
        if (owner == 0) {
            throw new IllegalArgumentException("a shared reference without an owner");
        }
        if (m.get(ValueLayout.JAVA_INT_UNALIGNED, FLAGS) != 0 || m.get(ValueLayout.JAVA_INT_UNALIGNED, RESERVED) != 0) {
            throw new IllegalArgumentException("a shared reference with unknown flags");
        }
        if (weight < 0) {
            throw new IllegalArgumentException("a shared reference with a weight of 2^63 or more (overflow)");
        }
        int na = m.get(ValueLayout.JAVA_SHORT_UNALIGNED, ADDRESSES) & 0xFFFF;
        int ni = m.get(ValueLayout.JAVA_SHORT_UNALIGNED, INTERFACES) & 0xFFFF;
        if (na > MAX_ADDRESSES || ni > MAX_INTERFACES) {
            throw new IllegalArgumentException("a shared reference with " + na + " addresses and " + ni + " interfaces");
        }
        long[] at = {FIXED};
        List<String> addresses = strings(m, at, na);
        List<String> interfaces = strings(m, at, ni);
        if (at[0] != m.byteSize()) {
            throw new IllegalArgumentException("a shared reference with " + (m.byteSize() - at[0]) + " bytes after its end");
        }
        return new Reference(owner, id, weight, addresses, interfaces);
    }

    private static List<String> strings(MemorySegment m, long[] at, int count) {
        List<String> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            if (at[0] + 2 > m.byteSize()) {
                throw new IllegalArgumentException("a shared reference's string overruns it");
            }
            int n = m.get(ValueLayout.JAVA_SHORT_UNALIGNED, at[0]) & 0xFFFF;
            if (n > MAX_STRING || at[0] + 2 + n > m.byteSize()) {
                throw new IllegalArgumentException("a shared reference's string of " + n + " bytes overruns it");
            }
            out.add(new String(m.asSlice(at[0] + 2, n).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8));
            at[0] += 2 + n;
        }
        return List.copyOf(out);
    }
}
