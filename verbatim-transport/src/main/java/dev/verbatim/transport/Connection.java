package dev.verbatim.transport;

import java.lang.foreign.MemorySegment;
import java.time.Duration;

/**
 * One end of a connection between two processes (VIA's virtual interface, J-RPC's endpoint).
 * Each side owns receive areas; the other side's sender claims space in them, writes, and commits,
 * managing flow control itself from the areas the receiver frees (announced in shared memory on
 * {@code shm}, piggy-backed on frames on {@code tcp}). Messages arrive complete, in order, once.
 *
 * <h2>Two levels (Javia I and II)</h2>
 * <ul>
 *   <li>Copying: {@link #send(byte[], int, int)} / {@link #send(MemorySegment)} and
 *       {@link #receive(Duration)}, which returns a fresh {@code byte[]}.</li>
 *   <li>Buffers: {@link #claim(int)} / {@link #tryClaim(int)} then {@link Claim#commit()} (the
 *       message is written in place, on {@code shm} straight into the peer's memory), and
 *       {@link #poll()} / {@link #take(Duration)} / {@link #poll(DeliveryHandler, int)}, which hand
 *       out the received bytes where they landed.</li>
 * </ul>
 *
 * <h2>One-sided writes</h2>
 * {@link #writeRegion(MemorySegment)} puts bytes (a large array) into the peer's receive area ahead
 * of the next message, which sees them as {@link Delivery#region(int)} (J-RPC §4.4).
 *
 * <h2>Threads</h2>
 * One thread at a time may send (claim, commit, send, writeRegion) and one thread at a time may
 * receive (poll, take, receive); the two may differ. {@link #stats()} and {@link #close()} may be
 * called from any thread. Deliveries may be released on any thread.
 *
 * <h2>Failures</h2>
 * A peer that closes is reported as {@link TransportException.Reason#PEER_CLOSED} once everything
 * it sent was received; a peer that dies as {@link TransportException.Reason#PEER_GONE}, to
 * pending and later operations, within a second. Neither ever hangs a caller: every wait is
 * bounded.
 */
public interface Connection extends AutoCloseable {

    /** The address of this connection's listener and which side this is, for messages and logs. */
    String description();

    /** The largest message or region the peer accepts (its receive area size minus 24 bytes). */
    int maxMessageLength();

    /**
     * The options this side made or accepted the connection with (what the layers above read their own
     * settings from, such as {@link ConnectionOptions#peerRecordsOnly()}). A {@code Connection} implemented
     * outside this module that does not say has {@link ConnectionOptions#DEFAULT}.
     */
    default ConnectionOptions options() {
        return ConnectionOptions.DEFAULT;
    }

    // ------------------------------------------------------------------ buffer API, send

    /**
     * Claims {@code length} bytes for a message, or returns {@code null} at once if the peer has no
     * free receive area (back-pressure). The returned claim is reused by the connection.
     *
     * @throws IllegalArgumentException if {@code length} is negative or above {@link #maxMessageLength()}
     * @throws IllegalStateException if a claim is already open
     * @throws TransportException if the connection is closed or the peer is gone
     */
    Claim tryClaim(int length);

    /**
     * Claims {@code length} bytes, waiting (spin, then park) up to the send timeout for the peer to
     * free space.
     *
     * @throws TransportException {@code TIMEOUT} if no space came free in time, or as {@link #tryClaim}
     */
    Claim claim(int length);

    /**
     * One-sided write: copies {@code src} into the peer's receive area ahead of the next message
     * committed on this connection, waiting as {@link #claim(int)} does.
     *
     * @return the index of the region in that next message ({@link Delivery#region(int)}): 0 for the
     *         first region written since the last message, then 1, 2, ... (at most 255)
     * @throws IllegalArgumentException if {@code src} is longer than {@link #maxMessageLength()}
     * @throws IllegalStateException if 256 regions are already pending, or a claim is open
     */
    int writeRegion(MemorySegment src);

    /**
     * Lets the message committed next wait in this side's send buffer, to leave together with the messages
     * committed after it: over tcp in one {@code write} (one system call for many messages) once a commit
     * that was not held, or {@link #flush()}, comes; over shm every message is published at once anyway (this
     * does nothing). For a sender that knows another message follows at once (another thread queued to send).
     * The sending thread must see to it that such a commit or a flush does follow: a held message does not
     * leave on its own (closing the connection still sends it).
     */
    default void holdNextCommit() {
    }

