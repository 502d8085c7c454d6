package dev.verbatim.rpc.internal;

import org.junit.jupiter.api.Test;

import java.lang.ref.WeakReference;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

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

    /**
     * The race of issue 16 §4, interleaved by hand: the object arrives again (a reader thread resolves it)
     * while this side is releasing its proxy, after the release began and before it ended. The release's
     * look into the proxy table is where the arrival is made to happen.
     */
    @Test
    @SuppressWarnings("unchecked")
    void anObjectArrivingWhileItsProxyIsBeingReleasedGetsALiveProxyAndEveryReferenceIsGivenBackOnce() throws Exception {
        Object old = table.resolve(9, Parts.Counter.class);
        Object[] arrived = new Object[1];
        boolean[] armed = {false};
        Field f = ImportedObjects.class.getDeclaredField("proxies");
        f.setAccessible(true);
        Map<Integer, WeakReference<Object>> real = (Map<Integer, WeakReference<Object>>) f.get(table);
        f.set(table, new ConcurrentHashMap<Integer, WeakReference<Object>>(real) {
            @Override
            public WeakReference<Object> get(Object key) {
                if (armed[0]) {
                    armed[0] = false;
                    arrived[0] = table.resolve(9, Parts.Counter.class); // the reference arriving now
                }
                return super.get(key);
            }
        });
        armed[0] = true;
        table.release(binding(old));
        assertFalse(armed[0], "the arrival was interleaved with the release");
        assertTrue(old != arrived[0], "not the proxy being released: calls on it would fail");
        assertFalse(binding(arrived[0]).isReleased());
        assertTrue(arrived[0] == table.resolve(9, Parts.Counter.class), "the live proxy is the one a later arrival finds");
        table.release(binding(arrived[0]));
        long given = released.stream().mapToLong(r -> r[1]).sum();
        assertEquals(3, given, "three arrivals, each reference given back once: the peer can forget the object");
    }
}
