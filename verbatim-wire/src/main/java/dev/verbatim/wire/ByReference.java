package dev.verbatim.wire;

/**
 * Marks interfaces whose objects a message carries <em>by reference</em>, not by copy: a field, array or list
 * element or map value declared as an interface extending this one is a <b>reference slot</b> (description
 * {@code ref}, 4 bytes: an index into a table of references that travels beside the message, {@code -1} for
 * null; docs/wire-format.md §3). The wire format knows nothing of what the table holds: a layer above it (the
 * object layer's {@code Shared} extends this interface) fills it as the writer meets each object ({@link Sink})
 * and resolves each index as the field's declared type when the message is read ({@link Source}).
 *
 * <p>Why a marker the layer above extends, rather than a registration hook: a type is analysed once and cached,
 * so a hook registered after some record holding such an interface was first analysed would leave that record
 * described the other way for the life of the process; a marker is known from the class itself, whenever it is
 * analysed.
 *
 * <p>A message with reference slots can be written only with a {@link Sink} ({@link WireWriter#references}) and
 * read only with a {@link Source} ({@link WireReader#validate(java.lang.foreign.MemorySegment, Source)}): one read
 * where no table can exist (a stored file, a plain message) fails validation on its first non-null slot.
 */
public interface ByReference {
    /** Where a writer enters the objects of reference slots: by identity, one index per object per message. */
    interface Sink {
        /**
         * The table index of {@code value} (not null), met in a slot declared {@code declared}: the same index for
         * the same object every time within one message.
         *
         * @throws RuntimeException if it cannot be carried (the write fails with it)
         */
        int enter(Object value, Class<?> declared);
    }

    /** Where a reader finds the objects of reference slots. */
    interface Source {
        /** The number of entries of the table: every slot of the message is {@code -1} or in {@code [0, size())}. */
        int size();

        /**
         * Entry {@code index} (in range) as {@code declared}.
         *
         * @throws IllegalArgumentException if the entry is not a {@code declared}
         */
        Object resolve(int index, Class<?> declared);
    }
}