    /**
     * Whether {@link #holdNextCommit} really holds commits back (tcp: many frames in one write); false where every
     * commit is visible to the peer at once anyway (shm), so a sender need not watch what it held.
     */
    default boolean holdsCommits() {
        return false;
    }

    /** Sends what {@linkplain #holdNextCommit held} commits left waiting (the sending thread); nothing if none. */
    default void flush() {
    }

    /**
     * Whether a message has arrived and waits to be received, as far as this side knows without a system call
     * (the receiving thread): a hint for a receiver that answers what it reads, which then lets its answers
     * wait for the next ones ({@link #holdNextCommit}). False when it cannot tell.
     */
    default boolean hasArrived() {
        return false;
    }

    // ------------------------------------------------------------------ copying API, send

    /** Sends {@code length} bytes of {@code src} from {@code offset} (claim, copy, commit). */
    void send(byte[] src, int offset, int length);

    /** Sends the bytes of {@code src}. */
    void send(MemorySegment src);

    // ------------------------------------------------------------------ receive

    /**
     * The next message if one has arrived, else {@code null} at once. The delivery holds its
     * memory until released.
     *
     * @throws TransportException {@code PEER_CLOSED} / {@code PEER_GONE} when nothing more will
     *         come, {@code PROTOCOL} if the peer broke the protocol, {@code CLOSED} after close
     */
    Delivery poll();

    /**
     * Hands up to {@code limit} arrived messages to {@code handler}, without allocating, and
     * returns how many; {@code 0} if none had arrived. A handler that returns
     * {@link DeliveryHandler.Action#STOP} ends the poll after its delivery (counted).
     *
     * @throws TransportException as {@link #poll()}
     */
    int poll(DeliveryHandler handler, int limit);

    /**
     * Waits up to {@code timeout} for the next message: spins, then parks, so an idle wait costs
     * no CPU.
     *
     * @return the delivery, or {@code null} if none arrived in time
     * @throws TransportException as {@link #poll()}
     */
    Delivery take(Duration timeout);

    /** Copying receive: waits as {@link #take(Duration)}, copies the payload and releases it. */
    byte[] receive(Duration timeout);

    /**
     * From now on a receiver waiting in {@link #take} on this side parks at once instead of spinning first
     * ({@link ConnectionOptions#spinNanos()} no longer applies to receiving here; {@link ConnectionOptions#spinOnly()}
     * still does): for a connection that carries a message now and then and whose messages need no spin's latency
     * (a wake-up is enough), so that each one does not cost the receiver a spin of CPU. Any thread; idempotent.
     */
    default void receiveWithoutSpin() {
    }

    /**
     * Ends a {@link #take}/{@link #receive} waiting on another thread at once (it returns {@code null}); if none
     * is waiting, the next one returns {@code null} at once (as {@code Selector.wakeup}). For a receiving thread
     * that sleeps long in {@code take} and must also react to something other than a message, such as a timer
     * of its own. Any thread; costs a system call when the receiver is asleep.
     */
    void wakeup();

    /**
     * Asks to have {@code hook} run once when a message may have arrived, so a receiver can stop
     * waiting on an idle connection without a thread of its own (an RPC dispatcher ends its run and is
     * started again by the hook: docs/rpc.md §4). The hook runs on a transport thread (or at once on the
     * calling thread if a message is already there, or the connection ended) and must only hand work
     * on, never wait or receive. It may run when nothing is there after all (a spurious wake-up): the
     * receiver polls and arms again. A later call replaces a hook that has not run.
     *
     * @return {@code true} if the transport will run the hook; {@code false} if it cannot watch
     *         (shm: a futex word cannot be waited on together with others, so a receiver keeps its
     *         thread), and the caller must keep receiving itself
     */
    default boolean notifyWhenReadable(Runnable hook) {
        return false;
    }

    // ------------------------------------------------------------------ life

    /** A snapshot of this connection's counters. */
    ConnectionStats stats();

    /** {@code false} once this side closed, or the peer closed or died. */
    boolean isOpen();

    /**
     * Closes this side: tells the peer (which still receives what was committed before), frees the
     * receive areas and wakes every waiting thread. Deliveries still held become unusable (access
     * throws {@link IllegalStateException}). Idempotent.
     */
    @Override
    void close();
}
