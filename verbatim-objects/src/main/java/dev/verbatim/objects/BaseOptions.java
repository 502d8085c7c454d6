package dev.verbatim.objects;

import dev.verbatim.rpc.Node;
import dev.verbatim.transport.ConnectionOptions;

import java.time.Duration;

/**
 * How a base runs.
 *
 * @param grant          the weight a base gives each reference to one of its objects that it sends
 *                       (docs/objects.md §3): a holder's forward takes half of what it holds, at most
 *                       2^24, so the default 2^40 lasts some 65,000 forwards before the holder must ask
 *                       for more (it asks ahead below 2^38, or below 2^16 for a hold that never had 2^38,
 *                       and never for one that never had 2^16); at least 2 and at most 2^44 (a holder sends home what it holds
 *                       above 2^47, so that an owner's count of each object's weight, at most 2^63 - 1, does
 *                       not fill up however often it sends the object: docs/objects.md §3)
 * @param virtualThreads run calls to this base's shared objects on virtual threads of their own (for
 *                       methods that block) instead of inline on the connection's dispatcher; such calls
 *                       that wait for other bases hold a carrier thread while they wait (RPC's waiting),
 *                       so on a small machine a few of them can starve the others (docs/objects.md §6)
 * @param timeout        the call timeout of references this base holds
 * @param connection     the options of the base's connections
 * @param censusDelay    how long an owner waits, after it learns that a base died, before it takes the census
 *                       that frees what only the dead base held (docs/objects.md §7): the time a base that knew
 *                       its objects only through the dead one has to introduce itself
 */
public record BaseOptions(long grant, boolean virtualThreads, Duration timeout, ConnectionOptions connection,
                          Duration censusDelay) {
    /** A grant of 2^40, calls inline, rpc's default timeout and connection options, a census 1 s after a death. */
    public static final BaseOptions DEFAULT = new BaseOptions(1L << 40, false, Node.DEFAULT_TIMEOUT, Node.DEFAULT_OPTIONS,
            Duration.ofSeconds(1));

    /** The largest grant: 2^44 (see {@code grant}). */
    public static final long MAX_GRANT = 1L << 44;

    public BaseOptions {
        if (grant < 2 || grant > MAX_GRANT) {
            throw new IllegalArgumentException("a grant must be at least 2 and at most 2^44, not " + grant);
        }
        if (censusDelay.isNegative()) {
            throw new IllegalArgumentException("a negative census delay: " + censusDelay);
        }
    }

    /** These options with another census delay. */
    public BaseOptions withCensusDelay(Duration censusDelay) {
        return new BaseOptions(grant, virtualThreads, timeout, connection, censusDelay);
    }

    /** These options with another grant. */
    public BaseOptions withGrant(long grant) {
        return new BaseOptions(grant, virtualThreads, timeout, connection, censusDelay);
    }

    /** These options with calls on virtual threads (or not). */
    public BaseOptions withVirtualThreads(boolean virtualThreads) {
        return new BaseOptions(grant, virtualThreads, timeout, connection, censusDelay);
    }

    /** These options with another call timeout. */
    public BaseOptions withTimeout(Duration timeout) {
        return new BaseOptions(grant, virtualThreads, timeout, connection, censusDelay);
    }

    /** These options with other connection options (spin, areas, TLS, a shared secret). */
    public BaseOptions withConnection(ConnectionOptions connection) {
        return new BaseOptions(grant, virtualThreads, timeout, connection, censusDelay);
    }
}
