package dev.verbatim.transport;

import java.lang.foreign.MemorySegment;

/**
 * A received message read in place (buffer API, receive side): {@link #payload()} is a slice of
 * the receive area the bytes landed in, and the regions the sender wrote ahead of it with
 * {@link Connection#writeRegion(MemorySegment)} are {@link #region(int)}.
 *
 * <p>Lifetime: a delivery returned by {@link Connection#poll()} or
 * {@link Connection#take(java.time.Duration)} holds its part of the receive area until
 * {@link #release()}; one passed to a {@link DeliveryHandler} is valid only during the callback
 * unless {@link #retain()}ed. Holding a delivery never stalls the connection: the sender moves on
 * to other areas; what is held is counted in {@link ConnectionStats#heldBytes()}. Only when every
 * area is held does the sender see back-pressure, so memory stays bounded.
 *
 * <p>Bytes from a peer are untrusted: validate before interpreting (the wire format does). After
 * {@code release()}, and once the connection's {@code close()} has returned, the delivery's methods
 * throw {@link IllegalStateException}; segments obtained earlier must not be used (they may show
 * later messages; after the connection closes every access through them throws: on tcp a moment
 * after {@code close()} returns, when the window is unmapped on the process's closing thread).
 * Thread-safe: may be released on any thread.
 */
public interface Delivery {

    /** The message bytes, read-only, in place. */
    MemorySegment payload();

    /** The number of bytes of {@link #payload()}. */
    long length();

    /** How many regions were written ahead of this message. */
    int regionCount();

    /**
     * The region with index {@code index} (the value {@link Connection#writeRegion} returned on the
     * sending side), read-only, in place.
     *
     * @throws IndexOutOfBoundsException if there is no such region
     */
    MemorySegment region(int index);

    /**
     * Keeps the message past the callback it was handed to: returns a delivery (this one when it is
     * already held) that stays valid until its {@link #release()}.
     */
    Delivery retain();

    /**
     * Gives the message's memory back to the receive area.
     *
     * @throws IllegalStateException if it was already released, or if it is a callback's delivery
     *         that was not retained
     */
    void release();
}
