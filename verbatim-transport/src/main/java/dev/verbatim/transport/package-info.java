/**
 * Connections between processes (VIA's virtual interfaces, Javia, J-RPC §5): one
 * {@link dev.verbatim.transport.Connection} interface over two transports chosen by address,
 * {@code shm:NAME} (shared memory on one host, no system call on the fast path) and
 * {@code tcp://HOST:PORT} (Java NIO). The same message bytes travel on both. The protocol is
 * specified in {@code docs/transport.md}.
 *
 * <h2>Entry points</h2>
 * <ul>
 *   <li>{@link dev.verbatim.transport.Transport}: {@code listen} at an address (a
 *       {@link dev.verbatim.transport.Listener} that accepts connections) and {@code connect} to one, with
 *       {@link dev.verbatim.transport.ConnectionOptions}.</li>
 *   <li>{@link dev.verbatim.transport.Connection}: a copying API ({@code send} and {@code receive} of
 *       {@code byte[]}) and a buffer API: {@link dev.verbatim.transport.Claim} space, write in place, commit;
 *       receive a {@link dev.verbatim.transport.Delivery} where the bytes landed, or have a
 *       {@link dev.verbatim.transport.DeliveryHandler} called for each.</li>
 *   <li>{@link dev.verbatim.transport.ConnectionStats} (counters and what is held) and
 *       {@link dev.verbatim.transport.TransportException} with its reason.</li>
 * </ul>
 *
 * <h2>Invariants</h2>
 * <ul>
 *   <li><b>Receiver-owned areas, sender-managed flow control.</b> Each side receives into areas it owns;
 *       the sender claims space in them and learns which areas were freed from notices, with no extra round
 *       trip on the fast path. Messages arrive complete, in order, once.</li>
 *   <li><b>Zero copy both ways.</b> A sender writes into the claimed space (on {@code shm}, the peer's
 *       memory); a receiver reads the bytes where they landed. Large arrays go ahead of their message by a
 *       one-sided write ({@link dev.verbatim.transport.Connection#writeRegion}).</li>
 *   <li><b>Bounded memory and waits.</b> A held delivery never blocks the connection: the sender moves to
 *       another area and what is held is counted; when every area is held the sender is back-pressured, then
 *       times out. Every wait is bounded; a dead peer is reported, never waited for forever.</li>
 *   <li><b>Untrusted peers.</b> Frames, notices and region announcements from a peer are checked before they
 *       are used: a protocol violation closes that connection with a reason. Message payloads are handed
 *       out as they came; validating them is the layer above's job (the wire format does).</li>
 *   <li><b>Threads.</b> One sending thread and one receiving thread at a time per connection; an idle
 *       connection owns no platform thread and costs no CPU.</li>
 * </ul>
 * Implementation classes live in {@code dev.verbatim.transport.internal}, which is not exported.
 */
package dev.verbatim.transport;
