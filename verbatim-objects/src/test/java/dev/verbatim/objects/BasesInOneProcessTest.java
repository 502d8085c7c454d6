package dev.verbatim.objects;

import dev.verbatim.objects.Fixtures.Cell;
import dev.verbatim.objects.Fixtures.Cells;
import dev.verbatim.objects.Fixtures.Counter;
import dev.verbatim.objects.Fixtures.Doubler;
import dev.verbatim.objects.Fixtures.Guard;
import dev.verbatim.objects.Fixtures.Hop;
import dev.verbatim.objects.Fixtures.NestedTaker;
import dev.verbatim.objects.Fixtures.Registry;
import dev.verbatim.objects.Fixtures.Secret;
import dev.verbatim.objects.Fixtures.Store;
import dev.verbatim.rpc.RemoteException;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.*;

/** The object layer's logic, with every base in this process (each its own node, over real connections). */
@Timeout(60)
class BasesInOneProcessTest {
    private static final AtomicInteger N = new AtomicInteger();
    private final List<Base> bases = new ArrayList<>();

    static String address(String transport) {
        return transport.equals("shm") ? "shm:objs-" + ProcessHandle.current().pid() + "-" + N.incrementAndGet() : "tcp://127.0.0.1:0";
    }

    private Base base(String transport) {
        return base(BaseOptions.DEFAULT, transport);
    }

    private Base base(BaseOptions options, String transport) {
        Base b = Base.listen(options, address(transport));
        bases.add(b);
        return b;
    }

    @AfterEach
    void close() {
        bases.forEach(Base::close);
    }

