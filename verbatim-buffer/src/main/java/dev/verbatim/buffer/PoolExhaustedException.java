package dev.verbatim.buffer;

import java.io.Serial;

/**
 * Thrown by {@link BufferPool#acquire(long, java.time.Duration)} when the pool's bounds did not
 * let a buffer be acquired within the timeout. The message names the request, the bounds and
 * what the pool held.
 */
public final class PoolExhaustedException extends RuntimeException {

    @Serial
    private static final long serialVersionUID = 1L;

    /** The requested size in bytes. */
    private final long requestedBytes;

    /**
     * Creates the exception.
     *
     * @param message        what was requested, the bounds and what the pool held
     * @param requestedBytes the requested size in bytes
     */
    public PoolExhaustedException(String message, long requestedBytes) {
        super(message);
        this.requestedBytes = requestedBytes;
    }

    /** The size of the buffer that could not be acquired, in bytes. */
    public long requestedBytes() {
        return requestedBytes;
    }
}
