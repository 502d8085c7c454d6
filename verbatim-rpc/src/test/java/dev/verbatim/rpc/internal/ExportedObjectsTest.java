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
    void aReleaseOfAnUnknownIdIsRefusedAndChangesNothing() {
        int id = table.export(new Both(), Parts.Counter.class);
        assertThrows(IllegalArgumentException.class, () -> table.release(id + 1, 5),
                "the peer gives back what it was never handed: a protocol error");
        assertEquals(1, table.get(id).references().get());
    }

    @Test
    void aReleaseOfANegativeOrZeroCountIsRefusedAndRaisesNothing() {
        int id = table.export(new Both(), Parts.Counter.class);
        assertThrows(IllegalArgumentException.class, () -> table.release(id, -5));
        assertThrows(IllegalArgumentException.class, () -> table.release(id, 0));
        assertThrows(IllegalArgumentException.class, () -> table.release(id, Long.MIN_VALUE));
        assertEquals(1, table.get(id).references().get(), "a negative count does not raise the count");
    }

    @Test
    void aReleaseOfMoreThanWasHandedOutIsRefusedAndChangesNothing() {
        Both o = new Both();
        int id = table.export(o, Parts.Counter.class);
        table.export(o, Parts.Counter.class);
        assertThrows(IllegalArgumentException.class, () -> table.release(id, 3));
        assertThrows(IllegalArgumentException.class, () -> table.release(id, 1L << 32 | 1), "no truncation to an int");
        assertEquals(2, table.get(id).references().get());
        table.release(id, 2);
        assertNull(table.get(id));
    }

    @Test
    void aConnectionHoldsAtMostItsLimitOfObjectsAndSaysSo() {
        ExportedObjects small = new ExportedObjects(() -> { }, 3);
        Both kept = new Both();
        int first = small.export(kept, Parts.Counter.class);
        small.export(new Both(), Parts.Counter.class);
        small.export(new Both(), Parts.Counter.class);
        dev.verbatim.rpc.RemoteException e = assertThrows(dev.verbatim.rpc.RemoteException.class,
                () -> small.export(new Both(), Parts.Counter.class));
        assertEquals(dev.verbatim.rpc.RemoteException.Reason.OVERLOADED, e.reason());
        assertTrue(e.getMessage().contains("3"), "the message names the limit: " + e.getMessage());
        assertEquals(3, small.size());
        assertEquals(first, small.export(kept, Parts.Counter.class), "one more reference to an object held is no new entry");
        small.release(first, 2);
        small.export(new Both(), Parts.Counter.class); // room again
        assertEquals(3, small.size());
        assertEquals(ExportedObjects.MAX_OBJECTS, 65_536, "the default");
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
