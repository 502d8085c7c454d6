package dev.verbatim.rpc.internal;

import dev.verbatim.transport.Delivery;
import dev.verbatim.wire.Message;
import dev.verbatim.wire.WireLimits;
import dev.verbatim.wire.WireReader;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

import static dev.verbatim.rpc.internal.RpcDescriptor.*;

/**
 * Reads values (docs/rpc.md §1 and §3) as the receiving side's own signature declares them: only the
 * declared type (and its permitted subtypes) is ever instantiated, a wire message is validated before
 * use, a region must have come with the message, a reference to one of this side's objects must name one
 * it handed out over this connection (a named export: one the peer looked up), as the declared interface or
 * one extending it. A malformed value is an {@link IllegalArgumentException} (or
 * another runtime exception of a bounds check), never a value.
 *
 * <p>Thread-safe: each reading thread validates with its own {@link WireReader}.
 */
final class ValueDecoder {
    /** Validates under the limits of the node's options: records only if they (or the system property) ask for it. */
    private final ThreadLocal<WireReader> readers;
    private final Exports exports;
    /** The named exports the peer may name (it looked them up). */
    private final Grants grants;
    private final ExportedObjects exported;
    private final ImportedObjects imported;
    /** The endpoint values arrive at, and its node's object layer (or null). */
    private final Endpoint endpoint;
    private final NodeExtension extension;
    /** The peer's streamed values, assembled ahead of the messages that name them. */
    private final IncomingStreams streams;

    /** {@code limits}: what a wire message of the peer is validated with ({@link WireLimits#forPeers(boolean)}). */
    ValueDecoder(Exports exports, Grants grants, ExportedObjects exported, ImportedObjects imported, Endpoint endpoint,
                 NodeExtension extension, IncomingStreams streams, WireLimits limits) {
        this.streams = streams;
        this.exports = exports;
        this.grants = grants;
        this.exported = exported;
        this.imported = imported;
        this.endpoint = endpoint;
        this.extension = extension;
        this.readers = ThreadLocal.withInitial(() -> new WireReader(limits));
    }

    IncomingStreams streams() {
        return streams;
    }

    /** Reads one value of kind {@code k} at {@code at} of message {@code m}, delivered as {@code d}. */
    Object read(Delivery d, MemorySegment m, long at, ValueKind k) {
        checkValue(m, at);
        int tag = tag(m, at);
        long n = length(m, at);
        long p = at + VALUE_HEADER;
        if (k.primitive()) {
            if (tag != T_PRIM || n != 8) {
                throw new IllegalArgumentException("a " + k.type() + " argument of tag " + tag);
            }
            long b = m.get(ValueLayout.JAVA_LONG_UNALIGNED, p);
            return switch (k.tag()) {
                case INT -> (int) b;
                case LONG -> b;
                case BOOLEAN -> b != 0;
                case BYTE -> (byte) b;
                case SHORT -> (short) b;
                case CHAR -> (char) b;
                case FLOAT -> Float.intBitsToFloat((int) b);
                case DOUBLE -> Double.longBitsToDouble(b);
                default -> throw new IllegalStateException();
            };
        }
        if (k.optional()) return java.util.Optional.ofNullable(decode(tag, n, m, p, k, d));
        return decode(tag, n, m, p, k, d);
    }

