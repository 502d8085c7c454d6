package dev.verbatim.objects;

import dev.verbatim.objects.Fixtures.Cell;
import dev.verbatim.objects.Fixtures.Counter;
import dev.verbatim.objects.Fixtures.Desk;
import dev.verbatim.objects.Fixtures.DeskImpl;
import dev.verbatim.objects.Fixtures.Order;
import dev.verbatim.objects.Fixtures.Team;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Shared objects inside values passed by copy (issue 15 §1, docs/objects.md §1): a record component, a list, array or
 * map value holding a shared object crosses as a reference, with identity kept and weight accounted for.
 */
@Timeout(60)
class NestedReferencesTest {
    private final List<Base> bases = new ArrayList<>();

    private Base base(String transport) {
        Base b = Base.listen(BasesInOneProcessTest.address(transport));
        bases.add(b);
        return b;
    }

    @AfterEach
    void close() {
        bases.forEach(Base::close);
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aRecordWithASharedComponentCrossesAsAReferenceAsArgumentAndResult(String transport) {
        Base a = base(transport);
        Base b = base(transport);
        DeskImpl atB = new DeskImpl();
        b.bind("desk", atB);
        Desk desk = a.lookup(b.addresses().getFirst(), "desk", Desk.class);
        Cell cell = new Cell(1);

        desk.place(new Order("o1", cell, cell));
        assertEquals("same remote", desk.describeStored(), "one object twice in a value: one proxy at b");
        assertEquals(5, desk.addToCustomer(4), "b calls a's cell through the component");
        assertEquals(5, cell.value());
        Order back = desk.order();
        assertSame(cell, back.customer(), "coming home, the component is the original");
        assertSame(cell, back.again());
        Order echoed = desk.echo(new Order("o2", cell, null));
        assertSame(cell, echoed.customer());
        assertNull(echoed.again());

        Order mine = desk.mine(); // b's own object in a result
        assertTrue(Base.isRemote(mine.customer()));
        assertSame(mine.customer(), mine.again());
        assertSame(mine.customer(), desk.mine().customer(), "one proxy per object per base, across results");
        assertEquals(101, mine.customer().add(1));
        assertEquals(b.id(), a.home(mine.customer()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aViewsAccessorOfASharedFieldReturnsTheProxy(String transport) {
        Base a = base(transport);
        Base b = base(transport);
        b.bind("desk", new DeskImpl());
        Desk desk = a.lookup(b.addresses().getFirst(), "desk", Desk.class);
        Cell cell = new Cell(1);
        assertEquals("same 3 v1", desk.viewCustomer(new Order("v1", cell, cell), 2), "the record passed where a view is declared");
        assertEquals(3, cell.value());
        // a view of b's own object, read at b: the original (coming home); a's view of b's object: a proxy
        Order mine = desk.mine();
        assertEquals("same 102 v2", desk.viewCustomer(new Order("v2", mine.customer(), mine.customer()), 2));
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void listsArraysAndMapValuesOfSharedObjectsInsideARecord(String transport) {
        Base a = base(transport);
        Base b = base(transport);
        b.bind("desk", new DeskImpl());
        Desk desk = a.lookup(b.addresses().getFirst(), "desk", Desk.class);
        Cell x = new Cell(1), y = new Cell(2);
        Map<String, Counter> byName = new LinkedHashMap<>();
        byName.put("a", x);
        byName.put("b", y);
        byName.put("none", null);
        Team team = new Team("t", List.of(x, y, x), new Counter[] {x, null}, byName);

        assertEquals("members0==members2 true array0==members0 true map_b==members1 true remote true", desk.identities(team));
        Team back = desk.echoTeam(team);
        assertSame(x, back.members().get(0));
        assertSame(y, back.members().get(1));
        assertSame(x, back.members().get(2));
        assertSame(x, back.array()[0]);
        assertNull(back.array()[1]);
        assertSame(y, back.byName().get("b"));
        assertNull(back.byName().get("none"));
        assertTrue(back.byName().containsKey("none"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aThirdBasesObjectInsideARecordIsForwardedAndComesHomeAsItself(String transport) {
        Base a = base(transport);
        Base b = base(transport);
        Base c = base(transport);
        b.bind("desk", new DeskImpl());
        DeskImpl atC = new DeskImpl();
        c.bind("desk", atC);
        Cell cellOfC = new Cell(10);
        c.bind("cell", cellOfC);
        Counter held = a.lookup(c.addresses().getFirst(), "cell", Counter.class);
        Desk deskB = a.lookup(b.addresses().getFirst(), "desk", Desk.class);
        Desk deskC = a.lookup(c.addresses().getFirst(), "desk", Desk.class);

        long w = Base.heldWeight(held);
        deskB.place(new Order("o", held, held)); // a forwards c's object to b inside a record
        assertEquals(w - split(w), Base.heldWeight(held), "one object twice in one value: its weight split once");
        assertEquals(13, deskB.addToCustomer(3), "b calls c's cell");
        assertEquals(13, cellOfC.value());
        Order back = deskB.relay(new Order("r", held, null), deskC); // a -> b -> c: c gets its own object
        assertSame(held, back.customer(), "a's one proxy of c's cell");
        assertSame(cellOfC, atC.stored.customer(), "at c, its own object inside the record is the original");
    }

    @Test
    void aCallThatFailsBeforeItIsSentGivesBackTheWeightItsValuesCounted() throws InterruptedException {
        Base a = base("shm");
        Base b = base("shm");
        Base c = base("shm");
        DeskImpl atB = new DeskImpl();
        b.bind("desk", atB);
        Cell cellOfC = new Cell(10);
        c.bind("cell", cellOfC);
        Desk desk = a.lookup(b.addresses().getFirst(), "desk", Desk.class);
        Counter held = a.lookup(c.addresses().getFirst(), "cell", Counter.class);
        long outstanding = c.outstandingWeight(cellOfC);
        long w = Base.heldWeight(held);
        List<Counter> unreadable = new java.util.AbstractList<>() {
            @Override public Counter get(int i) { throw new IllegalStateException("an unreadable list"); }

            @Override public int size() { return 1; }
        };
        Cell cell = new Cell(1);
        // the order (first argument) is planned, its references counted; the team (second) then fails to plan
        RuntimeException e = assertThrows(RuntimeException.class,
                () -> desk.placeBoth(new Order("o", cell, held), new Team("t", unreadable, new Counter[0], Map.of())));
        assertTrue(e.getMessage().contains("an unreadable list"), e.getMessage());
        assertNull(atB.stored, "nothing was sent");
        assertEquals(0, a.exportedObjects(), "the grant of a's own cell came back at once");
        assertEquals(w - split(w), Base.heldWeight(held), "a's hold of c's cell stays as the split left it");
        for (int i = 0; i < 500 && c.outstandingWeight(cellOfC) != outstanding - split(w); i++) {
            Thread.sleep(10);
        }
        assertEquals(outstanding - split(w), c.outstandingWeight(cellOfC), "the split that was never sent went home to c");
        desk.place(new Order("o", cell, held)); // and the next call goes through
        assertEquals("different remote", desk.describeStored());
    }

    @Test
    void theOwnersTableEmptiesWhenTheHolderDropsTheValue() throws InterruptedException {
        Base a = base("shm");
        Base b = base("shm");
        DeskImpl atB = new DeskImpl();
        b.bind("desk", atB);
        Desk desk = a.lookup(b.addresses().getFirst(), "desk", Desk.class);
        int accountsA = a.ledgerAccounts(), accountsB = b.ledgerAccounts(); // the desk's, a holder's and its owner's
        Cell x = new Cell(1), y = new Cell(2);
        desk.place(new Order("o", x, y));
        desk.identities(new Team("t", List.of(x, y, x), new Counter[] {y}, Map.of("b", y)));
        assertEquals(2, a.exportedObjects(), "b holds a's two cells");
        desk.drop();
        for (int i = 0; i < 500 && a.exportedObjects() > 0; i++) {
            System.gc();
            Thread.sleep(20);
        }
        assertEquals(0, a.exportedObjects(), "the proxies in the dropped values became unreachable and their weight came home");
        for (int i = 0; i < 500 && a.ledgerAccounts() + b.ledgerAccounts() > accountsA + accountsB; i++) {
            Thread.sleep(10);
        }
        assertEquals(accountsA, a.ledgerAccounts(), "no account left in a's ledger for the cells");
        assertEquals(accountsB, b.ledgerAccounts(), "no account left in b's ledger for the cells");
    }

    /** What a reference sent on takes of a hold of {@code w}: half, at most 2^24 (docs/objects.md §3). */
    private static long split(long w) {
        return Math.min(w / 2, 1L << 24);
    }
}
