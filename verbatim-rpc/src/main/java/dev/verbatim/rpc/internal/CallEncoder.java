package dev.verbatim.rpc.internal;

import dev.verbatim.rpc.RemoteException;
import dev.verbatim.rpc.RemoteException.Reason;
import dev.verbatim.transport.Connection;
import dev.verbatim.wire.WireWriter;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static dev.verbatim.rpc.internal.RpcDescriptor.*;

/**
 * Writes values (docs/rpc.md §1): arguments of calls and results of replies, each as a tag, a length and
 * its payload. A value is first {@linkplain #plan planned} (its tag and size; a large array or segment
 * argument is written ahead as a region, under the send lock), then {@linkplain #put written} into the
 * claimed space. A remote reference is written as the receiver's own object coming back, or as an object
 * of ours entered in the {@link ExportedObjects export table}.
 *
 * <p>What a message's body is comes as a {@link Writer}, a non-capturing lambda allocated once, with what
 * it writes passed as an argument: the hot paths allocate nothing for it.
 *
 * <p>Thread-safe as far as its callers are: a {@link WireWriter} is passed in, guarded by the lock its
 * caller holds (the send lock, or the outbox's).
 */
final class CallEncoder {
    /** Writes the body of a message at {@code at} in the claimed segment (capturing: for the rare messages). */
    @FunctionalInterface
    interface Body {
        void write(MemorySegment s, long at);
    }

    /**
     * A body writer that takes what it writes as an argument (a non-capturing lambda, allocated once) and
     * the wire writer to marshal graphs with (one guarded by the lock the sending thread holds).
     */
    @FunctionalInterface
    interface Writer {
        void write(CallEncoder encoder, WireWriter w, MemorySegment s, long at, Object what);
    }

    static final Writer NOTHING = (e, w, s, at, what) -> { };
    /** A {@link Body}. */
    static final Writer BODY = (e, w, s, at, what) -> ((Body) what).write(s, at);
    /** The arguments of a method with only primitive parameters, an {@code Object[]} of boxes. */
    static final Writer PRIMITIVES = (e, w, s, at, what) -> {
        for (Object v : (Object[]) what) {
            putPrimitive(s, at, v);
            at += VALUE_HEADER + 8;
        }
    };
    /** One primitive value (a box). */
    static final Writer PRIMITIVE = (e, w, s, at, what) -> putPrimitive(s, at, what);
    /** Planned values, a {@code Planned[]}. */
    static final Writer PLANNED = (e, w, s, at, what) -> {
        for (Planned v : (Planned[]) what) {
            at = e.put(s, at, v, w);
        }
    };
    /** One planned value. */
    static final Writer ONE_PLANNED = (e, w, s, at, what) -> e.put(s, at, (Planned) what, w);
    /** The bytes of one {@code PIECE}: a slice of the streamed value. */
    static final Writer PIECE_BODY = (e, w, s, at, what) -> {
        MemorySegment piece = (MemorySegment) what;
        MemorySegment.copy(piece, 0, s, at, piece.byteSize());
    };
    /** An exception's description ({@link ExceptionRebuilder.Described}). */
    static final Writer THROWN_BODY = (e, w, s, at, what) -> ExceptionRebuilder.write((ExceptionRebuilder.Described) what, s, at);

    /**
     * How one value will be written: its tag, payload size, and (for WIRE) the type to write it as (an accessor
     * interface, a generic collection), or (for REMOTE) the interface it is exported as; a REMOTE's value is
     * its reference (a {@code Long}), counted in the export table when it was planned.
     */
    record Planned(int tag, long payload, Object value, java.lang.reflect.Type as, int region) {}

    private final Endpoint endpoint;
    private final Connection connection;
    private final ExportedObjects exported;
    /** The node's object layer (shared references, {@code T_SHARED}), or null. */
    private final NodeExtension extension;

    CallEncoder(Endpoint endpoint, Connection connection, ExportedObjects exported, NodeExtension extension) {
        this.endpoint = endpoint;
        this.connection = connection;
        this.exported = exported;
        this.extension = extension;
    }

