package dev.verbatim.buffer;

/**
 * An opaque handle a transport attaches to a {@link Buffer} it can write into directly (a
 * shared-memory receive area, memory pinned for RDMA: Javia-II's {@code register}). The buffer
 * module only stores it and guarantees the {@link #deregister()} callback; what the registration
 * means belongs to the transport.
 *
 * <p>Invariants the buffer keeps: at most one registration per {@link #key()} per lease;
 * {@link #deregister()} runs exactly once per successful {@link Buffer#register}, either through
 * {@link Buffer#deregister(Object)} or when the lease ends (release, garbage collection, pool
 * close), and in that case after every view became unusable and before the memory is reused,
 * freed or unmapped.
 *
 * <p>Implementations must be thread-safe ({@link #deregister()} may run on the cleaner thread),
 * must not block for long, and must not hold a strong reference to the buffer or its segment.
 */
public interface Registration {

    /**
     * Who registered (typically the transport or connection object); compared with
     * {@link Object#equals}. Must not be {@code null}.
     */
    Object key();

    /**
     * Undoes the registration (unpin, forget the area). Called exactly once. An exception thrown
     * here propagates from {@link Buffer#release()}, {@link Buffer#deregister(Object)} or
     * {@link BufferPool#close()} after the memory was handed back anyway; it is dropped when the
     * garbage collector reclaims the buffer.
     */
    void deregister();
}
