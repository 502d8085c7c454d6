package dev.verbatim.rpc.internal;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class ImportedObjectsTest {
    private final List<long[]> released = new ArrayList<>();
    private final ImportedObjects table = new ImportedObjects(null, (id, count) -> released.add(new long[] {id, count}));

    private static Binding binding(Object proxy) {
        return ((ProxyObject) proxy).verbatimBinding();
    }

    @Test
    void oneObjectArrivingTwiceIsOneProxyHoldingTwoReferences() {
        Object a = table.resolve(7, Parts.Counter.class);
        Object b = table.resolve(7, Parts.Counter.class);
        assertSame(a, b);
        assertInstanceOf(Parts.Counter.class, a);
        assertEquals(2, binding(a).references.get());
        assertEquals(7, binding(a).target);
        assertTrue(binding(a).toObject);
        assertNotSame(a, table.resolve(8, Parts.Counter.class), "another object, another proxy");
    }

    @Test
    void releasingAProxyGivesBackAllItsReferencesInOneReleaseOnce() {
        Object p = table.resolve(3, Parts.Counter.class);
        table.resolve(3, Parts.Counter.class);
        table.resolve(3, Parts.Counter.class);
        table.release(binding(p));
        assertEquals(1, released.size());
        assertArrayEquals(new long[] {3, 3}, released.getFirst());
        table.release(binding(p));
        assertEquals(1, released.size(), "a second release sends nothing");
    }

    @Test
    void aReferenceArrivingAfterItsProxyWasReleasedIsANewProxyWithItsOwnCount() {
        Object old = table.resolve(4, Parts.Counter.class);
        table.release(binding(old));
        Object fresh = table.resolve(4, Parts.Counter.class);
        assertNotSame(old, fresh, "the released proxy stays released; the new reference needs a live one");
        assertFalse(binding(fresh).released);
        assertEquals(1, binding(fresh).references.get());
        table.release(binding(fresh));
        assertEquals(2, released.size());
        assertArrayEquals(new long[] {4, 1}, released.get(1), "each generation gives back its own count");
    }

    @Test
    void anObjectArrivingAsAnotherInterfaceIsAnotherProxy() {
        Object counter = table.resolve(5, Parts.Counter.class);
        Object named = table.resolve(5, Parts.Named.class);
        assertInstanceOf(Parts.Named.class, named);
        assertNotSame(counter, named);
    }
}
