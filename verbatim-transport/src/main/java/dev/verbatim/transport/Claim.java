package dev.verbatim.transport;

import java.lang.foreign.MemorySegment;

/**
 * Space claimed for one message (buffer API, send side): write the message into
 * {@link #segment()}, then {@link #commit()} it, or {@link #abort()} to send nothing.
 *
 * <p>On {@code shm} the segment lies in the receiver's receive area (the sender writes straight
 * into the peer's memory); on {@code tcp} it lies in the connection's send buffer. A connection
 * hands out one claim at a time and reuses the object: it is valid until {@code commit} or
 * {@code abort}, and the segment must not be used afterwards. Not thread-safe: used by the one
 * thread that is sending on the connection.
 */
public interface Claim {

    /** The claimed bytes, exactly the length asked for; contents are unspecified until written. */
    MemorySegment segment();

    /** Publishes the message to the receiver, in order after everything committed before. */
    void commit();

    /**
     * Publishes only the first {@code length} bytes of the claimed space as the message (for a writer
     * that claimed an upper bound and learnt the real size while writing); the rest is given back.
     *
     * @throws IllegalArgumentException unless {@code 0 <= length <= segment().byteSize()}
     */
    void commit(int length);

    /** Gives the space back without delivering anything. */
    void abort();

    /**
     * Whether this claim is still open (neither committed nor aborted): a writer that failed part-way, wherever it
     * failed (a {@link StackOverflowError} may come even from the commit's first frame), gives it back only if so.
     */
    boolean isOpen();
}
