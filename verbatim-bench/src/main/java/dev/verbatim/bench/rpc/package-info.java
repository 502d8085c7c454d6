/**
 * The rpc suite, {@code ./verbatim bench rpc [--quick] [--json] [--plot PATH]}: J-RPC Table 2 (null
 * call, four int arguments, one remote-interface argument), Figure 7 (an 8 KiB {@code byte[]}
 * argument's bandwidth) and Jaguar Figure 8's 128-element list as an argument, with peers, every
 * contender's server and client in two processes, all up for the whole run, the contenders taking
 * short turns case by case, round after round (figures: medians of turns; ratios: medians of the
 * ratios within a round; see {@link dev.verbatim.bench.rpc.RpcBench}).
 *
 * <h2>Pieces</h2>
 * <ul>
 *   <li>{@link dev.verbatim.bench.rpc.RpcCase}: the cases and the service contract each one keeps
 *       (what is passed for call {@code seq}, what comes back); the harness checks every result. The
 *       throughput cases ({@code throughput-C}, issue 18) make the null call from C callers at once
 *       ({@code Throughput}: C threads, or C asynchronous calls in flight, as the contender's
 *       {@link dev.verbatim.bench.rpc.RpcContender#callers()} says) and measure calls per second.
 *   <li>{@link dev.verbatim.bench.rpc.RpcContender}: the seam (server side, client side, one
 *       {@code Call} per case); {@link dev.verbatim.bench.rpc.RpcContenders}: the registry.
 *   <li>{@link dev.verbatim.bench.rpc.RpcBench}: the run; {@code RpcPeer}: the children's main
 *       (hosted by the harness's {@link dev.verbatim.bench.harness.ChildMain#host}, with its
 *       {@link dev.verbatim.bench.harness.ChildProcess}, {@link dev.verbatim.bench.harness.Session}
 *       and {@link dev.verbatim.bench.harness.LatencyHistogram}); {@code RpcReport}: tables, JSON,
 *       targets; {@code RpcPlot}: the PNG (with {@code ThroughputPanel}: calls per second against C).
 *   <li>The baselines: {@code PingPongRpc} (the transport suite's {@code shm/floor}, {@code tcp/floor}
 *       and {@code shm/aeron} ping-pongs, sending the call's argument bytes and getting a word back),
 *       {@code RmiContender} (Java RMI), {@code GrpcContender} (gRPC-java, byte[] marshaller).
 *   <li>{@link dev.verbatim.bench.rpc.RmiLatency}: RMI's null-call p50/p99 for the demo's table.
 *   <li>TLS (issue 17): {@code tls/verbatim} (a Node with mutual TLS 1.3) and {@code tls/grpc}
 *       ({@code GrpcTls}: Netty over the JDK's provider) measure the null call and the 8 KiB argument in
 *       the same rounds as the plaintext {@code tcp/verbatim}, which the tls tables and JSON cases show
 *       as {@code verbatim-plain} ({@link dev.verbatim.bench.rpc.RpcContender#nameIn}); their
 *       certificates come from one throwaway CA per run ({@link dev.verbatim.bench.harness.RunPki}).
 * </ul>
 *
 * <h2>Adding a contender (Verbatim's)</h2>
 * <ol>
 *   <li>Write a class in this package implementing {@link dev.verbatim.bench.rpc.RpcContender}:
 *       {@code name()} is its column and JSON key ({@code verbatim}; {@code jos}, {@code fory},
 *       {@code kryo} for the list sent as a {@code byte[]} serialized by Java serialization, Fory or Kryo;
 *       {@code verbatim-threads} for the throughput cases made by C threads), {@code medium()} {@code SHM}, {@code TCP} or {@code TLS} (one
 *       instance per medium), {@code cases()} what it measures, {@code spins()} true when its client
 *       spins (latency mode). Between its turns it must not spin: its client waits for a command
 *       anyway; a server that spins on its main thread's echo loop says
 *       {@code pausedBetweenTurns()} and calls {@code ChildMain.echoed} after each echo; a server on its
 *       own threads parks by itself (Verbatim's shm nodes spin 1 ms, then park).
 *   <li>{@code server(session)}: listen on {@code "shm:" + session.name()} (after
 *       {@code System.setProperty("verbatim.shm.dir", session.dir().toString())}, as the transport
 *       suite's {@code VerbatimContenders} do) or on {@code tcp://127.0.0.1:0}, export the service,
 *       {@code session.publish("address", ...)} what the client needs; {@code serve()} returns at
 *       once if the node serves on its own threads (or runs the dispatcher until the client
 *       leaves); {@code close()} unexports and closes.
 *   <li>{@code client(session)}: connect / look up (reading {@code session.require("address")});
 *       {@code call(c)} returns a lambda making call {@code seq} of case {@code c} as
 *       {@link dev.verbatim.bench.rpc.RpcCase} spells it out: the service interface is
 *       {@code void nullCall(); int ints4(int, int, int, int); int remoteArg(Token);
 *       long bytes(byte[]); long list(ListNode)}, {@code Token} a remote interface the client exports
 *       once, {@code ListNode} the list element of {@link dev.verbatim.bench.fixtures.ListNode}. {@code RmiContender.client} is the
 *       model (about 50 lines); the helpers {@code RpcCase.ints(seq)}, {@code bytes()}, {@code stamp},
 *       {@code list()} build the arguments and {@code RpcCase.ints4(...)}, {@code bytes(byte[])},
 *       {@code list(ListNode)} are the server's methods.
 *   <li>For {@code jos}: the same client and server with {@code cases() = {LIST_128}} and a method
 *       {@code long listJos(byte[] serialized)} whose server reads the list with an
 *       {@code ObjectInputStream} and returns {@code RpcCase.list(head)}; the client writes the
 *       list ({@code head.value = (int) seq}) with an {@code ObjectOutputStream} each call.
 *   <li>Add instances to {@link dev.verbatim.bench.rpc.RpcContenders#all()} where the comments mark
 *       the {@code shm/verbatim}, {@code shm/jos} and {@code tcp/verbatim} columns. Nothing else: the
 *       tables, the JSON cases and results, the ratios to the floor, the plot and the targets
 *       (which look contenders up by name: {@code floor}, {@code verbatim}, {@code jos},
 *       {@code rmi}, {@code grpc}) follow. {@code verbatim-bench} then depends on {@code verbatim-rpc}.
 * </ol>
 * {@code -Dverbatim.bench.only=shm/verbatim,shm/floor} (in {@code VERBATIM_JAVA_OPTS}) runs only
 * those contenders, {@code -Dverbatim.bench.cases=throughput-16,null} only those cases (an A/B of a few).
 */
package dev.verbatim.bench.rpc;
