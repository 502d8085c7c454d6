package dev.verbatim.objects.internal;

import dev.verbatim.objects.Fixtures;
import dev.verbatim.objects.Shared;
import dev.verbatim.rpc.RemoteException;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** What an object offers, and what a name from the wire may become (docs/objects.md §1, §6). */
class SharedTypesTest {
    /** Initialising this interface would set {@link #initialised}: nothing on the receiving path may. */
    public interface Marked extends Shared {
        boolean INIT = Flag.set();

        int mark();
    }

    static final class Flag {
        static volatile boolean initialised;

        static boolean set() {
            initialised = true;
            return true;
        }
    }

    interface Hidden extends Shared {
        int hidden();
    }

    public static class Both implements Fixtures.Counter, Hidden, Runnable {
        public Both() {}

        @Override public int add(int n) { return n; }
        @Override public int value() { return 0; }
        @Override public int hidden() { return 0; }
        @Override public void run() { }
    }

    public record WithArray(Fixtures.Counter[] counters) {}

    public static class Plain {
        public int x;
        public Fixtures.Counter inside;

        public Plain() {}
    }

    @Test
    void anObjectOffersExactlyItsPublicSharedInterfaces() {
        SharedTypes.Offer o = SharedTypes.offer(Both.class);
        assertArrayEquals(new Class<?>[] {Fixtures.Counter.class}, o.interfaces());
        assertEquals(List.of(Fixtures.Counter.class.getName()), o.names());
        RemoteException none = assertThrows(RemoteException.class, () -> SharedTypes.offer(Plain.class));
        assertTrue(none.getMessage().contains("cannot be shared"), none.getMessage());
    }

    @Test
    void aNameFromTheWireResolvesOnlyToAPublicSharedInterfaceAndTheDeclaredTypeIsAlwaysOffered() {
        ClassLoader l = getClass().getClassLoader();
        Class<?>[] r = SharedTypes.resolve(List.of("java.lang.Runnable", Fixtures.Cell.class.getName(), Hidden.class.getName(),
                "no.such.Type", Shared.class.getName(), Fixtures.Counter.class.getName()), Shared.class, l);
        assertArrayEquals(new Class<?>[] {Fixtures.Counter.class}, r);
        assertArrayEquals(new Class<?>[] {Fixtures.Registry.class}, SharedTypes.resolve(List.of("no.such.Type"),
                Fixtures.Registry.class, l), "what the receiver declares, when nothing named resolves");
    }

    @Test
    void aNameFromTheWireIsLoadedButNeverInitialised() {
        Class<?>[] r = SharedTypes.resolve(List.of(getClass().getName() + "$Marked"), Shared.class, getClass().getClassLoader());
        assertEquals("Marked", r[0].getSimpleName());
        assertFalse(Flag.initialised, "the interface's initialiser never ran");
    }

    @Test
    void anInterfacePassingValuesThatHoldSharedObjectsCanBeOffered() {
        assertArrayEquals(new Class<?>[] {Fixtures.Desk.class}, SharedTypes.offer(Fixtures.DeskImpl.class).interfaces());
        assertArrayEquals(new Class<?>[] {Fixtures.Nested.class}, SharedTypes.offer(Fixtures.NestedTaker.class).interfaces());
    }
}
