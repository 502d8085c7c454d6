package dev.verbatim.wire.internal;

import dev.verbatim.wire.Message;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Objects;
import java.util.function.LongPredicate;

/**
 * The one access point from the stored-file package ({@code dev.verbatim.wire.file}) into what
 * {@code dev.verbatim.wire} keeps package-private: the type registry and a validated message's object table.
 * This package is not exported, so the methods here are no API; the wire package installs the one
 * implementation when {@link Message} is initialised ({@link #get()} makes sure it is).
 *
 * <p>Thread-safe: the implementation is stateless; it is installed once, before {@link #get()} returns it.
 */
public abstract class WireInternals {
    private static volatile WireInternals installed;

    /** For the wire package's implementation only. */
    protected WireInternals() {}

    /**
     * Installs the implementation; called once, by the wire package.
     *
     * @throws IllegalStateException on a second call
     */
    public static synchronized void install(WireInternals implementation) {
        if (installed != null) throw new IllegalStateException("wire internals installed twice");
        installed = Objects.requireNonNull(implementation, "implementation");
    }

    /** The implementation, installed by initialising {@link Message} if that has not happened yet. */
    public static WireInternals get() {
        WireInternals i = installed;
        if (i != null) return i;
        try {
            Class.forName(Message.class.getName(), true, Message.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
        return Objects.requireNonNull(installed, "wire internals not installed by Message");
    }

    /**
     * The canonical descriptions (docs/wire-format.md §5) a stored record must carry for the message just written
     * at {@code offset} of {@code segment} ({@code length} bytes): its type table's types and the types they
     * mention, minus those {@code described} already, in the order {@code TypeDictionary.learn} needs them.
     *
     * @throws IllegalStateException if the message names a type this process does not know (it wrote it, so it must)
     */
    public abstract List<String> newDescriptions(MemorySegment segment, long offset, long length, LongPredicate described);

    /** The canonical description of the type with this fingerprint if this process knows it, else null. */
    public abstract String canonicalDescription(long fingerprint);

    /** Receives the objects of a message, one call per object, in the message's order. */
    @FunctionalInterface
    public interface ObjectSink {
        /**
         * One object.
         *
         * @param fingerprint its type's structural fingerprint
         * @param bytes       the bytes it takes, padding to 8 included, table entries not
         */
        void object(long fingerprint, long bytes);
    }

    /** Hands every object of {@code message} to {@code sink}, from the object table validated with it. */
    public abstract void forEachObject(Message message, ObjectSink sink);
}
