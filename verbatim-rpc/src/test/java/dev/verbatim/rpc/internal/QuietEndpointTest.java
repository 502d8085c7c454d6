package dev.verbatim.rpc.internal;

import dev.verbatim.rpc.Node;
import dev.verbatim.rpc.Remote;
import dev.verbatim.transport.ConnectionOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A quiet endpoint ({@link Endpoint#quiet}, the object layer's connection for weight requests): nobody who reads it
 * spins. With connections that spin 60 s before they park, a reader that spins never parks in this test; a quiet
 * one parks after each message, on both sides (the server's side made quiet by a call, {@link NodeAccess#quietArrival}).
 * Counted as the connections' parks, not timed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QuietEndpointTest {
    public interface Ping extends Remote {
        /** {@code x + 1}; a negative {@code x} makes the connection it came over quiet on the server's side first. */
        long ping(long x);

        /** The parks of the server's side of the connection this call came over. */
        long serverParks();
    }

    private static final AtomicInteger N = new AtomicInteger();
    private static final ConnectionOptions SPIN_LONG = Node.DEFAULT_OPTIONS.withSpin(60_000_000_000L, false);
    private final List<Node> nodes = new ArrayList<>();

    @AfterEach
    void close() {
        nodes.forEach(Node::close);
    }

    private static final class Server implements Ping {
        @Override
        public long ping(long x) {
            if (x < 0) {
                NodeAccess.quietArrival();
            } else if (x > 0) {
                // the answer comes 2 ms after the call: a quiet caller's one look finds nothing, so it parks (an answer
                // already there at its look needs no park: the test failed when the server answered that fast); a
                // caller that spins 60 s spins through the 2 ms and never parks
                LockSupport.parkNanos(2_000_000);
            }
            return x + 1;
        }

        @Override
        public long serverParks() {
            return CallContext.current().arrivedOver.stats().parks();
        }
    }

    @Test
    void aQuietEndpointsReadersParkAfterEachMessageInsteadOfSpinning() {
        Node server = Node.listen(SPIN_LONG, "shm:quiet-" + ProcessHandle.current().pid() + "-" + N.incrementAndGet());
        nodes.add(server);
        server.export("ping", Ping.class, new Server());
        Node client = Node.create(SPIN_LONG, 1);
        nodes.add(client);
        Endpoint e = NodeAccess.nodes().connectApart(client, server.addresses().getFirst());
        Ping p = (Ping) e.lookup("ping", RemoteInterface.of(Ping.class), Duration.ofSeconds(20), new Endpoint[] {e});
        assertEquals(1, p.ping(0));

        e.quiet();
        assertEquals(0, p.ping(-1)); // the server's side is quiet from now on
        long serverBefore = p.serverParks();
        long clientBefore = e.stats().parks();
        int calls = 40;
        for (int i = 0; i < calls; i++) {
            LockSupport.parkNanos(1_000_000); // (the server's dispatcher has gone to sleep by the next call)
            assertEquals(i + 1, p.ping(i));
        }
        long serverParks = p.serverParks() - serverBefore;
        long clientParks = e.stats().parks() - clientBefore;
        // a reader that spins 60 s parks only if a wait outlasts its deadline (the dispatcher's is 10 s, a caller's 5 ms).
        // The dispatcher finds each call ≥ 1 ms after its last look, and the caller its answer 2 ms after its call (ping):
        // quiet ones park every time
        assertTrue(serverParks >= calls / 2, "the server's dispatcher parked " + serverParks + " times in " + calls + " calls");
        assertTrue(clientParks >= calls / 2, "the caller parked " + clientParks + " times in " + calls + " calls");
    }
}
