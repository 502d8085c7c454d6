package dev.verbatim.bench.rpc;

import dev.verbatim.bench.harness.Medium;

import java.util.EnumSet;
import java.util.List;

import static dev.verbatim.bench.rpc.RpcCase.BYTES_8192;
import static dev.verbatim.bench.rpc.RpcCase.INTS4;
import static dev.verbatim.bench.rpc.RpcCase.LIST_128;
import static dev.verbatim.bench.rpc.RpcCase.NULL;
import static dev.verbatim.bench.rpc.RpcCase.REMOTE_ARG;

/**
 * The registry: every contender of {@code verbatim bench rpc}, in column order. A contender is known
 * by its id, {@code medium/name} ({@code shm/floor}, {@code tcp/rmi}); the child processes find
 * their contender here by that id, so a contender needs a no-argument construction path through
 * this list and nothing else. See the package documentation.
 */
public final class RpcContenders {
    private RpcContenders() {}

    /** Every contender, in column order (within a table, columns appear in this order). */
    public static List<RpcContender> all() {
        return List.of(
                new PingPongRpc("shm/floor", EnumSet.of(NULL, INTS4, REMOTE_ARG, BYTES_8192, LIST_128)),
                new FloorListRpc(FloorListRpc.Variant.HAND),
                new FloorListRpc(FloorListRpc.Variant.WIRE),
                new StreamFloorRpc(),
                new VerbatimRpcContender(Medium.SHM, VerbatimRpcContender.Variant.PLAIN),
                new VerbatimRpcContender(Medium.SHM, VerbatimRpcContender.Variant.COPY),
                new VerbatimRpcContender(Medium.SHM, VerbatimRpcContender.Variant.JOS),
                new VerbatimRpcContender(Medium.SHM, VerbatimRpcContender.Variant.FORY),
                new VerbatimRpcContender(Medium.SHM, VerbatimRpcContender.Variant.KRYO),
                new VerbatimRpcContender(Medium.SHM, VerbatimRpcContender.Variant.THREADS),
                new PingPongRpc("shm/aeron", EnumSet.of(NULL, INTS4)),
                new PingPongRpc("tcp/floor", EnumSet.of(NULL, INTS4, REMOTE_ARG, BYTES_8192)),
                new VerbatimRpcContender(Medium.TCP, VerbatimRpcContender.Variant.PLAIN),
                new VerbatimRpcContender(Medium.TCP, VerbatimRpcContender.Variant.THREADS),
                new RmiContender(),
                new GrpcContender(),
                new VerbatimRpcContender(Medium.TLS, VerbatimRpcContender.Variant.PLAIN),
                new TlsEngineFloor(),
                new GrpcContender(true)
        );
    }

    /** The id of a contender: {@code medium/name}. */
    public static String id(RpcContender c) {
        return c.medium().key() + "/" + c.name();
    }

    /** The contender of id {@code id} (a fresh instance). */
    public static RpcContender get(String id) {
        return all().stream().filter(c -> id(c).equals(id)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no rpc contender " + id));
    }
}
