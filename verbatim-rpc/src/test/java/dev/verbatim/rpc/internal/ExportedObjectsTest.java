package dev.verbatim.rpc.internal;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.*;

class ExportedObjectsTest {
    private final AtomicInteger firstExports = new AtomicInteger();
    private final ExportedObjects table = new ExportedObjects(firstExports::incrementAndGet);

    private static final class Both implements Parts.Counter, Parts.Named {
        @Override
        public int add(int x) {
            return x;
        }

        @Override
        public String name() {
            return "both";
        }
    }

    @Test
    void oneObjectPassedTwiceAsOneInterfaceHasOneIdAndTwoReferences() {
        Both o = new Both();
        int id = table.export(o, Parts.Counter.class);
        assertEquals(id, table.export(o, Parts.Counter.class));
        assertEquals(2, table.get(id).references().get());
        assertSame(o, table.get(id).impl());
        assertEquals(Parts.Counter.class, table.get(id).remote().type);
        assertEquals(1, table.size());
        assertEquals(1, firstExports.get(), "the dispatcher is asked for once, when the object enters");
    }

    @Test
    void theSameObjectAsAnotherInterfaceAndAnEqualObjectAreOtherEntries() {
        Both o = new Both();
        int counter = table.export(o, Parts.Counter.class);
        int named = table.export(o, Parts.Named.class);
        int other = table.export(new Both(), Parts.Counter.class);
        assertNotEquals(counter, named);
        assertNotEquals(counter, other);
        assertEquals(3, table.size());
        assertEquals(Parts.Named.class, table.get(named).remote().type);
    }

    @Test
    void anObjectIsForgottenWhenThePeerReleasesItsLastReferenceAndComesBackUnderANewId() {
        Both o = new Both();
        int id = table.export(o, Parts.Counter.class);
        table.export(o, Parts.Counter.class);
        table.export(o, Parts.Counter.class);
        table.release(id, 2);
        assertNotNull(table.get(id), "one reference is still held");
        assertEquals(1, table.get(id).references().get());
        table.release(id, 1);
        assertNull(table.get(id), "released: the peer can no longer call it");
        assertEquals(0, table.size());
        int again = table.export(o, Parts.Counter.class);
        assertNotEquals(id, again, "ids are not reused: a stale reference of the peer cannot reach the new entry");
        assertEquals(1, table.get(again).references().get());
    }

    @Test
    void releasingOneInterfaceOfAnObjectLeavesItsOtherEntry() {
        Both o = new Both();
        int counter = table.export(o, Parts.Counter.class);
        int named = table.export(o, Parts.Named.class);
        table.release(counter, 1);
        assertNull(table.get(counter));
        assertSame(o, table.get(named).impl());
        assertEquals(named, table.export(o, Parts.Named.class), "the other interface keeps its id");
    }

    @Test
    void aReleaseOfAnUnknownIdChangesNothing() {
        int id = table.export(new Both(), Parts.Counter.class);
        table.release(id + 1, 5);
        assertEquals(1, table.get(id).references().get());
    }

    @Test
    void closingForgetsEverything() {
        Both o = new Both();
        int id = table.export(o, Parts.Counter.class);
        table.clear();
        assertNull(table.get(id));
        assertEquals(0, table.size());
    }
}
