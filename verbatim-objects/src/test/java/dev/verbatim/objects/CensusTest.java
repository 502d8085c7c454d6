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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The census after a base dies (docs/objects.md §7), with bases in one process (a base closed is, to the
 * others, a base that died): it frees what only the dead base held, never what a live base holds, even
 * while live bases forward the object between them as the census runs; the census counts are the base's.
 * The waits are bounded by the test's timeout, never asserted as times.
 */
@Timeout(120)
class CensusTest {
    private final List<Base> bases = new ArrayList<>();

    private Base base() {
        Base b = Base.listen(BaseOptions.DEFAULT.withCensusDelay(Duration.ofMillis(100)), BasesInOneProcessTest.address("shm"));
        bases.add(b);
        return b;
    }

    @AfterEach
    void close() {
        bases.forEach(Base::close);
    }

    private static void await(BooleanSupplier done) throws InterruptedException {
        while (!done.getAsBoolean()) {
            Thread.sleep(10);
        }
    }

    private static Registry store(Base from, Base at, String name) {
        return from.lookup(at.addresses().getFirst(), name, Registry.class);
    }

    @Test
    void aCensusRacingWithForwardingBetweenLiveBasesNeverFreesALiveObject() throws Exception {
        Base a = base();
        Base b = base();
        Base c = base();
        Base d = base();
        Store localB = new Store();
        b.bind("store", localB);
        c.bind("store", new Store());
        d.bind("store", new Store());
        Store localC = new Store();
        c.bind("local", localC);
        Cell cell = new Cell(0);
        Cell onlyD = new Cell(0);
        store(a, d, "store").put(onlyD);
        store(a, d, "store").put(cell);
        store(a, d, "store").put(onlyD); // d held cell once and gave its weight back: it holds onlyD
        store(a, c, "local").put(cell);
        Counter atC = localC.stored; // c's proxy of a's cell
        Registry bFromC = store(c, b, "store"); // c's proxy of b's store: c and b pass the cell between them
        assertEquals(2, a.exportedObjects());

        AtomicBoolean stop = new AtomicBoolean();
        CompletableFuture<Integer> forwarding = CompletableFuture.supplyAsync(() -> {
            int n = 0;
            while (!stop.get()) {
                assertSame(atC, bFromC.via(atC, null, null), "b stores the cell and passes it back to c");
                n++;
            }
            return n;
        });
        d.close(); // to a, b and c: d died
        await(() -> a.censusesCompleted() >= 1 && a.exportedObjects() == 1);
        Thread.sleep(100);
        stop.set(true);
        assertTrue(forwarding.get(60, TimeUnit.SECONDS) > 0);

        assertEquals(1, a.freedByCensus(), "what only d held");
        assertEquals(0, a.outstandingWeight(onlyD));
        long held = Base.heldWeight(atC) + Base.heldWeight(localB.stored);
        assertTrue(a.outstandingWeight(cell) >= held, "the owner counts at least what the live bases hold: "
                + a.outstandingWeight(cell) + " < " + held);
        assertEquals(1, atC.add(1), "c calls the cell");
        assertEquals(2, bFromC.addToStored(1), "b calls it too");
        bFromC.drop();
        Base.release(atC);
        await(() -> a.exportedObjects() == 0); // (the census may have counted a reference on its way twice: a later one frees it)
        assertTrue(a.censusesCompleted() >= 1);
    }

    @Test
    void aBaseThatClosesIsADeathEvenWithNoConnectionToTheOwner() throws Exception {
        Base a = base();
        Base b = base();
        Base c = base();
        c.bind("store", new Store());
        b.bind("store", new Store());
        Cell cell = new Cell(0);
        Registry bFromA = store(a, b, "store");
        bFromA.put(cell);
        // b passes the cell to c; c never calls a: a does not know c holds it
        bFromA.via(cell, store(a, c, "store"), null);
        Registry cFromA = store(a, c, "store");
        bFromA.drop();
        c.close(); // a hears of it from its own connection to c; b from its own
        await(() -> a.exportedObjects() == 0);
        assertEquals(1, a.freedByCensus());
        assertTrue(a.censusesCompleted() >= 1);
        assertNotNull(cFromA);
    }
}
