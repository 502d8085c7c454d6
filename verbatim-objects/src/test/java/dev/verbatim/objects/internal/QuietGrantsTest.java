package dev.verbatim.objects.internal;

import dev.verbatim.objects.BaseOptions;
import dev.verbatim.objects.Fixtures;
import dev.verbatim.rpc.Node;
import dev.verbatim.rpc.internal.NodeAccess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The connection a holder asks its owner for weight over (docs/objects.md §3, {@link Peers#grants}) is quiet on both
 * sides: nobody spins reading it, so a request costs each side a wake-up, not a spin (the owner's dispatcher spun
 * 1.2 ms after each with the objects suite's settings). With connections that spin 60 s before they park, a reader
 * that spins never parks in this test: the parks are counted, not timed.
 */
@Timeout(60)
class QuietGrantsTest {
    private static final BaseOptions SPIN_LONG = BaseOptions.DEFAULT
            .withConnection(Node.DEFAULT_OPTIONS.withSpin(60_000_000_000L, false));

    private static long parks(ObjectSpace s) {
        return NodeAccess.nodes().parks(s.node());
    }

    @Test
    void theHolderAndTheOwnerParkOnTheConnectionForWeightInsteadOfSpinning() throws InterruptedException {
        String at = "shm:quiet-grants-" + ProcessHandle.current().pid();
        ObjectSpace a = ObjectSpace.listen(SPIN_LONG, at + "-a");
        ObjectSpace b = ObjectSpace.listen(SPIN_LONG.withGrant(2), at + "-b");
        ObjectSpace c = ObjectSpace.listen(SPIN_LONG, at + "-c");
        try {
            Fixtures.Cell cell = new Fixtures.Cell(0);
            b.bind("cell", cell);
            Object ref = a.base(b.addresses().getFirst()).named("cell");
            long aBefore = parks(a);
            long bBefore = parks(b);
            Object atC = null;
            int forwards = 40;
            // the owner answers a request only after ~2 ms (its grant waits for the owned table's lock, held here in
            // turns): a quiet holder's one look finds nothing and it parks; one that spins 60 s spins through it
            java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            Thread slow = Thread.ofPlatform().start(() -> {
                while (!stop.get()) {
                    synchronized (b.owned()) {
                        LockSupport.parkNanos(2_000_000);
                    }
                    LockSupport.parkNanos(20_000);
                }
            });
            try {
                for (int i = 0; i < forwards; i++) {
                    LockSupport.parkNanos(1_000_000); // (the owner's reader has gone to sleep by the next request)
                    // a grant of 2: every other forward finds 1 left and asks b for more first, over the grants connection
                    byte[] r = a.encode(ref, c.id());
                    atC = c.decode(MemorySegment.ofArray(r), Fixtures.Counter.class, a.id());
                }
            } finally {
                stop.set(true);
                slow.join();
            }
            assertEquals(b.outstanding(cell), ObjectSpace.weightHeld(ref) + ObjectSpace.weightHeld(atC),
                    "all weight is accounted for");
            assertTrue(b.outstanding(cell) >= 2 + forwards, "b granted about every other forward: " + b.outstanding(cell));
            long aParks = parks(a) - aBefore;
            long bParks = parks(b) - bBefore;
            int requests = forwards / 2;
            // a reader that spins 60 s parks only when a wait outlasts its deadline (a dispatcher's 10 s, a caller's 5 ms).
            // The owner's reader finds each request ≥ 1 ms after its last look, and the holder its answer ~2 ms after its
            // request: quiet ones park every time
            assertTrue(bParks >= requests / 2, "the owner parked " + bParks + " times for " + requests + " requests");
            assertTrue(aParks >= requests / 2, "the holder parked " + aParks + " times for " + requests + " requests");
        } finally {
            c.close();
            b.close();
            a.close();
        }
    }
}
