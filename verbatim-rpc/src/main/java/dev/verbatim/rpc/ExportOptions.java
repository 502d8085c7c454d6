package dev.verbatim.rpc;

/**
 * How an export runs its calls.
 *
 * @param virtualThreads run each call on a new virtual thread (for methods that block) instead of
 *                       inline on the connection's dispatcher (the default: lowest latency, but a
 *                       call that blocks holds up the other calls of its connection)
 */
public record ExportOptions(boolean virtualThreads) {
    public static final ExportOptions INLINE = new ExportOptions(false);
    public static final ExportOptions VIRTUAL_THREADS = new ExportOptions(true);
}
