package dev.verbatim.bench.rpc;

import dev.verbatim.bench.harness.ChildProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The starts of a {@code bench rpc} run: the order the starters take them in (the TLS contenders as soon as
 * the run's CA is made, the others meanwhile), and the scale case's processes, started ahead with the
 * contenders' and idle until the case, then measuring; nothing left behind, a failed start included. No timing.
 */
class RpcProcessesTest {

    @AfterEach
    void noneLeft() {
        ChildProcess.closeAll();
        assertEquals(0, ChildProcess.liveCount());
    }

    /** A start that says its name into {@code taken}. */
    private static Runnable start(String name, List<String> taken) {
        return () -> taken.add(name);
    }

    /**
     * Takes and runs every start of {@code order} (each says its name into {@code taken}), completing {@code ca}
     * once {@code caAfter} starts were taken; returns {@code taken}.
     */
    private static List<String> takeAll(RpcProcesses.StartOrder order, List<String> taken, CompletableFuture<Void> ca,
                                        int caAfter) {
        for (Runnable r; (r = order.next()) != null; ) {
            r.run();
            if (taken.size() == caAfter) {
                ca.complete(null);
            }
        }
        return taken;
    }

    @Test
    void theTlsContendersStartAsSoonAsTheCaIsMadeAndTheOthersMeanwhile() {
        List<String> taken = new ArrayList<>();
        CompletableFuture<Void> ca = new CompletableFuture<>();
        RpcProcesses.StartOrder order = new RpcProcesses.StartOrder(List.of(start("scale", taken)),
                List.of(start("shm/floor", taken), start("tcp/rmi", taken), start("tcp/grpc", taken)),
                List.of(start("tls/verbatim", taken), start("tls/grpc", taken)), ca);
        assertEquals(List.of("scale", "shm/floor", "tls/verbatim", "tls/grpc", "tcp/rmi", "tcp/grpc"), takeAll(order, taken, ca, 2));
    }

    @Test
    void withTheCaStillInTheMakingTheTlsContendersComeLast() {
        List<String> taken = new ArrayList<>();
        CompletableFuture<Void> ca = new CompletableFuture<>();
        RpcProcesses.StartOrder order = new RpcProcesses.StartOrder(List.of(),
                List.of(start("shm/floor", taken), start("tcp/rmi", taken)),
                List.of(start("tls/verbatim", taken), start("tls/grpc", taken)), ca);
        assertEquals(List.of("shm/floor", "tcp/rmi", "tls/verbatim", "tls/grpc"), takeAll(order, taken, ca, -1));
        assertNull(order.next(), "a start taken twice");
    }

    @Test
    @Timeout(120)
    void theScaleCasesProcessesStartAheadWaitIdleAndMeasureLater() throws Exception {
        System.setProperty("verbatim.bench.scale.connections", "20");
        ScaleIdle.Setup s;
        try {
            s = ScaleIdle.start(true);
        } finally {
            System.clearProperty("verbatim.bench.scale.connections");
        }
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        ScaleIdle.Result r;
        try (s) {
            assertNull(s.error, s.error);
            assertEquals(3, ChildProcess.liveCount(), "the node, the meter and one load process, up");
            r = ScaleIdle.measure(s, new PrintStream(err, true, StandardCharsets.UTF_8));
            assertEquals(2, ChildProcess.liveCount(), "the load process is gone after the case");
        }
        assertEquals(0, ChildProcess.liveCount(), "a process of the scale case left behind");
        assertNull(r.error(), r.error() + "\n" + err);
        assertEquals(20, r.connections());
        assertTrue(r.p50Loaded() > 0 && r.p50Unloaded() > 0, r.toString());
        // the node's CPU for the load's calls: positive, and below a CPU-second per call (a sum gone wrong)
        assertTrue(r.cpuMicrosPerCall() > 0 && r.cpuMicrosPerCall() < 1e6, r.toString());
        assertTrue(r.fdsLoaded() >= r.fdsBefore() + 20, "the node did not hold the 20 connections: " + r);
    }

    @Test
    @Timeout(60)
    void aScaleCaseWhoseProcessesCouldNotStartFailsAloneAndLeavesNothing() {
        ScaleIdle.Setup s = new ScaleIdle.Setup(20, true);
        s.error = "no node";
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        ScaleIdle.Result r = ScaleIdle.measure(s, new PrintStream(err, true, StandardCharsets.UTF_8));
        s.close();
        assertNotNull(r.error());
        assertTrue(Double.isNaN(r.p50Loaded()));
        assertEquals(0, ChildProcess.liveCount());
    }
}
