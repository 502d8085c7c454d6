package dev.verbatim.rpc;

/**
 * How an export runs its calls, and what its failures tell its callers.
 *
 * @param virtualThreads run each call on a new virtual thread (for methods that block) instead of
 *                       inline on the connection's dispatcher (the default: lowest latency, but a
 *                       call that blocks holds up the other calls of its connection)
 * @param errorDetails   send callers an exception their method does not declare as it is (its class,
 *                       message and causes) and the text of internal errors (a result that cannot be
 *                       sent). By default (false) a caller learns only that such a failure happened:
 *                       an undeclared JDK runtime exception (an {@code IllegalStateException}, say)
 *                       arrives as its class with a message saying the details stayed here, any
 *                       other undeclared exception as a {@link ServerException} of remote class
 *                       {@code undisclosed}.
 *                       Declared exceptions (and their subclasses) always go with their message, and
 *                       their causes while those are declared too (docs/rpc.md §3)
 */
public record ExportOptions(boolean virtualThreads, boolean errorDetails) {
    public static final ExportOptions INLINE = new ExportOptions(false, false);
    public static final ExportOptions VIRTUAL_THREADS = new ExportOptions(true, false);

    /** Options that keep the details of undeclared failures (the default). */
    public ExportOptions(boolean virtualThreads) {
        this(virtualThreads, false);
    }

    /** These options, sending callers the details of undeclared failures, or not. */
    public ExportOptions withErrorDetails(boolean details) {
        return new ExportOptions(virtualThreads, details);
    }
}