    /**
     * A proxy is its base's: another base of the same process cannot pass it (its weight is the holding base's), and says
     * so, however often the holding base itself passed it (the holding base reads the hold behind the proxy it passed
     * last without looking its handler up: the other base must not).
     */
    @Test
    void aProxyHeldByOneBaseOfAProcessCannotBePassedByAnother() {
        Base a = base("shm");
        Base b = base("shm");
        Base c = base("shm");
        b.bind("cell", new Cell(1));
        c.bind("store", new Store());
        Counter cell = a.lookup(b.addresses().getFirst(), "cell", Counter.class);
        Registry viaA = a.lookup(c.addresses().getFirst(), "store", Registry.class);
        viaA.put(cell);
        viaA.put(cell); // (a passes it on as the proxy it passed last)
        Registry viaB = b.lookup(c.addresses().getFirst(), "store", Registry.class);
        dev.verbatim.rpc.RemoteException e = assertThrows(dev.verbatim.rpc.RemoteException.class, () -> viaB.put(cell));
        assertEquals(dev.verbatim.rpc.RemoteException.Reason.ARGUMENT, e.reason());
        assertTrue(e.getMessage().contains("held by another base of this process"), e.getMessage());
        assertEquals(1, cell.value(), "a's proxy keeps working");
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aReferenceThatComesHomeIsTheOriginalObjectAndTwoReferencesAreOneProxy(String transport) {
        Base a = base(transport);
        Base b = base(transport);
        Store storeAtB = new Store();
        b.bind("store", storeAtB);
        Registry store = a.lookup(b.addresses().getFirst(), "store", Registry.class);
        assertTrue(Base.isRemote(store));
        assertEquals(b.id(), a.home(store));

        Cell cell = new Cell(1);
        store.put(cell);
        assertTrue(Base.isRemote(storeAtB.stored), "b holds a proxy of a's cell");
        assertSame(cell, store.get(), "the cell coming home is the original");
        assertSame(store, a.lookup(b.addresses().getFirst(), "store", Registry.class), "one proxy per object per base");
        assertEquals(store, a.lookup(b.addresses().getFirst(), "store", Registry.class));
        assertEquals(System.identityHashCode(store), store.hashCode());
        store.put(cell);
        assertSame(storeAtB.stored, storeAtB.get(), "b's second reference to the cell is the same proxy");
        assertEquals(8, store.addToStored(7), "b calls a's cell");
        assertEquals(8, cell.value());
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void identityHoldsAfterForwardingAToBToCToA(String transport) {
        Base a = base(transport);
        Base b = base(transport);
        Base c = base(transport);
        Store atA = new Store();
        Store atB = new Store();
        Store atC = new Store();
        a.bind("store", atA);
        b.bind("store", atB);
        c.bind("store", atC);
        Registry storeB = a.lookup(b.addresses().getFirst(), "store", Registry.class);
        Registry storeC = a.lookup(c.addresses().getFirst(), "store", Registry.class);
        Cell cell = new Cell(3);

        Counter back = storeB.via(cell, storeC, atA); // a -> b -> c -> a, and back
        assertSame(cell, back);
        assertSame(cell, atA.stored, "the cell that went round arrives at a as the original");
        assertTrue(Base.isRemote(atB.stored) && Base.isRemote(atC.stored));
        Counter fromC = atC.stored;
        storeC.put(cell); // a second way to c: the same proxy there
        assertSame(fromC, atC.stored);
        assertEquals(4, storeC.addToStored(1));
        assertEquals(4, cell.value());
    }

    @Test
    void forwardingAReferenceSendsNothingToItsOwnerUntilItIsCalled() {
        Base a = base("shm");
        Base b = base("shm");
        Base c = base("shm");
        b.bind("cell", new Cell(10));
        Store atC = new Store();
        c.bind("store", atC);
        Counter cell = a.lookup(b.addresses().getFirst(), "cell", Counter.class);
        Registry storeC = a.lookup(c.addresses().getFirst(), "store", Registry.class);
        assertEquals(10, cell.value());

        long before = b.messagesReceived();
        storeC.put(cell); // a passes b's object to c
        assertTrue(atC.storedIsRemote());
        assertEquals(before, b.messagesReceived(), "b received nothing when a forwarded its object to c");
        assertEquals(12, storeC.addToStored(2), "c calls b's object, connecting to b");
        assertTrue(b.messagesReceived() > before, "c's call reached b");
    }

    @Test
    void remoteConstructionMakesAllowedClassesOnlyAndTakesReferencesAsArguments() {
        Base a = base("shm");
        Base b = base("shm");
        b.allow(Cell.class, Doubler.class, Cells.class);
        RemoteBase atB = a.base(b.addresses().getFirst());
        assertEquals(b.id(), atB.id());

        Counter made = atB.create(Counter.class, Cell.class, 5);
        assertTrue(Base.isRemote(made));
        assertEquals(b.id(), a.home(made));
        assertEquals(6, made.add(1));
        assertEquals(1, b.exportedObjects());

        Cell local = new Cell(0);
        Counter doubler = atB.create(Counter.class, Doubler.class, local); // b holds a's cell
        assertEquals(6, doubler.add(3), "b's doubler calls a's cell");
        assertEquals(6, local.value());

        assertEquals(14, atB.call(Cells.class, "twice", 7));
        Counter fromStatic = (Counter) atB.call(Cells.class, "make", 9);
        assertTrue(Base.isRemote(fromStatic));
        assertEquals(10, fromStatic.add(1));

        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> atB.create(Counter.class, Secret.class));
        assertTrue(refused.getMessage().contains("not allowed"), refused.getMessage());
        assertFalse(Secret.constructed, "a class that is not allowed is never constructed");
    }

    @Test
    void cloneOnCopiesTheStateToTheChosenBase() {
        Base a = base("shm");
        Base b = base("shm");
        Base c = base("shm");
        a.allow(Cell.class);
        b.allow(Cell.class);
        c.allow(Cell.class);
        RemoteBase atB = a.base(b.addresses().getFirst());
        RemoteBase atC = a.base(c.addresses().getFirst());
        Cell cell = new Cell(7);
        Counter copy = a.cloneOn(cell, atB);
        assertEquals(b.id(), a.home(copy));
        assertEquals(7, copy.value());
        assertEquals(8, copy.add(1));
        assertEquals(7, cell.value(), "the original is untouched");

        Counter copyOfCopy = a.cloneOn(copy, atC); // b copies its object to c
        assertEquals(c.id(), a.home(copyOfCopy));
        assertEquals(8, copyOfCopy.value());
        Counter here = a.cloneHere(copy);
        assertFalse(Base.isRemote(here));
        assertEquals(8, here.value());

        Base d = base("shm"); // allows nothing
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> a.cloneOn(cell, a.base(d.addresses().getFirst())));
        assertTrue(refused.getMessage().contains("not allowed"), refused.getMessage());
    }

