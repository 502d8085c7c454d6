package dev.verbatim.transport;

/**
 * A snapshot of a {@link Listener}'s bounds and counters (docs/transport.md §6.1). Counters are
 * cumulative since the listener opened; {@code connections} and {@code handshakes} are the current
 * state.
 *
 * @param connections     connections accepted and not closed yet (handed out or waiting for
 *                        {@link Listener#accept}); bounded by {@code maxConnections}
 * @param maxConnections  the limit ({@link ConnectionOptions#maxConnections()})
 * @param handshakes      handshakes in progress; bounded by {@code maxHandshakes}
 * @param maxHandshakes   how many handshakes run at once at most
 * @param accepted        connectors whose handshake succeeded
 * @param refusedBusy     connectors refused because {@code connections} was at the limit (they saw
 *                        {@link TransportException.Reason#BUSY})
 * @param evicted         handshakes ended early to make room for a newer connector while every slot
 *                        was taken (the oldest of the remote address holding the most slots)
 * @param dropped         other failed handshakes: malformed, wrong version, not authenticated, too slow,
 *                        closed by the connector (evictions and refusals not included)
 * @param acceptFailures  times the operating system's {@code accept} failed (for example out of
 *                        descriptors); the listener backed off and went on accepting
 */
public record ListenerStats(int connections, int maxConnections, int handshakes, int maxHandshakes, long accepted,
                            long refusedBusy, long evicted, long dropped, long acceptFailures) {
}
