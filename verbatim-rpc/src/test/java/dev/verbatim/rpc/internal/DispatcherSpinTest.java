package dev.verbatim.rpc.internal;

import dev.verbatim.rpc.Node;
import dev.verbatim.rpc.Remote;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.*;

/**
 * What a tcp server's dispatcher spins for (docs/rpc.md §4). A connection whose calls come further apart
 * than a spin does not spin after each of them once its first two showed it, nor wait in the transport (the
 * transport's readiness watch starts a run when the next comes); a
 * run that finds every spin slot of the process taken does not spin at all ({@link DispatchPool#trySpin});
 * a busy connection with a slot free still spins between its calls (the latency mode). Counted as the empty
 * polls of spinning runs ({@link DispatchPool#emptySpinPolls}), not timed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DispatcherSpinTest {
    public interface Ping extends Remote {
        int ping(int x);
    }

    private final List<Node> nodes = new ArrayList<>();

    @AfterEach
    void close() {
        nodes.forEach(Node::close);
    }

    private Ping connect() {
        Node server = Node.listen("tcp://127.0.0.1:0");
        nodes.add(server);
        server.export("ping", Ping.class, x -> x + 1);
        Node client = Node.create();
        nodes.add(client);
        return client.lookup(server.addresses().getFirst(), "ping", Ping.class, Duration.ofSeconds(20));
    }

    /** The empty spin polls per call of {@code calls} calls, {@code gapNanos} apart (0: back to back). */
    private static double emptyPollsPerCall(Ping p, int calls, long gapNanos) {
        long before = DispatchPool.emptySpinPolls();
        for (int i = 0; i < calls; i++) {
            assertEquals(i + 1, p.ping(i));
            if (gapNanos > 0) {
                LockSupport.parkNanos(gapNanos);
            }
        }
        return (double) (DispatchPool.emptySpinPolls() - before) / calls;
    }

    @Test
    void aConnectionCalledLessOftenThanASpinDoesNotSpinAfterEachCall() {
        Ping p = connect();
        emptyPollsPerCall(p, 5, 3_000_000); // its first calls show that they come far apart (each spins: bounded by the slots)
        double perCall = emptyPollsPerCall(p, 30, 3_000_000);
        assertTrue(perCall <= 3, "calls 3 ms apart: " + perCall + " empty polls of a spin per call (a 200 µs spin after each is hundreds)");
    }

    @Test
    void aConnectionCalledLessOftenThanARunWaitsDoesNotWaitInTheTransportAfterEachCallEither() {
        Ping p = connect();
        Node server = nodes.getFirst();
        long gap = 3 * WaitPolicy.RUN_IDLE_NANOS / 2; // (a run that waited after a call would time out before the next)
        emptyPollsPerCall(p, 4, gap); // its first calls show that they come far apart
        long before = NodeAccess.nodes().parks(server);
        int calls = 10;
        emptyPollsPerCall(p, calls, gap);
        double perCall = (double) (NodeAccess.nodes().parks(server) - before) / calls;
        // a run that ends as soon as it read its call leaves the connection to the transport's readiness watch; one
        // that waits in the transport spins there first (0.5 ms of read calls) and parks till its wait times out
        assertTrue(perCall < 0.5, "calls " + gap / 1_000_000 + " ms apart: the server parked " + perCall
                + " times per call (its dispatcher waited in the transport after each)");
    }

    @Test
    void aNewConnectionCalledNowAndThenNeitherSpinsNorWaitsInTheTransportFromItsFirstCall() {
        Ping p = connect();
        Node server = nodes.getFirst();
        long gap = 3 * WaitPolicy.RUN_IDLE_NANOS / 2;
        LockSupport.parkNanos(gap); // (the lookup was its first message)
        long parks = NodeAccess.nodes().parks(server);
        double polls = emptyPollsPerCall(p, 3, gap);
        assertEquals(0, NodeAccess.nodes().parks(server) - parks, "the server parked for a new connection's first calls, "
                + gap / 1_000_000 + " ms apart (a wait in the transport after each)");
        assertTrue(polls <= 3, polls + " empty polls of a spin per call");
    }

    @Test
    void aRunThatFindsEverySpinSlotTakenDoesNotSpin() {
        Ping p = connect();
        emptyPollsPerCall(p, 200, 0); // warm
        int held = 0;
        try {
            long end = System.nanoTime() + 10_000_000_000L; // (the server's run may spin in one still: it gives it back)
            while (held < DispatchPool.SPIN_SLOTS && System.nanoTime() < end) {
                if (DispatchPool.trySpin()) {
                    held++;
                }
            }
            assertEquals(DispatchPool.SPIN_SLOTS, held, "the test holds every spin slot");
            double perCall = emptyPollsPerCall(p, 300, 0);
            assertTrue(perCall <= 3, "every slot taken, back-to-back calls: " + perCall + " empty polls of a spin per call");
        } finally {
            for (int i = 0; i < held; i++) {
                DispatchPool.endSpin();
            }
        }
    }

    @Test
    void aBusyConnectionWithASlotFreeSpinsBetweenItsCalls() {
        Ping p = connect();
        emptyPollsPerCall(p, 200, 0); // warm
        double perCall = emptyPollsPerCall(p, 300, 0);
        assertTrue(perCall >= 1, "back-to-back calls, slots free: " + perCall + " empty polls of a spin per call (the dispatcher no longer spins between them)");
    }
}
