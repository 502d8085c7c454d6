package dev.verbatim.objects;

import dev.verbatim.objects.ChildBases.Child;
import dev.verbatim.objects.Fixtures.Cell;
import dev.verbatim.objects.Fixtures.Counter;
import dev.verbatim.objects.Fixtures.Registry;
import dev.verbatim.objects.Fixtures.Store;
import dev.verbatim.rpc.RemoteException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The census after a holder dies (docs/objects.md §7), with the other bases JVMs of their own killed with -9:
 * the owner frees what only the dead base held, keeps what live bases hold (even what reached them by
 * forwarding from the dead base, which the owner never heard of), and a base that dies in the middle of a
 * call releases what it held. The waits are bounded by the test's timeout, never asserted as times.
 */
@Timeout(240)
class CensusInProcessesTest {
    @RegisterExtension
    static final ChildBases children = new ChildBases();
    private Base a;

    @AfterEach
    void stop() {
        if (a != null) {
            a.close();
        }
    }

    private Base here(String transport) {
        a = Base.listen(BaseOptions.DEFAULT.withTimeout(Duration.ofSeconds(100)).withCensusDelay(Duration.ofMillis(200)),
                ChildBases.address(transport));
        return a;
    }

    /** Waits (within the test's timeout) until {@code done}. */
    private static void await(BooleanSupplier done) throws InterruptedException {
        while (!done.getAsBoolean()) {
            Thread.sleep(20);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void anOwnerFreesWhatOnlyAKilledHolderHeldAndKeepsWhatLiveBasesHold(String transport) throws Exception {
        Base a = here(transport);
        Child b = children.start(ChildBases.address(transport));
        Child c = children.start(ChildBases.address(transport));
        Registry storeB = a.lookup(b.address(), "store", Registry.class);
        Registry store2B = a.lookup(b.address(), "store2", Registry.class);
        Registry storeC = a.lookup(c.address(), "store", Registry.class);
        Registry store2C = a.lookup(c.address(), "store2", Registry.class);
        Cell onlyB = new Cell(1);
        Cell onlyC = new Cell(2);
        Cell forwarded = new Cell(3);
        storeB.put(onlyB);
        storeC.put(onlyC);
        assertSame(forwarded, store2B.via(forwarded, store2C, null), "b passed it to c: a never heard from c about it");
        assertEquals(3, a.exportedObjects());

        ChildBases.kill(b);
        await(() -> a.exportedObjects() == 2);

        assertEquals(0, a.outstandingWeight(onlyB), "what only the dead base held is freed");
        assertEquals(1, a.freedByCensus());
        assertTrue(a.outstandingWeight(onlyC) > 0, "what a live base holds is kept");
        assertTrue(a.outstandingWeight(forwarded) > 0, "what a live base got from the dead one is kept");
        assertEquals(3, storeC.addToStored(1), "c still calls the object it was given");
        assertEquals(4, store2C.addToStored(1), "and the one the dead base forwarded to it");
        store2C.drop();
        storeC.drop();
        assertEquals(0, a.exportedObjects(), "the live holder's weight comes home as usual");
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aHolderKilledInTheMiddleOfACallReleasesWhatItHeld(String transport) throws Exception {
        Base a = here(transport);
        Child b = children.start(ChildBases.address(transport));
        Registry storeB = a.lookup(b.address(), "store", Registry.class);
        Blocker blocker = new Blocker();
        Cell cell = new Cell(1);
        CompletableFuture<Counter> call = CompletableFuture.supplyAsync(() -> storeB.via(cell, blocker, null));
        assertTrue(blocker.entered.await(60, TimeUnit.SECONDS), "b called back into a, holding the cell and the blocker");
        assertEquals(2, a.exportedObjects());

        ChildBases.kill(b);
        blocker.release.countDown(); // b's call runs on the thread waiting for b (a delegate): it returns to a dead base
        ExecutionException failed = assertThrows(ExecutionException.class, () -> call.get(60, TimeUnit.SECONDS));
        assertInstanceOf(RemoteException.class, failed.getCause());
        await(() -> a.exportedObjects() == 0);
        assertEquals(0, a.outstandingWeight(cell));
        assertEquals(0, a.outstandingWeight(blocker));
    }

    /** A registry whose {@code via} waits until the test lets it go. */
    public static final class Blocker extends Store {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public Counter via(Counter c, Registry next, Registry last) {
            entered.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return c;
        }
    }
}