    static void putPrimitive(MemorySegment s, long at, Object v) {
        putValueHeader(s, at, T_PRIM, 8);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, at + VALUE_HEADER, RpcDescriptor.bits(v));
    }

    /** Writes a {@code BYTES} value; where it ends. */
    static long putBytes(MemorySegment s, long at, MemorySegment bytes) {
        putValueHeader(s, at, T_BYTES, bytes.byteSize());
        MemorySegment.copy(bytes, 0, s, at + VALUE_HEADER, bytes.byteSize());
        return at + span(bytes.byteSize());
    }

    /**
     * Plans a value. With {@code regions} (arguments, under the send lock), large arrays and segments are
     * written here as regions, ahead of the message; with {@code deferGraphs}, a graph by copy is left
     * unsized (payload -1) for a one-pass write.
     */
    Planned plan(ValueKind k, Object v, RemoteInterface.MethodInfo mi, boolean deferGraphs, boolean regions,
                 WireWriter w) {
        if (k.primitive()) {
            return new Planned(T_PRIM, 8, v, null, -1);
        }
        if (k.optional() && v != null) v = ((java.util.Optional<?>) v).orElse(null); // an Optional crosses as its value
        if (v == null) {
            return new Planned(T_NULL, 0, null, null, -1);
        }
        switch (k.tag()) {
            case SEGMENT -> {
                MemorySegment seg = (MemorySegment) v;
                if (regions && seg.byteSize() >= REGION_THRESHOLD) {
                    return new Planned(T_REGION, 4, null, null, region(seg));
                }
                return new Planned(T_BYTES, seg.byteSize(), seg, null, -1);
            }
            case REMOTE -> {
                if (extension != null && extension.shares(v)) { // a node-wide reference of the object layer
                    MemorySegment ref = MemorySegment.ofArray(extension.encode(v, k.type(), endpoint));
                    return new Planned(T_SHARED, ref.byteSize(), ref, null, -1);
                }
                // counted now, once, even if the message is written twice (a one-pass write that did not fit)
                return new Planned(T_REMOTE, 8, remoteRef(v, k.type()), k.type(), -1);
            }
            case COPY, VIEW -> {
                Class<?> c = v.getClass();
                if (k.bytes()) { // raw, as a segment goes: no wire message around it
                    MemorySegment seg = MemorySegment.ofArray((byte[]) v);
                    if (regions && seg.byteSize() >= REGION_THRESHOLD) {
                        return new Planned(T_REGION, 4, null, null, region(seg));
                    }
                    return new Planned(T_BYTES, seg.byteSize(), seg, null, -1);
                }
                if (regions && k.tag() == ValueKind.Tag.COPY && c.isArray() && c.getComponentType().isPrimitive()
                        && c.getComponentType() != boolean.class) {
                    MemorySegment arr = arraySegment(v);
                    if (arr.byteSize() >= REGION_THRESHOLD) {
                        return new Planned(T_REGION, 4, null, null, region(arr));
                    }
                }
                if (k.references() && extension != null) { // shared objects inside: the message and its table
                    MemorySegment payload = withReferences(k, v, mi, w);
                    return new Planned(T_WIRE_REFS, payload.byteSize(), payload, null, -1);
                }
                if (deferGraphs && k.tag() == ValueKind.Tag.COPY && !k.collection()) {
                    return new Planned(T_WIRE, -1, v, null, -1);
                }
                try {
                    if (k.collection()) return new Planned(T_WIRE, w.sizeOf(v, k.generic()), v, k.generic(), -1);
                    long n = k.tag() == ValueKind.Tag.VIEW ? sizeAs(w, v, k.type()) : w.sizeOf(v);
                    return new Planned(T_WIRE, n, v, k.tag() == ValueKind.Tag.VIEW ? k.type() : null, -1);
                } catch (IllegalArgumentException e) {
                    throw cannotPass(mi, c, e);
                }
            }
            default -> throw new IllegalStateException(k.toString());
        }
    }

    /**
     * The bytes of {@code v} if it is an array or segment of more than {@code max} bytes, to be streamed in
     * {@code PIECE}s (docs/rpc.md §7); else null (it goes in the message or as a region).
     */
    static MemorySegment streamable(ValueKind k, Object v, long max) {
        if (v == null || k.optional()) {
            return null;
        }
        long size = k.tag() == ValueKind.Tag.SEGMENT ? ((MemorySegment) v).byteSize()
                : k.tag() == ValueKind.Tag.COPY ? arrayBytes(v) : -1; // no allocation on the common path
        if (size <= max) {
            return null;
        }
        MemorySegment bytes = k.tag() == ValueKind.Tag.SEGMENT ? (MemorySegment) v : arraySegment(v);
        if (bytes.byteSize() > IncomingStreams.MAX_VALUE) {
            throw new RemoteException(Reason.ARGUMENT, "an array or segment of " + bytes.byteSize()
                    + " bytes exceeds the limit of " + IncomingStreams.MAX_VALUE);
        }
        return bytes;
    }

    /** A planned {@code STREAM} value: the {@code index}th of its message, its bytes sent ahead. */
    static Planned streamed(int index) {
        return new Planned(T_STREAM, 8, null, null, index);
    }

    /**
     * A {@code T_WIRE_REFS} payload ({@link ReferenceTable}): the wire message, written with a table that enters each
     * object of a reference slot by identity, then each entry encoded by the object layer, its weight split here, once:
     * every later pass of the sender copies these bytes.
     */
    private MemorySegment withReferences(ValueKind k, Object v, RemoteInterface.MethodInfo mi, WireWriter w) {
        ReferenceTable table = new ReferenceTable();
        java.lang.reflect.Type as = k.collection() ? k.generic() : k.tag() == ValueKind.Tag.VIEW ? k.type() : null;
        byte[] message;
        w.references(table);
        try {
            long n = as == null ? w.sizeOf(v) : w.sizeOf(v, as);
            message = new byte[Math.toIntExact(n)];
            long written = as == null ? w.write(v, MemorySegment.ofArray(message), 0) : w.write(v, as, MemorySegment.ofArray(message), 0);
            if (written != n) {
                throw new IllegalStateException("an argument changed while it was marshalled (" + written + " vs " + n + ")");
            }
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw cannotPass(mi, v.getClass(), e instanceof IllegalArgumentException i ? i : new IllegalArgumentException(e));
        } finally {
            w.references(null);
        }
        byte[][] entries = new byte[table.size()][];
        for (int i = 0; i < entries.length; i++) {
            try {
                entries[i] = extension.encode(table.object(i), null, endpoint); // read as no type: no DECLARED form
            } catch (RuntimeException e) {
                for (int j = 0; j < i; j++) {
                    extension.unsent(MemorySegment.ofArray(entries[j]), endpoint); // what the ones before counted
                }
                throw e;
            }
        }
        return ReferenceTable.payload(message, entries);
    }

    static RemoteException cannotPass(RemoteInterface.MethodInfo mi, Class<?> c, IllegalArgumentException e) {
        return new RemoteException(Reason.ARGUMENT, mi.method.getName() + ": cannot pass a " + c.getName() + ": "
                + e.getMessage(), e);
    }

    @SuppressWarnings("unchecked")
    private static long sizeAs(WireWriter w, Object v, Class<?> as) {
        return w.sizeOf(v, (Class<Object>) as);
    }

    private int region(MemorySegment seg) {
        if (seg.byteSize() > connection.maxMessageLength()) {
            throw new RemoteException(Reason.ARGUMENT, "an array or segment of " + seg.byteSize()
                    + " bytes exceeds the connection's maximum of " + connection.maxMessageLength());
        }
        return connection.writeRegion(seg);
    }

    /** The bytes of a primitive array (not boolean[]), or -1 for anything else. */
    private static long arrayBytes(Object v) {
        return switch (v) {
            case byte[] a -> a.length;
            case int[] a -> 4L * a.length;
            case long[] a -> 8L * a.length;
            case double[] a -> 8L * a.length;
            case float[] a -> 4L * a.length;
            case short[] a -> 2L * a.length;
            case char[] a -> 2L * a.length;
            default -> -1;
        };
    }

    private static MemorySegment arraySegment(Object array) {
        return switch (array) {
            case byte[] a -> MemorySegment.ofArray(a);
            case short[] a -> MemorySegment.ofArray(a);
            case char[] a -> MemorySegment.ofArray(a);
            case int[] a -> MemorySegment.ofArray(a);
            case long[] a -> MemorySegment.ofArray(a);
            case float[] a -> MemorySegment.ofArray(a);
            case double[] a -> MemorySegment.ofArray(a);
            default -> throw new IllegalArgumentException(array.getClass().getName());
        };
    }

    /** Writes a planned value at {@code at}; where it ends. */
    @SuppressWarnings("unchecked")
    long put(MemorySegment s, long at, Planned v, WireWriter w) {
        putValueHeader(s, at, v.tag, v.payload);
        long p = at + VALUE_HEADER;
        switch (v.tag) {
            case T_PRIM -> s.set(ValueLayout.JAVA_LONG_UNALIGNED, p, RpcDescriptor.bits(v.value));
            case T_BYTES, T_SHARED, T_WIRE_REFS -> MemorySegment.copy((MemorySegment) v.value, 0, s, p, v.payload);
            case T_REGION, T_STREAM -> s.set(ValueLayout.JAVA_LONG_UNALIGNED, p, v.region); // a STREAM's: its index
            case T_REMOTE -> s.set(ValueLayout.JAVA_LONG_UNALIGNED, p, (Long) v.value);
            case T_WIRE -> {
                long n = v.as == null ? w.write(v.value, s, p) : w.write(v.value, v.as, s, p);
                if (n != v.payload) {
                    throw new IllegalStateException("an argument changed while it was marshalled (" + n + " vs " + v.payload + ")");
                }
            }
            default -> { }
        }
        return at + span(v.payload);
    }

    /**
     * The {@code T_SHARED} values of {@code plan} the object layer wants to hear the peer's answer about
     * ({@link NodeExtension#wantsAnswer}), or null (no allocation when there is none).
     */
    MemorySegment[] reportAnswer(Planned[] plan) {
        if (extension == null) {
            return null;
        }
        MemorySegment[] out = null;
        for (int i = 0; i < plan.length; i++) {
            if (plan[i].tag == T_SHARED && extension.wantsAnswer((MemorySegment) plan[i].value)) {
                if (out == null) {
                    out = new MemorySegment[plan.length];
                }
                out[i] = (MemorySegment) plan[i].value;
            }
        }
        return out;
    }

    /**
     * Gives back what planning counted for values that will not be sent after all (the message failed
     * before it was committed): each of our objects' references in {@code plan}, and the weights of the object
     * layer's references (alone or in a value's table) (null entries skipped).
     */
    void unsent(Planned... plan) {
        for (Planned v : plan) {
            if (v != null && v.tag == T_REMOTE && (int) ((Long) v.value >>> 32) == SIDE_SENDER) {
                exported.unsent((int) (long) (Long) v.value);
            } else if (v != null && v.tag == T_SHARED && extension != null) {
                extension.unsent((MemorySegment) v.value, endpoint);
            } else if (v != null && v.tag == T_WIRE_REFS && extension != null) {
                for (MemorySegment entry : ReferenceTable.entries((MemorySegment) v.value)) {
                    extension.unsent(entry, endpoint);
                }
            }
        }
    }

    /**
     * Encodes a remote reference: the receiver's own object coming back, or one of ours (exported here,
     * counted: {@link #unsent} takes it back if the message is not sent).
     *
     * @throws RemoteException {@code OVERLOADED} if the peer holds as many of our objects as it may
     */
    private long remoteRef(Object v, Class<?> iface) {
        if (v instanceof ProxyObject po) {
            Binding pb = po.verbatimBinding();
            if (pb.callsOver(endpoint)) { // back to its exporter: it arrives as the original
                return ((long) (pb.toObject ? SIDE_RECEIVER_OBJECT : SIDE_RECEIVER_EXPORT) << 32) | (pb.target & 0xFFFF_FFFFL);
            }
        }
        return exported.export(v, iface) & 0xFFFF_FFFFL; // side 0: the sender's
    }
}
