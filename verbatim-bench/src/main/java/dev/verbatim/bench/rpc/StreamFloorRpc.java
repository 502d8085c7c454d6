package dev.verbatim.bench.rpc;

import dev.verbatim.bench.harness.Medium;
import dev.verbatim.bench.harness.Session;
import dev.verbatim.transport.Claim;
import dev.verbatim.transport.Connection;
import dev.verbatim.transport.Delivery;
import dev.verbatim.transport.Listener;
import dev.verbatim.transport.Transport;
import dev.verbatim.transport.TransportException;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

/**
 * The floor of the bulk cases (issue 18 §3, {@code shm/bytes-1MiB}, {@code shm/bytes-64MiB}): Verbatim's own
 * shm transport streaming the same bytes in pieces, with no RPC. A call sends the argument as messages of at
 * most one piece each (the piece size Verbatim's RPC uses: 1 MiB, or less when the area is smaller), each a
 * 16-byte header (total, offset) and the bytes, the sender copying each straight into the receiver's window;
 * the receiver copies each piece into one buffer it reuses (so it ends with the value whole in its memory,
 * as an RPC receiver must) and, after the last, answers the first word. Shown as {@code floor} in the shm
 * tables, beside the ping-pong floor of the other cases.
 */
final class StreamFloorRpc implements RpcContender {
    static final String NAME = "stream-floor";
    private static final int PIECE = 1 << 20;
    private static final int HEADER = 16;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String nameIn(Medium m) {
        return dev.verbatim.bench.harness.FloorCase.FLOOR;
    }

    @Override
    public Medium medium() {
        return Medium.SHM;
    }

    @Override
    public Set<RpcCase> cases() {
        return EnumSet.of(RpcCase.BYTES_1MIB, RpcCase.BYTES_64MIB);
    }

    @Override
    public boolean spins() {
        return true;
    }

    /** The bytes of a piece: Verbatim's (1 MiB, or what fits a message less its 32-byte header), so 1 MiB is one message. */
    static int piece(Connection c) {
        return Math.min(PIECE, (c.maxMessageLength() - 32 - HEADER) & ~7);
    }

    @Override
    public Server server(Session session) {
        System.setProperty("verbatim.shm.dir", session.dir().toString());
        Listener listener = Transport.listen("shm:" + session.name(), VerbatimRpcContender.options(Medium.SHM, null));
        session.publish("address", listener.address());
        Arena arena = Arena.ofShared();
        MemorySegment into = arena.allocate(RpcCase.BYTES_64MIB.floorBytes(), 4096);
        return new Server() {
            Connection connection;

            @Override
            public void serve() {
                connection = listener.accept(Duration.ofSeconds(60));
                MemorySegment reply = MemorySegment.ofArray(new long[1]);
                try {
                    while (true) {
                        Delivery d = connection.take(Duration.ofSeconds(1));
                        if (d == null) {
                            continue;
                        }
                        MemorySegment m = d.payload();
                        long total = m.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
                        long at = m.get(ValueLayout.JAVA_LONG_UNALIGNED, 8);
                        long n = m.byteSize() - HEADER;
                        MemorySegment.copy(m, HEADER, into, at, n);
                        d.release();
                        if (at + n == total) {
                            reply.set(ValueLayout.JAVA_LONG, 0, into.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
                            connection.send(reply);
                        }
                    }
                } catch (TransportException closed) {
                    // the client is done
                }
            }

            @Override
            public void close() {
                if (connection != null) {
                    connection.close();
                }
                listener.close();
                arena.close();
            }
        };
    }

    @Override
    public Client client(Session session) {
        System.setProperty("verbatim.shm.dir", session.dir().toString());
        Connection connection = Transport.connect(session.require("address"), VerbatimRpcContender.options(Medium.SHM, null));
        int piece = piece(connection);
        return new Client() {
            @Override
            public Call call(RpcCase c) {
                byte[] big = RpcCase.bulk(c.floorBytes());
                MemorySegment src = MemorySegment.ofArray(big);
                long total = big.length;
                return seq -> {
                    RpcCase.stamp(big, seq);
                    for (long at = 0; at < total; at += piece) {
                        int n = (int) Math.min(piece, total - at);
                        Claim claim = connection.claim(HEADER + n);
                        MemorySegment s = claim.segment();
                        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, total);
                        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, at);
                        MemorySegment.copy(src, at, s, HEADER, n);
                        claim.commit();
                    }
                    byte[] r = connection.receive(Duration.ofSeconds(30));
                    if (r == null || r.length != 8) {
                        throw new IOException("no reply from the stream floor");
                    }
                    return MemorySegment.ofArray(r).get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
                };
            }

            @Override
            public void close() {
                connection.close();
            }
        };
    }
}
