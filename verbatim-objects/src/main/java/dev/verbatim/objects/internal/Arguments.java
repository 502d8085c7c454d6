package dev.verbatim.objects.internal;

import dev.verbatim.objects.Shared;
import dev.verbatim.rpc.internal.ReferenceTable;
import dev.verbatim.rpc.internal.RpcDescriptor;
import dev.verbatim.wire.ByReference;
import dev.verbatim.wire.Schema;
import dev.verbatim.wire.WireLimits;
import dev.verbatim.wire.WireReader;
import dev.verbatim.wire.WireWriter;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The arguments of a remote construction or static call, and a static call's result, in one
 * {@code byte[]} (docs/objects.md §5): each value encoded by the type the receiving class declares, which
 * both sides know (the caller picked the constructor or method of the same class), so no type name
 * travels. Little-endian, each value {@code [u32 tag][u32 length][payload]}:
 *
 * <ul>
 *   <li>{@link #NULL}: no payload;</li>
 *   <li>{@link #PRIM}: 8 bytes, a primitive as RPC's {@code T_PRIM};</li>
 *   <li>{@link #COPY}: a wire-format message, materialised as the declared type;</li>
 *   <li>{@link #COPY_REFS}: a wire-format message holding shared objects in reference slots, and its table of
 *       references, laid out as RPC's {@code WIRE_REFS} ({@link ReferenceTable}, docs/objects.md §1);</li>
 *   <li>{@link #SHARED}: a shared reference ({@link ReferenceDescriptor}), with its weight.</li>
 * </ul>
 *
 * A value that does not match its declared type, or overruns, is an {@link IllegalArgumentException}.
 */
final class Arguments {
    private Arguments() {}

    static final int NULL = 0;
    static final int PRIM = 1;
    static final int COPY = 2;
    static final int COPY_REFS = 7;
    static final int SHARED = 6;
    /** Read as they are written ({@link #put}): little-endian on any JVM. */
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** {@code values} as {@code types} declare them, sent to base {@code peer} (which decodes them). */
    static byte[] encode(ObjectSpace space, Class<?>[] types, Object[] values, long peer) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < types.length; i++) {
            Class<?> t = types[i];
            Object v = values[i];
            if (t.isPrimitive()) {
                put(out, PRIM, ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(RpcDescriptor.bits(v)).array());
            } else if (v == null) {
                put(out, NULL, new byte[0]);
            } else if (Shared.class.isAssignableFrom(t)) {
                put(out, SHARED, space.encode(v, peer));
            } else if (Schema.holdsReferences(t)) {
                put(out, COPY_REFS, withReferences(space, v, peer));
            } else {
                put(out, COPY, new WireWriter().toByteArray(v));
            }
        }
        return out.toByteArray();
    }

    /** The values {@code bytes} holds, as {@code types} declare them. */
    static Object[] decode(ObjectSpace space, Class<?>[] types, byte[] bytes, long peer) {
        MemorySegment m = MemorySegment.ofArray(bytes);
        Object[] out = new Object[types.length];
        long at = 0;
        for (int i = 0; i < types.length; i++) {
            if (at + 8 > m.byteSize()) {
                throw new IllegalArgumentException("argument " + i + " is missing");
            }
            int tag = m.get(INT, at);
            long n = m.get(INT, at + 4) & 0xFFFF_FFFFL;
            if (at + 8 + n > m.byteSize()) {
                throw new IllegalArgumentException("argument " + i + " overruns the arguments");
            }
            MemorySegment p = m.asSlice(at + 8, n);
            Class<?> t = types[i];
            out[i] = switch (tag) {
                case NULL -> {
                    if (t.isPrimitive()) {
                        throw new IllegalArgumentException("null for the " + t + " argument " + i);
                    }
                    yield null;
                }
                case PRIM -> {
                    if (!t.isPrimitive() || n != 8) {
                        throw new IllegalArgumentException("a primitive for the " + t.getName() + " argument " + i);
                    }
                    yield unbits(t, p.get(LONG, 0));
                }
                case SHARED -> {
                    if (!Shared.class.isAssignableFrom(t)) {
                        throw new IllegalArgumentException("a shared reference for the " + t.getName() + " argument " + i);
                    }
                    yield space.decode(p, t, peer);
                }
                case COPY -> {
                    if (t.isPrimitive() || Shared.class.isAssignableFrom(t)) {
                        throw new IllegalArgumentException("a copy for the " + t.getName() + " argument " + i);
                    }
                    yield copy(p, t, WireLimits.forPeers(space.options().connection().peerRecordsOnly()));
                }
                case COPY_REFS -> {
                    if (t.isPrimitive() || Shared.class.isAssignableFrom(t) || !Schema.holdsReferences(t)) {
                        throw new IllegalArgumentException("a copy with references for the " + t.getName() + " argument " + i);
                    }
                    yield copyWithReferences(space, p, t, peer);
                }
                default -> throw new IllegalArgumentException("an unknown tag " + tag + " of argument " + i);
            };
            at += 8 + n;
        }
        if (at != m.byteSize()) {
            throw new IllegalArgumentException((m.byteSize() - at) + " bytes after the last argument");
        }
        return out;
    }

    /**
     * The value a peer sent by copy ({@code state}, a wire message), materialised as {@code type}: the type's
     * schema is made known first, so a base that never wrote or read a value of it (a class it only allows)
     * reads it as its own type, not as an unknown fingerprint. Validated under the limits for peers.
     */
    static Object copy(MemorySegment state, Class<?> type) {
        return copy(state, type, WireLimits.forPeers());
    }

    /** {@link #copy(MemorySegment, Class)} checked with {@code limits} (a node's records-only option). */
    static Object copy(MemorySegment state, Class<?> type, WireLimits limits) {
        Schema.fingerprint(type);
        return new WireReader(limits).validate(state).materialize(type);
    }

    /**
     * The state of a shared object copied by {@code cloneOn} for base {@code peer}: {@code [u32 tag][u32
     * length][payload]}, {@link #COPY} or, for a class whose fields may hold shared objects, {@link #COPY_REFS}
     * (each of them a reference with its weight, as in a call).
     */
    static byte[] state(ObjectSpace space, Object o, long peer) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        if (Schema.holdsReferences(o.getClass())) {
            put(out, COPY_REFS, withReferences(space, o, peer));
        } else {
            put(out, COPY, new WireWriter().toByteArray(o));
        }
        return out.toByteArray();
    }

    /** The copy {@link #state} describes, from base {@code peer}, as class {@code c}. */
    static Object fromState(ObjectSpace space, Class<?> c, byte[] bytes, long peer) {
        MemorySegment m = MemorySegment.ofArray(bytes);
        if (m.byteSize() < 8) {
            throw new IllegalArgumentException("a copied state of " + m.byteSize() + " bytes");
        }
        int tag = m.get(INT, 0);
        long n = m.get(INT, 4) & 0xFFFF_FFFFL;
        if (8 + n != m.byteSize()) {
            throw new IllegalArgumentException("a copied state of " + m.byteSize() + " bytes whose payload says " + n);
        }
        MemorySegment p = m.asSlice(8, n);
        return switch (tag) {
            case COPY -> copy(p, c, WireLimits.forPeers(space.options().connection().peerRecordsOnly()));
            case COPY_REFS -> {
                if (!Schema.holdsReferences(c)) {
                    throw new IllegalArgumentException("a copy with references of " + c.getName() + ", which holds none");
                }
                yield copyWithReferences(space, p, c, peer);
            }
            default -> throw new IllegalArgumentException("a copied state tagged " + tag);
        };
    }

    /** A {@link #COPY_REFS} payload: {@code v} written with a table of the shared objects it holds, each encoded for {@code peer}. */
    private static byte[] withReferences(ObjectSpace space, Object v, long peer) {
        ReferenceTable table = new ReferenceTable();
        WireWriter w = new WireWriter();
        w.references(table);
        byte[] message = w.toByteArray(v);
        byte[][] entries = new byte[table.size()][];
        for (int i = 0; i < entries.length; i++) {
            entries[i] = space.encode(table.object(i), peer);
        }
        return ReferenceTable.payload(message, entries).toArray(ValueLayout.JAVA_BYTE);
    }

    /**
     * A {@link #COPY_REFS} value from base {@code peer} as {@code type}: the table checked, the message validated
     * against its size, every entry decoded (so every entry's weight is accounted for), then materialised.
     */
    private static Object copyWithReferences(ObjectSpace space, MemorySegment p, Class<?> type, long peer) {
        MemorySegment[] entries = ReferenceTable.entries(p);
        Object[] objects = new Object[entries.length];
        ByReference.Source table = new ByReference.Source() {
            @Override
            public int size() {
                return objects.length;
            }

            @Override
            public Object resolve(int index, Class<?> declared) {
                if (!declared.isInstance(objects[index])) {
                    throw new IllegalArgumentException("table entry " + index + " is not a " + declared.getName());
                }
                return objects[index];
            }
        };
        Schema.fingerprint(type);
        dev.verbatim.wire.Message m;
        try {
            m = new WireReader(WireLimits.forPeers(space.options().connection().peerRecordsOnly()))
                    .validate(ReferenceTable.message(p), table);
        } catch (RuntimeException e) {
            letGo(space, entries, 0, peer);
            throw e;
        }
        for (int i = 0; i < entries.length; i++) {
            try {
                objects[i] = space.decode(entries[i], Shared.class, peer);
            } catch (RuntimeException e) {
                letGo(space, entries, i + 1, peer);
                throw e;
            }
        }
        return m.materialize(type);
    }

    /** Reads the entries from {@code from} on and drops what they name: their weight goes home. */
    private static void letGo(ObjectSpace space, MemorySegment[] entries, int from, long peer) {
        for (int j = from; j < entries.length; j++) {
            try {
                space.decode(entries[j], Shared.class, peer);
            } catch (RuntimeException ignored) {
                // malformed: nothing to give back
            }
        }
    }

    private static void put(ByteArrayOutputStream out, int tag, byte[] payload) {
        out.writeBytes(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putInt(tag).putInt(payload.length).array());
        out.writeBytes(payload);
    }

    private static Object unbits(Class<?> t, long b) {
        if (t == int.class) return (int) b;
        if (t == long.class) return b;
        if (t == boolean.class) return b != 0;
        if (t == byte.class) return (byte) b;
        if (t == short.class) return (short) b;
        if (t == char.class) return (char) b;
        if (t == float.class) return Float.intBitsToFloat((int) b);
        if (t == double.class) return Double.longBitsToDouble(b);
        throw new IllegalArgumentException(t.getName());
    }
}