    /**
     * A copy made on the base itself of an object whose field holds one of that base's own objects holds the original,
     * and its weight comes back: a reference a base sends itself needs no addresses (review of the SENDER form, whose
     * first version refused it as from a base whose addresses were unknown, and leaked the field's weight).
     */
    @Test
    void aCopyMadeOnItsOwnBaseOfAnObjectHoldingThatBasesObjectHoldsTheOriginal() {
        Base a = base("shm");
        Base b = base("shm");
        Cell cell = new Cell(5);
        Counter here = a.cloneHere(new Fixtures.Pointer(cell));
        assertFalse(Base.isRemote(here));
        assertEquals(7, here.add(1), "the copy adds 2n into the original cell");
        assertEquals(7, cell.value());
        assertEquals(0, a.outstandingWeight(cell), "no weight left out for the field");

        b.allow(Fixtures.Pointer.class);
        b.bind("p", new Fixtures.Pointer(new Cell(1)));
        Counter p = a.lookup(b.addresses().getFirst(), "p", Counter.class);
        Counter copy = a.cloneOn(p, a.base(b.addresses().getFirst())); // b copies its own object onto itself
        assertEquals(b.id(), a.home(copy));
        assertEquals(3, copy.add(1));
        assertEquals(3, p.value(), "the copy and the original share b's cell");
    }

    /**
     * A copy made by cloneOn of an object whose fields hold shared objects holds them by reference, with
     * weight, identity kept: the copy on b calls a's own cell (not a copy of it), and a copy of that copy made
     * back on a holds the original cell. It used to be refused ("may hold shared objects").
     */
    @Test
    void cloneOnCopiesAnObjectWhoseFieldsHoldSharedObjectsAsReferences() {
        Base a = base("shm");
        Base b = base("shm");
        a.allow(Fixtures.Pointer.class);
        b.allow(Fixtures.Pointer.class);
        RemoteBase atB = a.base(b.addresses().getFirst());
        Cell cell = new Cell(5);
        Counter copy = a.cloneOn(new Fixtures.Pointer(cell), atB);
        assertEquals(b.id(), a.home(copy));
        assertEquals(5, copy.value());
        assertEquals(7, copy.add(1), "b's copy adds to a's cell itself");
        assertEquals(7, cell.value());
        assertTrue(b.outstandingWeight(cell) == 0 && a.outstandingWeight(cell) > 0, "b holds a's cell by reference");

        Counter back = a.cloneHere(copy); // b copies its copy to a
        assertEquals(a.id(), a.home(back));
        assertFalse(Base.isRemote(back));
        assertEquals(9, back.add(1), "the copy that came home holds the original cell");
        assertEquals(9, cell.value());
    }

    @Test
    void weightsSplitWithoutMessagesDownToExhaustionThenTheOwnerGrantsMoreAndTakesAllBack() {
        Base a = base("shm");
        Base b = base(BaseOptions.DEFAULT.withGrant(4), "shm");
        Base c = base("shm");
        Cell cell = new Cell(0);
        b.bind("cell", cell);
        Store atC = new Store();
        c.bind("store", atC);
        Counter ref = a.lookup(b.addresses().getFirst(), "cell", Counter.class);
        Registry storeC = a.lookup(c.addresses().getFirst(), "store", Registry.class);
        assertEquals(4, Base.heldWeight(ref));
        assertEquals(4, b.outstandingWeight(cell));

        storeC.put(ref);
        assertEquals(2, Base.heldWeight(ref));
        assertEquals(2, atC.storedWeight());
        storeC.put(ref);
        assertEquals(1, Base.heldWeight(ref));
        assertEquals(3, atC.storedWeight(), "c's one proxy adds what arrives");
        assertEquals(4, b.outstandingWeight(cell), "splitting sent b nothing");

        storeC.put(ref); // a has 1 left: b grants 4 more first
        assertEquals(8, b.outstandingWeight(cell));
        assertEquals(3, Base.heldWeight(ref));
        assertEquals(5, atC.storedWeight());
        assertEquals(b.outstandingWeight(cell), Base.heldWeight(ref) + atC.storedWeight(), "all weight is accounted for");

        atC.drop();
        assertEquals(3, b.outstandingWeight(cell));
        assertEquals(1, b.exportedObjects());
        Base.release(ref);
        assertEquals(0, b.outstandingWeight(cell));
        assertEquals(0, b.exportedObjects(), "the owner forgets the object once all weight is back");
        RemoteException released = assertThrows(RemoteException.class, ref::value);
        assertEquals(RemoteException.Reason.NOT_FOUND, released.reason());
    }

