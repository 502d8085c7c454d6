/**
 * The transport suite, {@code ./verbatim bench transport [--quick] [--json] [--plot PATH]}: round-trip
 * latency (p50/p99/p99.9 from a histogram, per-byte cost) and one-way streaming bandwidth, every
 * contender's two sides in two separate processes.
 *
 * <h2>Pieces</h2>
 * <ul>
 *   <li>{@link dev.verbatim.bench.transport.TransportBench}: the run (contenders taking turns);
 *       {@code TransportReport} prints tables / JSON / targets, {@code TransportPlot} the PNG.
 *   <li>{@link dev.verbatim.bench.transport.Peer}: the children's main class (hosted by the harness's
 *       {@link dev.verbatim.bench.harness.ChildMain}); runs one side of one contender and the
 *       measuring loops ({@code Loops}).
 *   <li>{@link dev.verbatim.bench.transport.LinearFit}: the per-byte cost. The child processes, the
 *       turns, the histograms, the tables, JSON lines and targets are the harness's
 *       ({@code dev.verbatim.bench.harness}).
 *   <li>The baselines: {@code FloorPingPong} and {@code FloorStream} (FFM over a shared file in
 *       {@code /dev/shm}; layouts in {@code FloorPingPongDescriptor}, {@code FloorRingDescriptor}),
 *       {@code NioPingPong} (raw NIO TCP, the tcp floor), {@code AeronPingPong} (Aeron IPC).
 * </ul>
 *
 * <h2>Adding a contender</h2>
 * <ol>
 *   <li>Write a class in this package implementing
 *       {@link dev.verbatim.bench.transport.PingPongContender} (round trips) or
 *       {@link dev.verbatim.bench.transport.StreamContender} (streaming bandwidth):
 *       {@code name()} is its column and JSON key ({@code buffer}, {@code copy}, {@code verbatim});
 *       {@code medium()} says whether it is an {@code shm} or a {@code tcp} contender. The first
 *       side ({@code pong(Session)} / {@code consumer(Session)}) runs first in its own process:
 *       it listens or creates its receive area, using {@code session.name()} (unique per run) or
 *       {@code session.dir()} (private, deleted afterwards), and
 *       {@linkplain dev.verbatim.bench.harness.Session#publish publishes} what the other side
 *       needs (say a port). The second side ({@code ping(Session)} / {@code producer(Session)})
 *       connects, reading those with {@code session.require(key)}.
 *   <li>Implement the per-message calls: {@code Ping.roundTrip(message, reply, size)} sends
 *       {@code message[0,size)} and leaves the echo in {@code reply[0,size)};
 *       {@code Pong.echo()} echoes one message, or returns false once the ping closed (the ping's
 *       {@code close()} must make that happen: close the connection, or send a marker);
 *       {@code Producer.send(message, size)}; {@code Consumer.receive(into)} returns the size.
 *       Spin or park as the contender does; the harness times and checks.
 *   <li>Add an instance to {@link dev.verbatim.bench.transport.Contenders#pingPong()} or
 *       {@link dev.verbatim.bench.transport.Contenders#stream()}, where the comment marks its
 *       column. Nothing else: the tables, JSON cases, ratios to the floor, plot lines and the
 *       targets (which look contenders up by name: {@code buffer}, {@code aeron}, {@code verbatim})
 *       follow.
 * </ol>
 * {@code FloorPingPong} (about 100 lines over a shared file) and {@code NioPingPong} (a TCP
 * contender with a published port) are the models. A contender that needs JVM flags returns
 * them from {@code jvmFlags()} (see {@code AeronPingPong}).
 */
package dev.verbatim.bench.transport;
