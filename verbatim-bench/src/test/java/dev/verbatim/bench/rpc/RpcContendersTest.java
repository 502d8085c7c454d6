package dev.verbatim.bench.rpc;

import dev.verbatim.bench.fixtures.Graphs;
import dev.verbatim.bench.harness.ChildProcess;
import dev.verbatim.bench.harness.LatencyHistogram;
import dev.verbatim.bench.harness.Medium;
import dev.verbatim.bench.harness.RunPki;
import dev.verbatim.bench.harness.ScratchDir;
import dev.verbatim.bench.harness.Session;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rpc suite's baselines really call their server in another process and get the right values
 * back (each contender's server in a child, its client here); a suite run leaves no child behind.
 * No timing.
 */
class RpcContendersTest {

    @BeforeAll
    static void rmiHost() {
        // this JVM is an RMI exporter too in the remote-arg case (its token); the children get the flag
        System.setProperty("java.rmi.server.hostname", "127.0.0.1");
    }

    @AfterEach
    void noneLeft() {
        ChildProcess.closeAll();
        assertEquals(0, ChildProcess.liveCount());
        assertEquals(0, ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).count(),
                "a child process outlived the test");
    }

    /** The calls of a bulk case (issue 18 §3) in {@link #callEveryCase}, whatever {@code perCase} says. */
    private static final int BULK_CALLS = 3;

    /** Runs {@code perCase} calls of every case of {@code id} against its server in a child; returns the calls made. */
    private static long callEveryCase(String id, int perCase, Set<RpcCase> expectedCases) throws Exception {
        return callEveryCase(id, perCase, expectedCases, session -> { });
    }

    interface WithServer {
        void check(Session session) throws Exception;
    }

    /** As above, then {@code then} with the client's session while the server is still up. */
    private static long callEveryCase(String id, int perCase, Set<RpcCase> expectedCases, WithServer then) throws Exception {
        RpcContender c = RpcContenders.get(id);
        assertEquals(expectedCases, c.cases());
        Path base = ScratchDir.privateDir();
        long made = 0;
        try {
            Path dir = ScratchDir.sessionDir(base, id);
            Map<String, String> common = RpcBench.common(dir, 60_000);
            RunPki.forRun(List.of(c), base).addTo(c, common); // a tls contender: the run's throwaway CA
            assertEquals(c.medium() == Medium.TLS, common.containsKey(RunPki.KEY), common.toString());
            Map<String, String> session = new LinkedHashMap<>();
            try (ChildProcess server = RpcBench.startServer(c, common, session)) {
                try (RpcContender.Client client = c.client(new Session(session))) {
                    long[] seq = {1000};
                    for (RpcCase rc : c.cases()) {
                        if (rc.isThroughput()) {
                            continue; // the null call, made by many callers at once below
                        }
                        RpcContender.Call call = client.call(rc);
                        explicitValues(rc, call);
                        LatencyHistogram h = new LatencyHistogram();
                        int n = rc.isBulk() ? BULK_CALLS : perCase; // a 64 MiB call takes milliseconds
                        RpcPeer.calls(call, rc, n, seq, h); // each result checked against the contract
                        assertEquals(n, h.count());
                        made += n + 3;
                    }
                    if (c.cases().stream().anyMatch(RpcCase::isThroughput)) {
                        manyCallersAtOnce(c, client);
                    }
                } catch (Exception | AssertionError e) { // what the server said (why it closed a connection) with it
                    throw new AssertionError(id + " failed: " + e + "\nthe server's log:\n" + server.logTail(), e);
                }
                then.check(new Session(session));
                RpcBench.stopServer(server); // the server said DONE: it closed cleanly
                assertTrue(server.awaitExit(java.time.Duration.ofSeconds(10)));
                assertEquals(0, server.process().exitValue());
            }
        } finally {
            ScratchDir.deleteTree(base);
            assertFalse(Files.exists(base));
        }
        return made;
    }

    /**
     * The throughput cases' calls: 16 null calls at once, as the contender makes them (16 threads on the one
     * {@link RpcContender.Call}, each making 20; or 16 asynchronous calls started before any is awaited), all
     * answered 0.
     */
    private static void manyCallersAtOnce(RpcContender c, RpcContender.Client client) throws Exception {
        int n = RpcCase.THROUGHPUT_16.callers();
        if (c.callers() == RpcContender.Callers.ASYNC) {
            RpcContender.AsyncCall call = client.asyncCall(RpcCase.NULL);
            List<java.util.concurrent.CompletableFuture<Long>> fs = new java.util.ArrayList<>();
            for (int i = 0; i < n; i++) {
                fs.add(call.call(i));
            }
            for (var f : fs) {
                assertEquals(0, f.get(10, java.util.concurrent.TimeUnit.SECONDS));
            }
            return;
        }
        RpcContender.Call call = client.call(RpcCase.NULL);
        java.util.concurrent.atomic.AtomicLong answered = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
        List<Thread> ts = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            ts.add(Thread.ofPlatform().start(() -> {
                try {
                    for (int k = 0; k < 20; k++) {
                        assertEquals(0, call.call(k));
                        answered.incrementAndGet();
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            }));
        }
        for (Thread t : ts) {
            assertTrue(t.join(java.time.Duration.ofSeconds(10)), "a caller did not return");
        }
        assertNull(failure.get());
        assertEquals(n * 20L, answered.get());
    }

    /** A few calls whose results are spelled out here, independently of {@link RpcCase#expected}. */
    private static void explicitValues(RpcCase rc, RpcContender.Call call) throws Exception {
        switch (rc) {
            case NULL -> assertEquals(0, call.call(1));
            case INTS4 -> {
                assertEquals(10 + 11 + 12 + 13, call.call(10));
                assertEquals(-1 + 0 + 1 + 2, call.call(-1));
                assertEquals(4 * 1_000_000 + 6, call.call(1_000_000));
            }
            case REMOTE_ARG -> {
                assertEquals(1, call.call(1));
                assertEquals(1, call.call(2));
                assertEquals(1, call.call(3));
            }
            case BYTES_8192, BYTES_1MIB, BYTES_64MIB -> {
                assertEquals(42, call.call(42));
                assertEquals(0x0102_0304_0506_0708L, call.call(0x0102_0304_0506_0708L));
                assertEquals(-7, call.call(-7));
            }
            case LIST_128 -> {
                long tail = 0;
                for (int i = 1; i < RpcCase.LIST; i++) {
                    tail += i * 7 + 1; // Graphs.list: values i * 7 + 1
                }
                assertEquals(5 + tail, call.call(5));
                assertEquals(-3 + tail, call.call(-3));
                assertEquals(99 + tail, call.call(99));
            }
        }
    }

    @Test
    @Timeout(20)
    void rmiAnswersEveryCaseWithTheRightValues() throws Exception {
        assertEquals(5 * 303, callEveryCase("tcp/rmi", 300, EnumSet.complementOf(BULK)));
    }

    @Test
    @Timeout(20)
    void grpcAnswersItsCasesWithTheRightValues() throws Exception {
        assertEquals(3 * 303 + 2 * (BULK_CALLS + 3), callEveryCase("tcp/grpc", 300,
                EnumSet.of(RpcCase.NULL, RpcCase.INTS4, RpcCase.BYTES_8192, RpcCase.BYTES_1MIB, RpcCase.BYTES_64MIB,
                        RpcCase.THROUGHPUT_1, RpcCase.THROUGHPUT_16, RpcCase.THROUGHPUT_256)));
    }

    private static final EnumSet<RpcCase> BULK = EnumSet.of(RpcCase.BYTES_1MIB, RpcCase.BYTES_64MIB);

    @Test
    @Timeout(60)
    void verbatimOverShmAndTheStreamFloorAnswerTheBulkArguments() throws Exception {
        assertEquals(2 * (BULK_CALLS + 3), callEveryCase("shm/stream-floor", 300, BULK));
        assertEquals(5 * 303 + 2 * (BULK_CALLS + 3), callEveryCase("shm/verbatim", 300, EnumSet.allOf(RpcCase.class)));
        assertEquals("floor", RpcContenders.get("shm/stream-floor").nameIn(Medium.SHM));
    }

    @Test
    @Timeout(60)
    void verbatimOverTlsAnswersTheNullCallAndTheEightKiBArgument() throws Exception {
        assertEquals(2 * 303, callEveryCase("tls/verbatim", 300, EnumSet.of(RpcCase.NULL, RpcCase.BYTES_8192), session -> {
            // the server really requires TLS: a plaintext client is refused
            try (dev.verbatim.rpc.Node plain = dev.verbatim.rpc.Node.create(dev.verbatim.rpc.Node.DEFAULT_OPTIONS, 1)) {
                RuntimeException e = assertThrows(RuntimeException.class, () -> plain.lookup(session.require("address"), "bench",
                        VerbatimRpcContender.Service.class).nullCall());
                assertTrue(String.valueOf(e.getMessage()).contains("requires TLS"), String.valueOf(e));
            }
        }));
    }

    @Test
    @Timeout(60)
    void grpcOverTlsAnswersTheNullCallAndTheEightKiBArgument() throws Exception {
        assertEquals(2 * 303, callEveryCase("tls/grpc", 300, EnumSet.of(RpcCase.NULL, RpcCase.BYTES_8192), session -> {
            // the server really requires TLS: a plaintext channel gets no answer
            io.grpc.ManagedChannel plain = GrpcContender.channel(Integer.parseInt(session.require(GrpcContender.PORT)), null);
            try {
                assertThrows(io.grpc.StatusRuntimeException.class, () -> io.grpc.stub.ClientCalls.blockingUnaryCall(plain,
                        GrpcContender.NULL, io.grpc.CallOptions.DEFAULT.withDeadlineAfter(10, java.util.concurrent.TimeUnit.SECONDS),
                        new byte[0]));
            } finally {
                plain.shutdownNow();
                GrpcContender.awaitTermination(() -> plain.awaitTermination(5, java.util.concurrent.TimeUnit.SECONDS));
            }
        }));
    }

    @Test
    @Timeout(60)
    void theEngineFloorCarriesEachCallsSequenceThroughFourRecordOperations() throws Exception {
        // each call encrypts and decrypts the call frame and the reply frame with the run's keys, checking seq in both
        assertEquals(303, callEveryCase("tls/engine", 300, EnumSet.of(RpcCase.NULL)));
    }

    @Test
    void theTlsCasesHaveVerbatimWithAndWithoutTlsAndGrpcWithTls() {
        // tls/null and tls/bytes-8192: verbatim over TLS, the plaintext tcp verbatim beside it, gRPC with TLS
        Map<String, RpcContender> shownInTls = new LinkedHashMap<>();
        RpcContenders.all().stream().filter(c -> c.shownIn().contains(Medium.TLS))
                .forEach(c -> shownInTls.put(c.nameIn(Medium.TLS), c));
        assertEquals(List.of("verbatim-plain", "verbatim", "engine", "grpc"), List.copyOf(shownInTls.keySet()));
        assertEquals("tcp/verbatim", RpcContenders.id(shownInTls.get("verbatim-plain")));
        assertEquals("tls/verbatim", RpcContenders.id(shownInTls.get("verbatim")));
        assertEquals("tls/grpc", RpcContenders.id(shownInTls.get("grpc")));
        shownInTls.values().stream().filter(c -> !(c instanceof TlsEngineFloor))
                .forEach(c -> assertTrue(c.cases().containsAll(EnumSet.of(RpcCase.NULL, RpcCase.BYTES_8192)),
                        RpcContenders.id(c)));
        // the engine floor: the null call's record operations only
        assertEquals(Set.of(RpcCase.NULL), shownInTls.get("engine").cases());
        // elsewhere each keeps its own name, and the plaintext peers stay out of the tls tables
        assertEquals("verbatim", RpcContenders.get("tcp/verbatim").nameIn(Medium.TCP));
        assertEquals(Set.of(Medium.SHM, Medium.TCP), RpcContenders.get("tcp/grpc").shownIn());
        assertEquals(Set.of(Medium.SHM, Medium.TCP), RpcContenders.get("tcp/rmi").shownIn());
    }

    @Test
    @Timeout(20)
    void floorsAnswerWithTheFirstWordOfTheRequest() throws Exception {
        Set<RpcCase> floorCases = EnumSet.of(RpcCase.NULL, RpcCase.INTS4, RpcCase.REMOTE_ARG, RpcCase.BYTES_8192);
        // over shm also the list: the bytes of Verbatim's list call (the floor of that case)
        Set<RpcCase> shmCases = EnumSet.copyOf(floorCases);
        shmCases.add(RpcCase.LIST_128);
        assertEquals(5 * 503, callEveryCase("shm/floor", 500, shmCases));
        assertEquals(4 * 503, callEveryCase("tcp/floor", 500, floorCases));
    }

    @Test
    @Timeout(20)
    void theListWrittenByHandOrAsAWireMessageOverTheFloorIsSummedByItsServerInAnotherProcess() throws Exception {
        assertEquals(503, callEveryCase("shm/hand", 500, EnumSet.of(RpcCase.LIST_128)));
        assertEquals(503, callEveryCase("shm/wire", 500, EnumSet.of(RpcCase.LIST_128)));
    }

    @Test
    @Timeout(60)
    void foryAndKryoSendTheListAsTheirBytesOverAVerbatimConnection() throws Exception {
        assertEquals(303, callEveryCase("shm/fory", 300, EnumSet.of(RpcCase.LIST_128)));
        assertEquals(303, callEveryCase("shm/kryo", 300, EnumSet.of(RpcCase.LIST_128)));
    }

    @Test
    @Timeout(60)
    void verbatimAnswersManyCallersAtOnceFromThreadsAndAsynchronously() throws Exception {
        Set<RpcCase> throughput = EnumSet.of(RpcCase.THROUGHPUT_1, RpcCase.THROUGHPUT_16, RpcCase.THROUGHPUT_256);
        assertEquals(5 * 303, callEveryCase("tcp/verbatim", 300, EnumSet.complementOf(BULK)));
        assertEquals(0, callEveryCase("tcp/verbatim-threads", 300, throughput));
        assertEquals(0, callEveryCase("shm/verbatim-threads", 300, throughput));
        // like for like with gRPC's async stub: verbatim keeps C asynchronous calls in flight, verbatim-threads uses C threads
        assertEquals(RpcContender.Callers.THREADS, RpcContenders.get("shm/verbatim-threads").callers());
        assertEquals(RpcContender.Callers.ASYNC, RpcContenders.get("shm/verbatim").callers());
        assertEquals(RpcContender.Callers.ASYNC, RpcContenders.get("tcp/verbatim").callers());
    }

    @Test
    @Timeout(20)
    void aContenderThatWasNotAskedForACaseRefusesIt() throws Exception {
        RpcContender grpc = RpcContenders.get("tcp/grpc");
        Map<String, String> session = new LinkedHashMap<>(Map.of(GrpcContender.PORT, "1"));
        try (RpcContender.Client client = grpc.client(new Session(session))) {
            assertThrows(IllegalArgumentException.class, () -> client.call(RpcCase.REMOTE_ARG));
        }
    }

    @Test
    @Timeout(60) // the throughput turns are 300 ms each: 12 of them, on a loaded host
    void aSuiteRunOfRmiAndGrpcMeasuresEveryCaseAndLeavesNoChild() throws Exception {
        Path base = ScratchDir.privateDir();
        try {
            List<RpcContender> cs = List.of(RpcContenders.get("tcp/rmi"), RpcContenders.get("tcp/grpc"));
            List<RpcBench.Result> rs = RpcBench.runTurns(cs, new RpcBench.Plan(true, 2, 20, 40, false), base,
                    System.err, new java.util.ArrayList<>());
            assertEquals(0, ChildProcess.liveCount());
            for (int i = 0; i < cs.size(); i++) {
                RpcBench.Result r = rs.get(i);
                assertNull(r.error(), r.error());
                assertEquals(cs.get(i).cases(), r.byCase().keySet());
                r.byCase().forEach((c, turns) -> {
                    assertEquals(2, turns.size());
                    // a throughput turn has a rate (its window may see no call complete on a loaded host)
                    turns.forEach(h -> assertTrue(c.isThroughput() || h.count() > 0));
                    assertEquals(c.isThroughput() ? 2 : 0, r.rates(c).length, c.key());
                });
            }
        } finally {
            ScratchDir.deleteTree(base);
        }
    }

    @Test
    @Timeout(120)
    void aSuiteRunWithTlsMakesOneCaAndPairsTheTlsCallsWithThePlaintextOnes() throws Exception {
        Path base = ScratchDir.privateDir();
        List<RpcBench.Result> rs;
        try {
            List<RpcContender> cs = List.of(RpcContenders.get("tcp/verbatim"), RpcContenders.get("tls/verbatim"),
                    RpcContenders.get("tls/grpc"));
            rs = RpcBench.runTurns(cs, new RpcBench.Plan(true, 2, 10, 20, false), base, System.err, new java.util.ArrayList<>());
            assertEquals(0, ChildProcess.liveCount());
            assertTrue(Files.isRegularFile(base.resolve(RunPki.KEY).resolve("trust.p12")), "the run's CA is in its scratch directory");
        } finally {
            ScratchDir.deleteTree(base);
        }
        rs.forEach(r -> assertNull(r.error(), r.id() + ": " + r.error()));
        RpcBench.Run run = new RpcBench.Run("quick", 2, 10, 20, rs, 1, 0, 0);
        var cases = RpcReport.jsonCases(run);
        var tlsNull = cases.stream().filter(c -> c.name().equals("tls/null")).findFirst().orElseThrow();
        assertEquals(Set.of("verbatim-plain", "verbatim", "grpc"), tlsNull.results().keySet());
        var tlsBytes = cases.stream().filter(c -> c.name().equals("tls/bytes-8192")).findFirst().orElseThrow();
        assertEquals(Set.of("verbatim-plain", "verbatim"), tlsBytes.results().keySet());
        List<dev.verbatim.bench.harness.Target> tls = RpcReport.targets(run).stream()
                .filter(t -> t.what().startsWith("tls/")).toList();
        assertEquals(3, tls.size());
        tls.forEach(t -> assertFalse(t.missing(), t.what() + " has no figure"));
    }

    @Test
    @Timeout(20)
    void rmiLatencyForTheDemo() throws Exception {
        RmiLatency.Result r = RmiLatency.measure(200, 500);
        assertEquals(500, r.calls());
        assertTrue(r.p50Nanos() > 0 && r.p99Nanos() >= r.p50Nanos(), r.toString());
        assertEquals(0, ChildProcess.liveCount());
    }
}
