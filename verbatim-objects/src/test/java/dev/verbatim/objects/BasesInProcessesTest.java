package dev.verbatim.objects;

import dev.verbatim.objects.ChildBases.Child;
import dev.verbatim.objects.Fixtures.Cell;
import dev.verbatim.objects.Fixtures.Counter;
import dev.verbatim.objects.Fixtures.Guard;
import dev.verbatim.objects.Fixtures.Hop;
import dev.verbatim.objects.Fixtures.Registry;
import dev.verbatim.objects.Fixtures.Store;
import dev.verbatim.rpc.RemoteException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** What crosses processes: each other base is a JVM of its own (ObjectsPeer), killed with -9 where the test says. */
@Timeout(180)
class BasesInProcessesTest {
    @RegisterExtension
    static final ChildBases children = new ChildBases();
    private Base a;

    @AfterEach
    void stop() {
        if (a != null) {
            a.close();
        }
    }

    static String address(String transport) {
        return ChildBases.address(transport);
    }

    private Base here(String transport) {
        // a long call timeout: a call to a dead base must fail at once, not when this runs out
        a = Base.listen(BaseOptions.DEFAULT.withTimeout(Duration.ofSeconds(80)), address(transport));
        return a;
    }

    private Child child(String address) throws Exception {
        return children.start(address);
    }

    private static void kill(Child c) throws InterruptedException {
        ChildBases.kill(c);
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void identityHoldsAfterForwardingAToBToCToAAcrossProcesses(String transport) throws Exception {
        Base a = here(transport);
        Child b = child(address(transport));
        Child c = child(address(transport));
        Store atA = new Store();
        Registry storeB = a.lookup(b.address(), "store", Registry.class);
        Registry storeC = a.lookup(c.address(), "store", Registry.class);
        Cell cell = new Cell(1);

        assertSame(cell, storeB.via(cell, storeC, atA), "the cell comes back as itself");
        assertSame(cell, atA.stored, "it arrived at a, from c, as the original");
        assertSame(storeC.get(), storeC.get(), "c's reference to a's cell comes back as the original, twice");
        assertEquals(3, storeC.addToStored(2), "c calls a's cell, connecting to a");
        assertEquals(3, cell.value());
        assertEquals(b.id(), a.home(storeB));
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void sharedObjectsInsideARecordCrossThreeProcessesWithIdentityKept(String transport) throws Exception {
        Base a = here(transport);
        Child b = child(address(transport));
        Child c = child(address(transport));
        Fixtures.Desk deskB = a.lookup(b.address(), "desk", Fixtures.Desk.class);
        Fixtures.Desk deskC = a.lookup(c.address(), "desk", Fixtures.Desk.class);
        Counter fromC = a.base(c.address()).create(Counter.class, Cell.class, 5);
        Cell cell = new Cell(1);

        deskB.place(new Fixtures.Order("o", fromC, fromC)); // a forwards c's object to b inside a record
        assertEquals("same remote", deskB.describeStored(), "one object twice: one proxy at b");
        assertEquals(7, deskB.addToCustomer(2), "b calls c's object, connecting to c");
        assertEquals(7, fromC.value());
        Fixtures.Order back = deskB.relay(new Fixtures.Order("r", fromC, cell), deskC); // a -> b -> c -> b -> a
        assertEquals("different local", deskC.describeStored(), "at c, its own object came home as the original");
        assertSame(fromC, back.customer(), "a's one proxy of c's object");
        assertSame(cell, back.again(), "a's cell, home through two other processes, is the original");
        Fixtures.Order mine = deskB.mine();
        assertSame(mine.customer(), deskB.mine().customer(), "b's object in two results: one proxy");
        assertEquals(b.id(), a.home(mine.customer()));
    }

    @Test
    void forwardingAReferenceSendsNothingToItsOwnerProcess() throws Exception {
        Base a = here("shm");
        Child b = child(address("shm"));
        Child c = child(address("shm"));
        RemoteBase atB = a.base(b.address());
        Counter cell = atB.create(Counter.class, Cell.class, 5);
        Registry storeC = a.lookup(c.address(), "store", Registry.class);

        long before = (Long) atB.call(ObjectsPeer.class, "received");
        storeC.put(cell); // a passes b's object to c
        long after = (Long) atB.call(ObjectsPeer.class, "received");
        assertEquals(before + 1, after, "b received only the second probe, nothing for the forwarding");
        assertEquals(7, storeC.addToStored(2), "c then calls b's object");
        assertTrue((Long) atB.call(ObjectsPeer.class, "received") > after + 1, "that call reached b");
    }

    @Test
    void cloneOnIntoAProcessThatNeverSawTheClassMakesTheCopyThere() throws Exception {
        Base a = here("shm");
        Child b = child(address("shm")); // allows Cell, but no value of it ever reached b's JVM
        Child c = child(address("shm"));
        RemoteBase atB = a.base(b.address());
        Counter copy = a.cloneOn(new Cell(7), atB);
        assertEquals(b.id(), a.home(copy), "the copy lives on b");
        assertEquals(9, copy.add(2));
        Counter onC = a.cloneOn(copy, a.base(c.address())); // b copies its object to c, which never saw a Cell either
        assertEquals(c.id(), a.home(onC));
        assertEquals(9, onC.value());
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aSynchronizedChainAToBToCToAAcrossProcessesReentersTheWaitingThread(String transport) throws Exception {
        Base a = here(transport);
        Child b = child(address(transport));
        Child c = child(address(transport));
        Guard ga = new Guard();
        Hop hb = a.lookup(b.address(), "guard", Hop.class);
        Hop hc = a.lookup(c.address(), "guard", Hop.class);
        int hops;
        synchronized (ga) {
            hops = hb.hop(hc, ga);
        }
        assertEquals(3, hops);
        assertEquals(List.of(Thread.currentThread()), ga.threads, "c's call into ga ran on the thread holding it");
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void callsToAnOwnerKilledWithSigkillFailWithGoneAtOnce(String transport) throws Exception {
        Base a = here(transport);
        Child b = child(address(transport));
        Counter cell = a.base(b.address()).create(Counter.class, Cell.class, 1);
        assertEquals(2, cell.add(1));
        kill(b);
        RemoteException first = assertThrows(RemoteException.class, () -> cell.add(1));
        assertEquals(RemoteException.Reason.GONE, first.reason(), first.getMessage());
        RemoteException then = assertThrows(RemoteException.class, cell::value);
        assertEquals(RemoteException.Reason.GONE, then.reason(), then.getMessage());
    }

    @Test
    void aBaseRestartedAtTheSameAddressIsAnotherBaseAndOldReferencesFailWithGone() throws Exception {
        Base a = here("shm");
        String address = address("shm");
        Child b = child(address);
        Counter old = a.base(b.address()).create(Counter.class, Cell.class, 1);
        assertEquals(1, old.value());
        kill(b);
        Child b2 = child(address);
        assertNotEquals(b.id(), b2.id(), "a new incarnation");
        RemoteException gone = assertThrows(RemoteException.class, old::value);
        assertEquals(RemoteException.Reason.GONE, gone.reason(), gone.getMessage());
        Counter fresh = a.base(address).create(Counter.class, Cell.class, 7);
        assertEquals(7, fresh.value(), "the new base works");
        assertEquals(b2.id(), a.home(fresh));
        RemoteException still = assertThrows(RemoteException.class, old::value);
        // the old base was seen to die (its connections closed, nothing answered) before the new one started
        assertTrue(still.getMessage().contains("another base") || still.getMessage().contains("it died"), still.getMessage());
    }
}
