package dev.verbatim.buffer;

/**
 * Where a lease's slot goes when the lease ends: back to a {@link BufferPool}, or freed (unpooled
 * buffers from {@link Buffers}).
 */
interface Owner {

    /**
     * Takes back the slot of a lease that has just ended. Called exactly once per lease, after no
     * view can observe the slot any more. Must be thread-safe: it runs on the releasing thread,
     * the thread closing a pool, or the cleaner thread.
     *
     * @param lease the lease that ended
     * @param cause one of {@link LeaseState#RELEASED}, {@link LeaseState#RECLAIMED},
     *              {@link LeaseState#REVOKED}
     */
    void dispose(LeaseState lease, int cause);

    /**
     * Whether this owner hands a slot to a later lease. Heap leases of such owners count their
     * in-flight accesses so that a release waits for them (see {@link LeaseState}).
     */
    boolean recycles();
}
