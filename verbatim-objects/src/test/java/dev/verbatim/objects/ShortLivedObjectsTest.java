package dev.verbatim.objects;

import dev.verbatim.objects.Fixtures.Cell;
import dev.verbatim.objects.Fixtures.Counter;
import dev.verbatim.objects.Fixtures.Registry;
import dev.verbatim.objects.Fixtures.Store;
import dev.verbatim.objects.internal.BaseService;
import dev.verbatim.rpc.Node;
import dev.verbatim.rpc.RemoteException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A base that handles many short-lived shared objects does not grow (docs/objects.md §7): what its ledger
 * keeps follows what it holds and owns now, and no weight goes where it could never be accounted for.
 */
@Timeout(600)
class ShortLivedObjectsTest {
    private final List<Base> bases = new ArrayList<>();

    private Base base() {
        Base b = Base.listen(BasesInOneProcessTest.address("shm"));
        bases.add(b);
        return b;
    }

    @AfterEach
    void close() {
        bases.forEach(Base::close);
    }

    @Test
    void aHundredThousandObjectsCreatedAndDroppedAcrossTwoBasesLeaveBothLedgersWhereTheyStarted() throws Exception {
        Base a = base();
        Base b = base();
        b.allow(Cell.class);
        b.bind("store", new Store());
        Registry store = a.lookup(b.addresses().getFirst(), "store", Registry.class);
        RemoteBase atB = a.base(b.addresses().getFirst());
        int aStart = a.ledgerAccounts();
        int bStart = b.ledgerAccounts();
        int threads = 4; // (calls are latency-bound: a loaded host runs four loops nearly as fast as one)
        List<Future<?>> loops = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            for (int t = 0; t < threads; t++) {
                loops.add(pool.submit(() -> {
                    for (int i = 0; i < 50_000 / threads; i++) {
                        Counter theirs = atB.create(Counter.class, Cell.class, i); // b's object, held by a
                        Base.release(theirs); // a drops it: its weight is home before this returns
                        assertEquals(i, store.glance(new Cell(i))); // a's object, held by b for a moment
                    }
                    return null;
                }));
            }
            for (Future<?> f : loops) {
                f.get();
            }
        }
        assertEquals(aStart, a.ledgerAccounts(), "a's ledger after holding 50,000 of b's objects and lending 50,000");
        assertEquals(bStart, b.ledgerAccounts(), "b's ledger likewise");
        assertEquals(0, a.exportedObjects());
        assertEquals(1, b.exportedObjects(), "the store a still holds");
        assertEquals(1, a.ledgerAccounts(), "a's account of the store");
    }

    @Test
    void aSharedObjectIsNotSentToAPeerThatNeverIntroducedItselfAsABase() {
        Base b = base();
        b.bind("cell", new Cell(1));
        try (Node plain = Node.create()) { // a plain RPC node: it cannot hold a reference, nor say hello
            BaseService s = plain.lookup(b.addresses().getFirst(), BaseService.NAME, BaseService.class);
            RemoteException e = assertThrows(RemoteException.class, () -> s.named("cell"));
            assertEquals(RemoteException.Reason.ARGUMENT, e.reason(), e.getMessage());
            assertTrue(e.getMessage().contains("never introduced itself"), e.getMessage());
        }
        assertEquals(0, b.exportedObjects(), "no weight was handed out that could never come back");
        assertEquals(0, b.ledgerAccounts());
    }
}
