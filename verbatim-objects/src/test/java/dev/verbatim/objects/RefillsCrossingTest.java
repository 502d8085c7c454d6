package dev.verbatim.objects;

import dev.verbatim.objects.Fixtures.Cell;
import dev.verbatim.objects.Fixtures.Counter;
import dev.verbatim.objects.Fixtures.Registry;
import dev.verbatim.objects.Fixtures.Store;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Refills crossing (docs/objects.md §3): a holder that ran out of weight while writing a result asks the
 * owner for more under that connection's send lock. Three bases each write, at the same moment, a result
 * that needs a refill from the next one, whose answer would go out over the very connection whose send lock
 * that next base holds while it waits for its own refill: a cycle, unless weight requests travel over a
 * connection of their own. Every call must succeed.
 */
@Timeout(120)
class RefillsCrossingTest {
    private final List<Base> bases = new ArrayList<>();

    /** A store whose {@code get} waits, once armed, until all three are returning. */
    public static final class Gate extends Store {
        static volatile CyclicBarrier barrier;

        @Override
        public Counter get() {
            CyclicBarrier b = barrier;
            if (b != null) {
                try {
                    b.await(30, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
            return stored;
        }
    }

    private Base base() {
        // a grant of 2: a hold is 2 on arrival, 1 after one forward, and must be refilled to be forwarded again
        Base b = Base.listen(BaseOptions.DEFAULT.withGrant(2).withTimeout(Duration.ofSeconds(60)),
                BasesInOneProcessTest.address("shm"));
        bases.add(b);
        return b;
    }

    @AfterEach
    void close() {
        Gate.barrier = null;
        bases.forEach(Base::close);
    }

    private static Registry gate(Base from, Base at) {
        return from.lookup(at.addresses().getFirst(), "gate", Registry.class);
    }

    @Test
    void threeResultsThatEachNeedARefillFromTheNextBaseAllGoThrough() throws Exception {
        Base p = base();
        Base q = base();
        Base r = base();
        Gate gp = new Gate();
        Gate gq = new Gate();
        Gate gr = new Gate();
        p.bind("gate", gp);
        q.bind("gate", gq);
        r.bind("gate", gr);
        // p's gate holds r's cell, q's holds p's, r's holds q's; each forwarded once, so each hold is 1
        gate(r, p).put(new Cell(1));
        gate(p, q).put(new Cell(2));
        gate(q, r).put(new Cell(3));
        Counter once1 = gate(q, p).get();
        Counter once2 = gate(r, q).get();
        Counter once3 = gate(p, r).get();
        assertEquals(1, Base.heldWeight(gp.stored));
        assertEquals(1, Base.heldWeight(gq.stored));
        assertEquals(1, Base.heldWeight(gr.stored));

        Registry pFromQ = gate(q, p);
        Registry qFromR = gate(r, q);
        Registry rFromP = gate(p, r);
        Gate.barrier = new CyclicBarrier(3);
        // p writes r's cell to q (refill from r); q writes p's cell to r (from p); r writes q's cell to p (from q)
        ExecutorService callers = Executors.newFixedThreadPool(3); // (the common pool may have one thread)
        CompletableFuture<Counter> one = CompletableFuture.supplyAsync(pFromQ::get, callers);
        CompletableFuture<Counter> two = CompletableFuture.supplyAsync(qFromR::get, callers);
        CompletableFuture<Counter> three = CompletableFuture.supplyAsync(rFromP::get, callers);
        callers.shutdown();
        assertSame(once1, one.get(100, TimeUnit.SECONDS), "q gets r's cell again: the same proxy");
        assertSame(once2, two.get(100, TimeUnit.SECONDS));
        assertSame(once3, three.get(100, TimeUnit.SECONDS));
        assertEquals(1, once1.value());
        assertEquals(2, once2.value());
        assertEquals(3, once3.value());
    }
}
