package dev.verbatim.transport;

import java.time.Duration;

/**
 * Accepts connections at one address. Thread-safe; {@link #close()} makes a blocked
 * {@link #accept(Duration)} throw {@link TransportException.Reason#CLOSED}. Closing the listener
 * does not close the connections it accepted.
 */
public interface Listener extends AutoCloseable {

    /** The address connectors use, with the real port when {@code tcp://HOST:0} was asked for. */
    String address();

    /**
     * Waits for the next connection and completes its handshake. A connector that fails the
     * handshake (malformed hello, wrong version, too slow) is dropped with a reason and the
     * listener keeps waiting for others.
     *
     * @return the connection, or {@code null} if none completed within {@code timeout}
     * @throws TransportException {@code CLOSED} once the listener is closed, {@code IO} on an
     *         operating-system error
     */
    Connection accept(Duration timeout);

    /** What this listener holds and has refused so far (docs/transport.md §6.1). */
    ListenerStats stats();

    /** Stops listening and removes what the listener created (the {@code shm} socket file). */
    @Override
    void close();
}