    private Object decode(int tag, long n, MemorySegment m, long p, ValueKind k, Delivery d) {
        return switch (tag) {
            case T_NULL -> null;
            case T_BYTES -> {
                if (!k.bytes()) {
                    throw new IllegalArgumentException("bytes for a " + k.type().getName());
                }
                if (k.tag() != ValueKind.Tag.SEGMENT) { // copied straight, no slice made for it
                    byte[] a = new byte[Math.toIntExact(n)];
                    MemorySegment.copy(m, ValueLayout.JAVA_BYTE, p, a, 0, a.length);
                    yield a;
                }
                MemorySegment b = m.asSlice(p, n);
                // an argument is read in place, valid for the call; a result outlives its reply: a copy on the heap
                yield kind(m) == REPLY ? MemorySegment.ofArray(b.toArray(ValueLayout.JAVA_BYTE)) : b;
            }
            case T_REGION -> {
                MemorySegment r = d.region((int) m.get(ValueLayout.JAVA_LONG_UNALIGNED, p));
                if (k.tag() == ValueKind.Tag.SEGMENT) {
                    yield r;
                }
                Class<?> c = k.type();
                if (!c.isArray() || !c.getComponentType().isPrimitive()) {
                    throw new IllegalArgumentException("a region for a " + c.getName());
                }
                yield toArray(r, c.getComponentType());
            }
            case T_WIRE -> {
                if (k.tag() != ValueKind.Tag.COPY && k.tag() != ValueKind.Tag.VIEW) {
                    throw new IllegalArgumentException("a graph for a " + k.type().getName());
                }
                Message msg = readers.get().validate(m.asSlice(p, n));
                yield k.tag() == ValueKind.Tag.VIEW ? msg.view(k.type()) : k.collection() ? msg.materialize(k.generic()) : msg.materialize(k.type());
            }
            case T_WIRE_REFS -> {
                if (k.tag() != ValueKind.Tag.COPY && k.tag() != ValueKind.Tag.VIEW) {
                    throw new IllegalArgumentException("a graph with references for a " + k.type().getName());
                }
                if (extension == null) {
                    throw new IllegalArgumentException("a graph with shared references to a node without objects");
                }
                MemorySegment payload = m.asSlice(p, n);
                MemorySegment[] entries = ReferenceTable.entries(payload);
                ReferenceTable.Decoded table = ReferenceTable.Decoded.counted(entries.length);
                Message msg;
                try {
                    msg = readers.get().validate(ReferenceTable.message(payload), table);
                } catch (RuntimeException e) {
                    for (MemorySegment entry : entries) {
                        extension.dropped(entry, endpoint); // their weight goes home
                    }
                    throw e;
                }
                table.decode(entries, extension, endpoint);
                yield k.tag() == ValueKind.Tag.VIEW ? msg.view(k.type()) : k.collection() ? msg.materialize(k.generic()) : msg.materialize(k.type());
            }
            case T_REMOTE -> {
                if (k.tag() != ValueKind.Tag.REMOTE) {
                    throw new IllegalArgumentException("a remote reference for a " + k.type().getName());
                }
                long ref = m.get(ValueLayout.JAVA_LONG_UNALIGNED, p);
                yield resolve((int) ref, (int) (ref >>> 32), k.type());
            }
            case T_SHARED -> {
                if (k.tag() != ValueKind.Tag.REMOTE) {
                    throw new IllegalArgumentException("a shared reference for a " + k.type().getName());
                }
                if (extension == null) {
                    throw new IllegalArgumentException("a shared reference to a node without objects");
                }
                yield extension.decode(m.asSlice(p, n), k.type(), endpoint);
            }
            case T_STREAM -> {
                long index = m.get(ValueLayout.JAVA_LONG_UNALIGNED, p);
                if (n != 8 || index >>> 16 != 0) {
                    throw new IllegalArgumentException("a malformed stream value");
                }
                yield streams.take(kind(m) == REPLY, callId(m), (int) index, k);
            }
            default -> throw new IllegalArgumentException("an unknown value tag " + tag);
        };
    }

    static Object toArray(MemorySegment r, Class<?> component) {
        if (component == byte.class) return r.toArray(ValueLayout.JAVA_BYTE);
        if (component == int.class) return r.toArray(ValueLayout.JAVA_INT);
        if (component == long.class) return r.toArray(ValueLayout.JAVA_LONG);
        if (component == double.class) return r.toArray(ValueLayout.JAVA_DOUBLE);
        if (component == float.class) return r.toArray(ValueLayout.JAVA_FLOAT);
        if (component == short.class) return r.toArray(ValueLayout.JAVA_SHORT);
        if (component == char.class) return r.toArray(ValueLayout.JAVA_CHAR);
        throw new IllegalArgumentException("a region for a " + component + "[]");
    }

    /**
     * A remote reference arriving: our own object coming back, or a proxy of one of the peer's. One of
     * ours is accepted only as what it was handed out as (the interface it was exported as, or one that
     * interface extends), and a named export only if the peer looked it up: a peer holding a read-only
     * facet cannot pass it where an administrative interface the same object implements is declared. A
     * refusal names nothing the peer was not given.
     */
    private Object resolve(int id, int side, Class<?> iface) {
        if (side == SIDE_RECEIVER_EXPORT) {
            Exports.Export e = grants.has(id) ? exports.byId(id) : null;
            Exports.Bound b = e == null ? null : e.bound;
            if (b == null || !iface.isAssignableFrom(b.remote().type)) {
                throw new IllegalArgumentException("a reference to export #" + id + ", which this side does not export as "
                        + iface.getName() + " to this connection");
            }
            return b.impl();
        }
        if (side == SIDE_RECEIVER_OBJECT) {
            ExportedObjects.Entry l = exported.get(id);
            if (l == null || !iface.isAssignableFrom(l.remote().type)) {
                throw new IllegalArgumentException("a reference to object #" + id + ", which this side does not export as "
                        + iface.getName() + " to this connection");
            }
            return l.impl();
        }
        if (side != SIDE_SENDER) {
            throw new IllegalArgumentException("a reference of unknown side " + side);
        }
        return imported.resolve(id, iface);
    }

    /** A {@code BYTES} value at {@code at} read as UTF-8 (a {@code NULL} as null): a string of the protocol. */
    static String string(MemorySegment m, long at) {
        int tag = tag(m, at);
        if (tag == T_NULL) {
            return null;
        }
        if (tag != T_BYTES) {
            throw new IllegalArgumentException("a string value of tag " + tag);
        }
        int n = m.get(ValueLayout.JAVA_INT_UNALIGNED, at + 4);
        return new String(m.asSlice(at + VALUE_HEADER, n).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
    }

    /** A {@code BYTES} value at {@code at} read as u64s (method ids). */
    static long[] longs(MemorySegment m, long at) {
        int n = m.get(ValueLayout.JAVA_INT_UNALIGNED, at + 4);
        checkValue(m, at); // bounds-checks the value against the message
        return m.asSlice(at + VALUE_HEADER, n & ~7L).toArray(ValueLayout.JAVA_LONG_UNALIGNED);
    }
}
