package dev.verbatim.bench.transport;

import dev.verbatim.bench.harness.Medium;
import dev.verbatim.bench.harness.Session;

import java.util.List;

/**
 * The registry: every contender of {@code verbatim bench transport}, in column order. A contender
 * is known by its id, {@code medium/name} ({@code shm/floor}, {@code tcp/floor}, {@code shm/aeron});
 * the child processes find their contender here by that id, so a contender needs a public no-argument
 * construction path through this list and nothing else. See the package documentation.
 */
public final class Contenders {
    private Contenders() {}

    /** Round-trip contenders, in column order within each medium. */
    public static List<PingPongContender> pingPong() {
        return List.of(
                new FloorPingPong(),
                new VerbatimContenders.PingPong(Medium.SHM, VerbatimContenders.Api.BUFFER),
                new VerbatimContenders.PingPong(Medium.SHM, VerbatimContenders.Api.COPY),
                new AeronPingPong(),
                new NioPingPong(),
                new VerbatimContenders.PingPong(Medium.TCP, VerbatimContenders.Api.BUFFER),
                new VerbatimContenders.PingPong(Medium.TLS, VerbatimContenders.Api.BUFFER)
        );
    }

    /** Streaming-bandwidth contenders, in column order. */
    public static List<StreamContender> stream() {
        return List.of(
                new FloorStream(),
                new VerbatimContenders.Stream(VerbatimContenders.Api.BUFFER),
                new VerbatimContenders.Stream(VerbatimContenders.Api.COPY)
        );
    }

    static String id(Medium medium, String name) {
        return medium.key() + "/" + name;
    }

    static String id(PingPongContender c) {
        return id(c.medium(), c.name());
    }

    static String id(StreamContender c) {
        return id(c.medium(), c.name());
    }

    /** The round-trip contender of id {@code medium/name} (a fresh instance). */
    public static PingPongContender pingPong(String id) {
        return pingPong().stream().filter(c -> id(c).equals(id)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no ping-pong contender " + id));
    }

    /**
     * The shm floor's pong side ({@code shm/floor}) for a session whose reply is shorter than its requests (the rpc
     * suite's): each request is copied out of the shared file whole, as the floor's pong does, and the reply is the
     * one word {@code work} makes of it instead of the request's first word. Its ping side is {@code shm/floor}'s.
     */
    public static PingPongContender.Pong servingFloor(Session session, PingPongContender.Work work) throws Exception {
        return new FloorPingPong().pong(session, work);
    }

    static StreamContender stream(String id) {
        return stream().stream().filter(c -> id(c).equals(id)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no stream contender " + id));
    }
}
