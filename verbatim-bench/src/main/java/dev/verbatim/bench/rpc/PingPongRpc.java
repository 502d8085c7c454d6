package dev.verbatim.bench.rpc;

import dev.verbatim.bench.harness.ChildMain;
import dev.verbatim.bench.harness.Medium;
import dev.verbatim.bench.harness.Session;
import dev.verbatim.bench.transport.Contenders;
import dev.verbatim.bench.transport.Loops;
import dev.verbatim.bench.transport.PingPongContender;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Set;

/**
 * A transport suite's round-trip contender as an RPC contender: a call is one round trip of
 * {@link RpcCase#floorBytes()} request bytes (the first 8 a sequence stamp) whose reply is the
 * first word of the request ({@link Session#replyMax()} is 8 in this suite); the server side still
 * takes the whole request in (the shm floor copies it out of the shared file, NIO reads it). The floors
 * ({@code shm/floor}: FFM spin over a shared file, {@code tcp/floor}: raw NIO) and Aeron IPC echo
 * ({@code shm/aeron}) come in this way: the same code as in {@code bench transport}.
 */
final class PingPongRpc implements RpcContender {
    /** The reply of every round trip: one word. */
    static final int REPLY = 8;
    private final String id;
    private final Set<RpcCase> cases;

    /** The transport contender {@code id} ({@code shm/floor}, {@code tcp/floor}, {@code shm/aeron}) for {@code cases}. */
    PingPongRpc(String id, Set<RpcCase> cases) {
        this.id = id;
        this.cases = Set.copyOf(cases);
    }

    private PingPongContender transport() {
        return Contenders.pingPong(id);
    }

    @Override
    public String name() {
        return transport().name();
    }

    @Override
    public Medium medium() {
        return transport().medium();
    }

    @Override
    public Set<RpcCase> cases() {
        return cases;
    }

    @Override
    public boolean spins() {
        return medium() == Medium.SHM;
    }

    /** The shm pongs spin while they wait for a request: paused between turns. */
    @Override
    public boolean pausedBetweenTurns() {
        return spins();
    }

    @Override
    public List<String> jvmFlags() {
        return transport().jvmFlags();
    }

    @Override
    public Server server(Session session) throws Exception {
        check(session);
        return serving(transport().pong(session));
    }

    /** A server that runs {@code pong} until its client closes: an echo (or a serving floor's work) per call. */
    static Server serving(PingPongContender.Pong pong) {
        return new Server() {
            @Override
            public void serve() throws Exception {
                long echoes = 0;
                while (pong.echo()) { // until the client closes
                    ChildMain.echoed(++echoes); // paused between turns (spinning pongs)
                }
            }

            @Override
            public void close() throws IOException {
                pong.close();
            }
        };
    }

    /**
     * A client's side of a ping-pong: the {@code ping} of contender {@code id} and two native segments of the
     * session's largest message for the request and the reply; closing closes both.
     */
    record Link(PingPongContender.Ping ping, Arena arena, MemorySegment msg, MemorySegment reply) implements AutoCloseable {
        static Link open(String id, Session session) throws Exception {
            Arena arena = Arena.ofConfined();
            try {
                MemorySegment msg = arena.allocate(session.maxSize(), 4096);
                MemorySegment reply = arena.allocate(session.maxSize(), 4096);
                return new Link(Contenders.pingPong(id).ping(session), arena, msg, reply);
            } catch (Exception | Error e) {
                arena.close();
                throw e;
            }
        }

        @Override
        public void close() throws IOException {
            try {
                ping.close();
            } finally {
                arena.close();
            }
        }
    }

    @Override
    public Client client(Session session) throws Exception {
        check(session);
        Link link = Link.open(id, session);
        MemorySegment msg = link.msg();
        MemorySegment reply = link.reply();
        return new Client() {
            @Override
            public Call call(RpcCase c) {
                int size = c.floorBytes();
                if (size < 8 || size > session.maxSize()) {
                    throw new IllegalArgumentException(id + " has no floor for " + c.key());
                }
                Loops.pattern(msg, size);
                return seq -> {
                    Loops.stamp(msg, size, seq);
                    link.ping().roundTrip(msg, reply, size);
                    long echoed = reply.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
                    if (echoed != seq) {
                        throw new IOException(id + ": reply " + echoed + " to call " + seq);
                    }
                    return c.expected(seq);
                };
            }

            @Override
            public void close() throws IOException {
                link.close();
            }
        };
    }

    private static void check(Session session) {
        if (session.replyMax() != REPLY) {
            throw new IllegalStateException("the rpc floor needs " + Session.REPLY_MAX + "=" + REPLY
                    + ", has " + session.replyMax());
        }
    }
}