    /** Three shm bases: b owns {@code cell}; a holds it ({@code ref}) and c's store ({@code storeC}, {@code atC} at c). */
    private record Forwarding(Base b, Cell cell, Store atC, Counter ref, Registry storeC) {}

    private Forwarding forwarding() {
        return forwarding(BaseOptions.DEFAULT);
    }

    /** {@link #forwarding()} with b (the owner) made with {@code owner}. */
    private Forwarding forwarding(BaseOptions owner) {
        Base a = base("shm");
        Base b = base(owner, "shm");
        Base c = base("shm");
        Cell cell = new Cell(0);
        b.bind("cell", cell);
        Store atC = new Store();
        c.bind("store", atC);
        return new Forwarding(b, cell, atC, a.lookup(b.addresses().getFirst(), "cell", Counter.class),
                a.lookup(c.addresses().getFirst(), "store", Registry.class));
    }

    /**
     * A holder that forwards a reference on and on asks the owner for more weight before it runs out, on a
     * thread of its own, so that no forward waits for the owner: once a split leaves less than {@code Held.LOW_WATER}
     * (2^38: 16,384 forwards of {@code Held.FORWARD_MAX}, 2^24, then 24 halvings, before it would have to wait). Here
     * the owner grants 2^39: 16,384 forwards leave 2^38, the next one asks. It used to ask only when a forward found 1 left,
     * and that forward waited for the grant (a round trip to the owner, whose connection for grants is mostly idle).
     */
    @Test
    void aHolderWhoseWeightRunsLowAsksTheOwnerForMoreBeforeItRunsOut() throws InterruptedException {
        Forwarding f = forwarding(BaseOptions.DEFAULT.withGrant(1L << 39));
        Base b = f.b();
        Cell cell = f.cell();
        Store atC = f.atC();
        Counter ref = f.ref();
        Registry storeC = f.storeC();
        long grant = Base.heldWeight(ref);
        assertEquals(1L << 39, grant);
        for (int i = 0; i < 16_384; i++) {
            storeC.put(ref);
        }
        assertEquals(1L << 38, Base.heldWeight(ref));
        assertEquals(grant, b.outstandingWeight(cell), "16,384 forwards: nothing asked of b");

        storeC.put(ref); // 2^38 - 2^24 left: b is asked for more now, while 16,383 more of 2^24 are possible without it
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        // (b counts the grant as it answers; a adds it once the answer is read: wait for both)
        while ((b.outstandingWeight(cell) == grant || Base.heldWeight(ref) < grant) && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertEquals(2 * grant, b.outstandingWeight(cell), "b granted more before a ran out");
        assertEquals((1L << 38) - (1L << 24) + grant, Base.heldWeight(ref), "a holds the grant");
        assertEquals(b.outstandingWeight(cell), Base.heldWeight(ref) + atC.storedWeight(), "all weight is accounted for");
    }

    /**
     * Every reference an owner sends carries a fresh grant (2^40), and a holder adds each to its one proxy: a
     * holder that receives one object again and again (a getter called in a loop) would hold 2^23 grants after
     * ~8 million calls, where the owner's count of weight outstanding (at most 2^63 - 1) is full and every
     * further send of the object fails (ARGUMENT). A hold above 2^47 sends all but 2^46 home instead
     * ({@code Held.HIGH_WATER}), so what a holder holds, and what the owner counts, stays bounded.
     */
    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aHolderThatReceivesOneObjectAgainAndAgainSendsTheExcessWeightHomeSoTheOwnersCountStaysBounded(String transport)
            throws InterruptedException {
        Base a = base(transport);
        Base b = base(transport);
        Cell cell = new Cell(0);
        Store atB = new Store();
        atB.put(cell);
        b.bind("store", atB);
        Registry store = a.lookup(b.addresses().getFirst(), "store", Registry.class);
        Counter first = store.get();
        for (int i = 0; i < 1_000; i++) { // 1,000 grants of 2^40: 2^49.97 if none went home
            assertSame(first, store.get(), "one proxy");
        }
        assertTrue(Base.heldWeight(first) <= 1L << 47, "a holds " + Base.heldWeight(first));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (b.outstandingWeight(cell) != Base.heldWeight(first) && System.nanoTime() < deadline) {
            Thread.sleep(1); // (the excess goes home in a message of its own)
        }
        assertEquals(Base.heldWeight(first), b.outstandingWeight(cell), "all weight is accounted for");
        assertTrue(b.outstandingWeight(cell) <= 1L << 47, "b counts " + b.outstandingWeight(cell));
        assertEquals(1, first.add(1), "the proxy still works");
        Base.release(first);
        assertEquals(0, b.outstandingWeight(cell), "all of it came home");
    }

    /**
     * A forward gives at most 2^24 of a hold ({@code Held.FORWARD_MAX}), not half of it: a hold of the default grant
     * (2^40) then lasts some 65,000 forwards before it asks its owner for more, where halving asked every 24 and a cap
     * of 2^32 every 271 (a round trip to the owner over a connection idle in between, and a thread started to make it;
     * a forwarder that outran it waited on the call's path). Counted through the owner's weight outstanding, which each
     * grant raises: 1,000 forwards ask nothing.
     */
    @Test
    void aHolderForwardingOneReferenceAThousandTimesAsksItsOwnerForNoWeight() throws InterruptedException {
        Forwarding f = forwarding();
        long grant = Base.heldWeight(f.ref());
        for (int i = 0; i < 1_000; i++) {
            f.storeC().put(f.ref());
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        // (a refill asked ahead may be on its way: b counts it as it answers, a adds it once the answer is read)
        long held = 0;
        while (f.b().outstandingWeight(f.cell()) != (held = Base.heldWeight(f.ref()) + f.storeC().storedWeight())
                && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertEquals(f.b().outstandingWeight(f.cell()), held, "all weight is accounted for");
        assertEquals(grant, f.b().outstandingWeight(f.cell()), "no grant asked for 1,000 forwards");
        assertEquals(grant - 1_000 * (1L << 24), Base.heldWeight(f.ref()), "each forward took 2^24");
    }

    @Test
    void aHolderThatReturnsAnExhaustedReferenceAsAResultGetsMoreWeightFromTheOwnerFirst() {
        Base a = base("shm");
        Base b = base("shm");
        Base c = base(BaseOptions.DEFAULT.withGrant(2), "shm");
        Cell cell = new Cell(0);
        c.bind("cell", cell);
        Store atB = new Store();
        b.bind("store", atB);
        Counter ref = a.lookup(c.addresses().getFirst(), "cell", Counter.class);
        Registry storeB = a.lookup(b.addresses().getFirst(), "store", Registry.class);
        storeB.put(ref); // a: 2 -> 1 kept, 1 to b
        assertEquals(1, atB.storedWeight());

        assertSame(ref, storeB.get(), "b's reply carries c's object back to a's one proxy");
        assertEquals(4, c.outstandingWeight(cell), "b asked c for a grant while it wrote its reply");
        assertEquals(2, atB.storedWeight());
        assertEquals(2, Base.heldWeight(ref));
        assertEquals(1, ref.add(1));
    }

    @Test
    void aReferenceInAReplyNobodyWaitsForAnyMoreStillGoesHome() throws InterruptedException {
        Base a = base(BaseOptions.DEFAULT.withTimeout(java.time.Duration.ofSeconds(2)), "shm");
        Base b = base(BaseOptions.DEFAULT.withVirtualThreads(true), "shm");
        b.bind("slow", new SlowMaker());
        Fixtures.Maker slow = a.lookup(b.addresses().getFirst(), "slow", Fixtures.Maker.class);
        RemoteException late = assertThrows(RemoteException.class, () -> slow.make(3000));
        assertEquals(RemoteException.Reason.TIMEOUT, late.reason());
        for (int i = 0; i < 500 && (b.exportedObjects() < 2 || SlowMaker.replied < 1); i++) {
            Thread.sleep(10); // b replies with a new object after a's caller gave up
        }
        assertEquals(7, slow.ping(7), "the next call reads the late reply first, and drops it");
        for (int i = 0; i < 500 && b.exportedObjects() > 1; i++) {
            System.gc();
            Thread.sleep(20);
        }
        assertEquals(1, b.exportedObjects(), "only the maker a looked up stays: the late reply's object came back");
    }

    /** Makes a cell after a while. */
    public static class SlowMaker implements Fixtures.Maker {
        static volatile int replied;

        public SlowMaker() {}

        @Override
        public Counter make(int millis) {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            replied++;
            return new Cell(millis);
        }

        @Override
        public int ping(int x) {
            return x;
        }
    }

    @Test
    void theOwnersTableEmptiesWhenHoldersDropTheirProxies() throws InterruptedException {
        Base a = base("shm");
        Base b = base("shm");
        b.allow(Cell.class);
        RemoteBase atB = a.base(b.addresses().getFirst());
        for (int i = 0; i < 20; i++) {
            assertEquals(i + 1, atB.create(Counter.class, Cell.class, i).add(1));
        }
        assertEquals(20, b.exportedObjects());
        for (int i = 0; i < 500 && b.exportedObjects() > 0; i++) {
            System.gc();
            Thread.sleep(20);
        }
        assertEquals(0, b.exportedObjects(), "every proxy became unreachable, and its weight came home");
    }

    @Test
    void aSynchronizedChainAToBToCToAReentersTheWaitingThreadsMonitor() {
        BaseOptions quick = BaseOptions.DEFAULT.withTimeout(java.time.Duration.ofSeconds(5)); // a deadlock fails fast
        Base a = base(quick, "shm");
        Base b = base(quick, "shm");
        Base c = base(quick, "shm");
        Guard ga = new Guard();
        Guard gb = new Guard();
        Guard gc = new Guard();
        b.bind("guard", gb);
        c.bind("guard", gc);
        Hop hb = a.lookup(b.addresses().getFirst(), "guard", Hop.class);
        Hop hc = a.lookup(c.addresses().getFirst(), "guard", Hop.class);
        int hops;
        synchronized (ga) { // a -> b -> c -> a: ga, held by this thread, is entered again from c
            hops = hb.hop(hc, ga);
        }
        assertEquals(3, hops, "every hop ran");
        assertEquals(List.of(Thread.currentThread()), ga.threads,
                "the chain came back to a on the thread that holds ga's monitor");
        assertEquals(1, gb.threads.size());
        assertEquals(1, gc.threads.size());
    }

    @Test
    void aChainAToBToAOverTwoConnectionsRunsOnTheWaitingThread() {
        BaseOptions quick = BaseOptions.DEFAULT.withTimeout(java.time.Duration.ofSeconds(5)); // a deadlock fails fast
        Base a = base(quick, "tcp");
        Base b = base(quick, "tcp");
        Guard ga = new Guard();
        Guard gb = new Guard();
        b.bind("guard", gb);
        Hop hb = a.lookup(b.addresses().getFirst(), "guard", Hop.class);
        assertEquals(3, ga.hop(hb, ga)); // a holds ga, b calls back into ga over b's own connection to a
        assertEquals(List.of(Thread.currentThread(), Thread.currentThread()), ga.threads);
    }

    @Test
    void aValueByCopyHoldingASharedObjectCrossesWithItAsAReference() {
        Base a = base("shm");
        Base b = base("shm");
        NestedTaker taker = new NestedTaker();
        b.bind("nested", taker); // once refused: Holder.counter held a shared object
        Fixtures.Nested nested = a.lookup(b.addresses().getFirst(), "nested", Fixtures.Nested.class);
        Cell cell = new Cell(3);
        nested.take(new Fixtures.Holder(cell));
        assertTrue(Base.isRemote(taker.last.counter()));
        assertEquals(4, taker.last.counter().add(1));
        assertEquals(4, cell.value());
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aConstructionArgumentHoldingASharedObjectCrossesWithItAsAReference(String transport) {
        Base a = base(transport);
        Base b = base(transport);
        b.allow(Fixtures.HolderBox.class);
        RemoteBase atB = a.base(b.addresses().getFirst());
        Cell cell = new Cell(1);
        Counter box = atB.create(Counter.class, Fixtures.HolderBox.class, new Fixtures.Holder(cell)); // b holds a's cell inside
        assertEquals(b.id(), a.home(box));
        assertEquals(5, box.add(2), "b's box adds twice the amount to a's cell through the reference it was built with");
        assertEquals(5, cell.value());
        assertEquals(1, a.exportedObjects(), "b holds a's cell");
    }
}
