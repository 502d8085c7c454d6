package dev.verbatim.objects.internal;

import dev.verbatim.objects.Fixtures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * One proxy per object per base (docs/objects.md §1), with the look-up of the object arriving last remembered
 * ({@link HeldObjects}): a reference arriving again finds its proxy and adds its weight; once the proxy is released,
 * the next arrival makes a new proxy, and the arrivals after it find that one, never the released one.
 */
@Timeout(60)
class HeldObjectsTest {
    private static final long OWNER = 0x5eed0bL;

    private static MemorySegment reference(int id, long weight) {
        return reference(id, weight, "shm:held-objects-nowhere-" + ProcessHandle.current().pid());
    }

    private static MemorySegment reference(int id, long weight, String address) {
        return MemorySegment.ofArray(ReferenceDescriptor.encode(new Reference(OWNER, id, weight, List.of(address),
                List.of(Fixtures.Counter.class.getName()))));
    }

    @Test
    void arrivalsFindTheOneProxyUntilItIsReleasedThenTheNewOne() {
        ObjectSpace s = Spaces.shm("held-objects");
        try {
            Object p1 = s.decode(reference(1, 8), Fixtures.Counter.class, 0L);
            Object q = s.decode(reference(2, 4), Fixtures.Counter.class, 0L); // another object between two arrivals
            assertSame(p1, s.decode(reference(1, 8), Fixtures.Counter.class, 0L));
            assertEquals(16, ObjectSpace.weightHeld(p1));
            assertSame(q, s.decode(reference(2, 4), Fixtures.Counter.class, 0L));
            assertEquals(2, s.heldCount());

            s.release(p1); // (its weight goes to an owner nobody can reach: dropped quietly)
            assertEquals(1, s.heldCount());
            Object p2 = s.decode(reference(1, 2), Fixtures.Counter.class, 0L);
            assertNotSame(p1, p2, "a released proxy is not used again");
            assertSame(p2, s.decode(reference(1, 2), Fixtures.Counter.class, 0L));
            assertEquals(4, ObjectSpace.weightHeld(p2));
            assertEquals(0, ObjectSpace.weightHeld(p1));
            assertSame(q, s.decode(reference(2, 4), Fixtures.Counter.class, 0L));
            assertEquals(2, s.heldCount());
        } finally {
            s.close();
        }
    }

    /**
     * An arrival of the object whose hold was found last is read without a look-up ({@code HeldObjects.again}) only
     * when the general path would take it as it is: declared as an interface its proxy lacks, or without weight, it is
     * refused as before, and the hold keeps what it had.
     */
    @Test
    void anArrivalOfTheObjectHeldLastThatTheGeneralPathWouldRefuseIsRefused() {
        ObjectSpace s = Spaces.shm("held-objects-again");
        try {
            Object p = s.decode(reference(1, 8), Fixtures.Counter.class, 0L);
            assertSame(p, s.decode(reference(1, 8), Fixtures.Counter.class, 0L));
            assertEquals(16, ObjectSpace.weightHeld(p));
            IllegalArgumentException notImplemented = assertThrows(IllegalArgumentException.class,
                    () -> s.decode(reference(1, 8), Runnable.class, 0L));
            assertTrue(notImplemented.getMessage().contains("does not implement"), notImplemented.getMessage());
            IllegalArgumentException noWeight = assertThrows(IllegalArgumentException.class,
                    () -> s.decode(reference(1, 0), Fixtures.Counter.class, 0L));
            assertTrue(noWeight.getMessage().contains("without weight"), noWeight.getMessage());
            assertEquals(16, ObjectSpace.weightHeld(p), "nothing added by what was refused");
            assertSame(p, s.decode(reference(1, 8), Fixtures.Counter.class, 0L));
            assertEquals(24, ObjectSpace.weightHeld(p));
        } finally {
            s.close();
        }
    }

    /**
     * The arrival of the object held last is refused as the general path refuses it when it comes from the owner
     * vouching for addresses other than its own, or from a base declared dead: the hold was made from another base's
     * reference carrying forged addresses, and its bytes match the arrival's.
     */
    @Test
    void anArrivalOfTheObjectHeldLastFromItsOwnerOrADeadBaseIsCheckedAsEver() {
        ObjectSpace s = Spaces.shm("held-objects-owner");
        try {
            String real = "shm:held-objects-real-" + ProcessHandle.current().pid();
            String forged = "shm:held-objects-forged-" + ProcessHandle.current().pid();
            s.decode(reference(2, 8, real), Fixtures.Counter.class, 0L); // the owner known at its real address
            Object p = s.decode(reference(1, 8, forged), Fixtures.Counter.class, 0L); // held last: forged addresses
            IllegalArgumentException notItsOwn = assertThrows(IllegalArgumentException.class,
                    () -> s.decode(reference(1, 8, forged), Fixtures.Counter.class, OWNER));
            assertTrue(notItsOwn.getMessage().contains("not the sender's"), notItsOwn.getMessage());
            long dead = 0x0dead5L;
            s.peers().declareDead(dead);
            IllegalArgumentException fromTheDead = assertThrows(IllegalArgumentException.class,
                    () -> s.decode(reference(1, 8, forged), Fixtures.Counter.class, dead));
            assertTrue(fromTheDead.getMessage().contains("declared dead"), fromTheDead.getMessage());
            assertEquals(8, ObjectSpace.weightHeld(p), "nothing added by what was refused");
        } finally {
            s.close();
        }
    }
}
