package dev.verbatim.rpc.internal;

import dev.verbatim.rpc.Remote;
import dev.verbatim.wire.ByReference;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@link RpcDescriptor#T_WIRE_REFS} value (docs/rpc.md §1): a wire message whose reference slots
 * ({@link ByReference}: the object layer's shared objects inside a value passed by copy) index the table that
 * follows it, each entry a {@code T_SHARED} payload of the object layer.
 *
 * <pre>
 *  [u32 message length M][u32 entries n][message, zero-padded to 8][n x ([u32 length L][u32 0][L bytes, zero-padded to 8])]
 * </pre>
 *
 * <p>Writing: the wire writer enters each object it meets in a slot ({@link #enter}, by identity: one object twice is
 * one entry, so one proxy on arrival), and once the message is written every entry is encoded by the node's extension,
 * which splits its weight: once per value, since the whole value is planned once and copied as bytes by every later
 * pass of the sender. Reading: the table's entries are found ({@link #entries}, every bound checked) before the
 * message is validated against their count; they are then decoded, and the message reads them as its slots declare
 * ({@link Decoded}).
 *
 * <p>The object layer's remote-construction arguments use the same layout ({@code Arguments}).
 *
 * <p>Not thread-safe: one per value.
 */
public final class ReferenceTable implements ByReference.Sink {
    /** At most this many entries per value: a reference payload is at least 32 bytes, so a message can hold far fewer. */
    static final int MAX_ENTRIES = 1 << 20;

    private final Map<Object, Integer> index = new IdentityHashMap<>();
    private final List<Object> objects = new ArrayList<>();

    @Override
    public int enter(Object value, Class<?> as) {
        Integer i = index.get(value);
        if (i != null) {
            return i;
        }
        if (objects.size() == MAX_ENTRIES) {
            throw new IllegalArgumentException("more than " + MAX_ENTRIES + " objects passed by reference in one value");
        }
        index.put(value, objects.size());
        objects.add(value); // (an entry is read as no particular type: one object may fill slots of several)
        return objects.size() - 1;
    }

    public int size() {
        return objects.size();
    }

    public Object object(int i) {
        return objects.get(i);
    }

    /** The payload of the value: {@code message} (M bytes) and the encoded entries. */
    public static MemorySegment payload(byte[] message, byte[][] entries) {
        long size = 8 + RpcDescriptor.span(message.length) - RpcDescriptor.VALUE_HEADER;
        for (byte[] e : entries) {
            size += RpcDescriptor.span(e.length);
        }
        MemorySegment p = MemorySegment.ofArray(new byte[Math.toIntExact(size)]);
        p.set(ValueLayout.JAVA_INT_UNALIGNED, 0, message.length);
        p.set(ValueLayout.JAVA_INT_UNALIGNED, 4, entries.length);
        MemorySegment.copy(MemorySegment.ofArray(message), 0, p, 8, message.length);
        long at = 8 + align8(message.length);
        for (byte[] e : entries) {
            p.set(ValueLayout.JAVA_INT_UNALIGNED, at, e.length);
            MemorySegment.copy(MemorySegment.ofArray(e), 0, p, at + 8, e.length);
            at += 8 + align8(e.length);
        }
        return p;
    }

    private static long align8(long n) {
        return (n + 7) & ~7L;
    }

    /** The wire message of a {@code T_WIRE_REFS} payload whose entries {@link #entries} found. */
    public static MemorySegment message(MemorySegment payload) {
        return payload.asSlice(8, payload.get(ValueLayout.JAVA_INT_UNALIGNED, 0) & 0xFFFF_FFFFL);
    }

    /**
     * The entries of a {@code T_WIRE_REFS} payload, each its {@code T_SHARED} payload, every length checked to
     * fit and every padding byte zero.
     *
     * @throws IllegalArgumentException if the payload is malformed
     */
    public static MemorySegment[] entries(MemorySegment payload) {
        long size = payload.byteSize();
        if (size < 8) {
            throw new IllegalArgumentException("a value with references shorter than its header");
        }
        long m = payload.get(ValueLayout.JAVA_INT_UNALIGNED, 0) & 0xFFFF_FFFFL;
        long n = payload.get(ValueLayout.JAVA_INT_UNALIGNED, 4) & 0xFFFF_FFFFL;
        if (n > MAX_ENTRIES || 8 + align8(m) + 8 * n > size) {
            throw new IllegalArgumentException("a value with references whose message (" + m + " bytes) and table (" + n
                    + " entries) do not fit its " + size + " bytes");
        }
        zeroes(payload, 8 + m, 8 + align8(m));
        MemorySegment[] out = new MemorySegment[(int) n];
        long at = 8 + align8(m);
        for (int i = 0; i < n; i++) {
            if (at + 8 > size) {
                throw new IllegalArgumentException("table entry " + i + " of a value with references overruns it");
            }
            long len = payload.get(ValueLayout.JAVA_INT_UNALIGNED, at) & 0xFFFF_FFFFL;
            if (payload.get(ValueLayout.JAVA_INT_UNALIGNED, at + 4) != 0 || at + 8 + align8(len) > size) {
                throw new IllegalArgumentException("table entry " + i + " of a value with references is malformed or overruns it");
            }
            out[i] = payload.asSlice(at + 8, len);
            zeroes(payload, at + 8 + len, at + 8 + align8(len));
            at += 8 + align8(len);
        }
        if (at != size) {
            throw new IllegalArgumentException((size - at) + " bytes after the table of a value with references");
        }
        return out;
    }

    private static void zeroes(MemorySegment p, long from, long to) {
        for (long i = from; i < to; i++) {
            if (p.get(ValueLayout.JAVA_BYTE, i) != 0) {
                throw new IllegalArgumentException("non-zero padding in a value with references");
            }
        }
    }

    /**
     * The table of a value that arrived, its entries decoded (each credited to this node's object layer as it is
     * decoded, so every entry's weight is accounted for whether or not the message reads it): what the message's
     * slots resolve to.
     */
    static final class Decoded implements ByReference.Source {
        private final Object[] objects;

        private Decoded(Object[] objects) {
            this.objects = objects;
        }

        /** A table of {@code n} entries not decoded yet: enough to validate the message against. */
        static Decoded counted(int n) {
            return new Decoded(new Object[n]);
        }

        /**
         * Decodes every entry through {@code extension}; if one fails, the ones after it are let go ({@code dropped})
         * so their weight goes home, and the failure is thrown (the ones before it are proxies or credited objects of
         * this node, whose weight goes home as for any other).
         */
        void decode(MemorySegment[] entries, NodeExtension extension, Endpoint over) {
            for (int i = 0; i < entries.length; i++) {
                try {
                    objects[i] = extension.decode(entries[i], Remote.class, over);
                } catch (RuntimeException e) {
                    for (int j = i + 1; j < entries.length; j++) {
                        extension.dropped(entries[j], over);
                    }
                    throw e;
                }
            }
        }

        @Override
        public int size() {
            return objects.length;
        }

        @Override
        public Object resolve(int index, Class<?> declared) {
            Object o = objects[index];
            if (!declared.isInstance(o)) {
                throw new IllegalArgumentException("table entry " + index + " is not a " + declared.getName());
            }
            return o;
        }
    }
}
