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
 */
public record ValueKind(Tag tag, Class<?> type, String description) {
    public enum Tag { VOID, BOOLEAN, BYTE, CHAR, SHORT, INT, LONG, FLOAT, DOUBLE, COPY, VIEW, SEGMENT, REMOTE }

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
                return new ValueKind(view ? Tag.VIEW : Tag.COPY, c, d);
            } catch (RuntimeException e) {
                throw unsupported(where, c, e.getMessage());
            }
        }
        if (declared instanceof ParameterizedType p && p.getRawType() == CompletableFuture.class) {
            throw unsupported(where, declared, "CompletableFuture is only allowed as a return type");
        }
        throw unsupported(where, declared, "generic types cannot be a parameter or result on their own: wrap a List<T>"
                + " in a record");
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
