package dev.verbatim.rpc.internal;

import dev.verbatim.rpc.Remote;
import dev.verbatim.rpc.RemoteException;
import dev.verbatim.wire.Schema;

import java.lang.foreign.MemorySegment;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.concurrent.CompletableFuture;

/**
 * How one parameter or result crosses (J-RPC §3.2, DESIGN §5), decided from its declared type once
 * per method: primitives by value in an 8-byte slot; records, classes, enums, strings, boxes and
 * arrays by copy (a wire message, materialized on arrival); accessor interfaces as zero-copy views
 * of a wire message valid during the call; {@link MemorySegment} as a zero-copy slice; interfaces
 * extending {@link Remote} by reference. A {@code byte[]} and a {@link MemorySegment} are the same on the
 * wire (raw bytes, the same description): one side may declare the array where the other declares the
 * segment, as a record on one side matches an accessor interface on the other.
 *
 * <p>Generic types by copy too: {@code List<T>}, {@code Collection<T>}, {@code Set<T>} and {@code Map<K, V>} are
 * wire messages of that root type ({@code generic}, materialized as {@code ArrayList}, {@code LinkedHashSet},
 * {@code LinkedHashMap}); an {@code Optional<T>} of a non-generic {@code T} crosses as {@code T} would, empty as null
 * ({@code generic} is the {@code Optional} type, {@code tag} and {@code type} are {@code T}'s).
 *
 * <p>{@code references}: a value by copy that may hold objects passed by reference ({@code dev.verbatim.wire.ByReference},
 * the object layer's shared objects) in its fields or elements: it crosses as {@code WIRE_REFS}, the wire message and
 * the table of its references (docs/rpc.md §1), only between nodes with the object layer.
 */
public record ValueKind(Tag tag, Class<?> type, String description, Type generic, boolean references) {
    public enum Tag { VOID, BOOLEAN, BYTE, CHAR, SHORT, INT, LONG, FLOAT, DOUBLE, COPY, VIEW, SEGMENT, REMOTE }

    ValueKind(Tag tag, Class<?> type, String description) {
        this(tag, type, description, null, false);
    }

    ValueKind(Tag tag, Class<?> type, String description, Type generic) {
        this(tag, type, description, generic, false);
    }

    /** An {@code Optional<T>}: empty crosses as null, a value as {@code T}'s. */
    boolean optional() {
        return generic instanceof ParameterizedType p && p.getRawType() == java.util.Optional.class;
    }

    /** A {@code List}, {@code Collection}, {@code Set} or {@code Map}: written and read as {@link #generic}. */
    boolean collection() {
        return generic != null && !optional();
    }

    static ValueKind of(Type declared, Method where) {
        if (declared instanceof Class<?> c) {
            if (c == void.class || c == Void.class) return new ValueKind(Tag.VOID, c, "void");
            if (c.isPrimitive()) {
                Tag t = Tag.valueOf(c.getName().toUpperCase(java.util.Locale.ROOT));
                return new ValueKind(t, c, c.getName());
            }
            // a segment is bytes: it shares byte[]'s description, so a receiver may take in place what a sender copies
            if (c == MemorySegment.class) return new ValueKind(Tag.SEGMENT, c, Schema.describe(byte[].class));
            if (Remote.class.isAssignableFrom(c)) {
                if (!c.isInterface()) {
                    throw unsupported(where, c, "a remote type must be an interface extending Remote, not a class");
                }
                return new ValueKind(Tag.REMOTE, c, "remote " + c.getName());
            }
            if (dev.verbatim.wire.ArrayView.class.isAssignableFrom(c)) {
                // an ArrayView is a field of a view; on its own, an array goes by copy (or as a segment, read in place)
                throw unsupported(where, c, "declare the array itself (by copy), or a MemorySegment for bytes read in place");
            }
            try {
                String d = Schema.describe(c);
                boolean view = c.isInterface() && !c.isSealed() && c != CharSequence.class;
                return new ValueKind(view ? Tag.VIEW : Tag.COPY, c, d, null, Schema.holdsReferences(c));
            } catch (RuntimeException e) {
                throw unsupported(where, c, e.getMessage());
            }
        }
        if (declared instanceof ParameterizedType p && p.getRawType() == CompletableFuture.class) {
            throw unsupported(where, declared, "CompletableFuture is only allowed as a return type");
        }
        if (declared instanceof ParameterizedType p && p.getRawType() == java.util.Optional.class) {
            if (!(p.getActualTypeArguments()[0] instanceof Class<?> e) || e.isPrimitive()) {
                throw unsupported(where, declared, "an Optional crosses as its value: give it a class (wrap a generic value in a record)");
            }
            ValueKind k = of(e, where);
            if (k.tag() == Tag.VOID || k.tag() == Tag.SEGMENT || k.tag() == Tag.REMOTE || k.bytes()) {
                throw unsupported(where, declared, "an Optional crosses as a copy of its value: not of a " + e.getName());
            }
            return new ValueKind(k.tag(), k.type(), "optional(" + k.description() + ")", p, k.references());
        }
        if (declared instanceof ParameterizedType p && p.getRawType() instanceof Class<?> raw
                && (raw == java.util.List.class || raw == java.util.Collection.class || raw == java.util.Set.class || raw == java.util.Map.class)) {
            try {
                return new ValueKind(Tag.COPY, raw, Schema.describe(p), p, Schema.holdsReferences(p));
            } catch (RuntimeException e) {
                throw unsupported(where, declared, e.getMessage());
            }
        }
        throw unsupported(where, declared, "the generic types that cross are List, Collection, Set, Map and Optional of a "
                + "class; wrap others in a record");
    }

    static RemoteException unsupported(Method where, Type t, String why) {
        return new RemoteException(RemoteException.Reason.ARGUMENT, where.getDeclaringClass().getName() + "." + where.getName()
                + ": " + t.getTypeName() + " cannot cross: " + why);
    }

    /** Whether the value is raw bytes on the wire: a {@link MemorySegment}, or a {@code byte[]} (by copy). */
    boolean bytes() {
        return tag == Tag.SEGMENT || type == byte[].class;
    }

    boolean primitive() {
        return tag.ordinal() >= Tag.BOOLEAN.ordinal() && tag.ordinal() <= Tag.DOUBLE.ordinal();
    }
}
