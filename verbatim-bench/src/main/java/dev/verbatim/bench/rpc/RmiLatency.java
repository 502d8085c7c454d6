package dev.verbatim.bench.rpc;

import dev.verbatim.bench.harness.ChildProcess;
import dev.verbatim.bench.harness.LatencyHistogram;
import dev.verbatim.bench.harness.ScratchDir;
import dev.verbatim.bench.harness.Session;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Java RMI's null-call latency on loopback, for a table outside the benchmark (the
 * {@code ./verbatim demo} latency table's "Java RMI on loopback" row):
 * <pre>{@code
 *   RmiLatency.Result rmi = RmiLatency.measure(20_000, 20_000);
 *   System.out.printf("Java RMI on loopback  p50 %.1f us  p99 %.1f us%n", rmi.p50Nanos() / 1e3, rmi.p99Nanos() / 1e3);
 * }</pre>
 * {@link #measure} starts the RMI server of {@code bench rpc} ({@code tcp/rmi}: a registry on a
 * free port, the service exported on 127.0.0.1) in a child JVM (this JVM's {@code java} and class
 * path, so the caller's class path must hold verbatim-bench), looks the service up from this
 * process, makes the warm-up calls, then times every one of {@code calls} null calls
 * ({@code void nullCall()}), stops the child and deletes its directory. The child is gone when the
 * method returns or throws. It takes about a second plus the calls (some 30-50 µs each on a
 * 2-core host); this process gets RMI's client threads (daemons) and nothing exported. Not for
 * concurrent use.
 */
public final class RmiLatency {
    private RmiLatency() {}

    /** Null calls timed, their median and 99th percentile (ns, from a histogram of 0.8% resolution). */
    public record Result(long calls, double p50Nanos, double p99Nanos) {}

    /** {@code warmupCalls} untimed null calls, then {@code calls} timed ones (at least 1). */
    public static Result measure(int warmupCalls, int calls) throws Exception {
        if (warmupCalls < 0 || calls < 1) {
            throw new IllegalArgumentException("warm-up " + warmupCalls + ", calls " + calls);
        }
        RpcContender rmi = new RmiContender();
        Path base = ScratchDir.privateDir();
        try {
            Path dir = ScratchDir.sessionDir(base, RpcContenders.id(rmi));
            Map<String, String> session = new LinkedHashMap<>();
            long deadlineMillis = 60_000 + (warmupCalls + (long) calls) / 5; // the server halts itself after it
            try (ChildProcess server = RpcBench.startServer(rmi, RpcBench.common(dir, deadlineMillis), session)) {
                LatencyHistogram h = new LatencyHistogram();
                try (RpcContender.Client client = rmi.client(new Session(session))) {
                    RpcContender.Call call = client.call(RpcCase.NULL);
                    long[] seq = {0};
                    RpcPeer.calls(call, RpcCase.NULL, warmupCalls, seq, new LatencyHistogram());
                    RpcPeer.calls(call, RpcCase.NULL, calls, seq, h);
                }
                RpcBench.stopServer(server);
                return new Result(h.count(), h.quantile(0.5), h.quantile(0.99));
            }
        } finally {
            ScratchDir.deleteTree(base);
        }
    }
}
