package dev.verbatim.objects.internal;

import dev.verbatim.objects.BaseOptions;
import dev.verbatim.objects.Fixtures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A reference to another base's object goes to a base that knows the owner's addresses without them
 * ({@link ReferenceDescriptor#KNOWN}, docs/objects.md §1): the sender learns that the receiver knows them from the
 * receiver's answer to a call that carried them, never before; the receiver reads the addresses it knows, and refuses
 * the form for an owner it knows none of.
 */
@Timeout(60)
class KnownOwnersTest {
    private static final long OWNER = 0x0c0ffeeL;
    private static final long PEER = 0x7e57L;
    private static final List<String> OWNER_AT = List.of("shm:known-owner-nowhere");

    private static MemorySegment named(int id, long weight) {
        return MemorySegment.ofArray(ReferenceDescriptor.encode(new Reference(OWNER, id, weight, OWNER_AT,
                List.of(Fixtures.Counter.class.getName()))));
    }

    @Test
    void aHeldObjectGoesWithoutItsOwnersAddressesOnlyToABaseThatReadThemOrToItsOwner() {
        ObjectSpace s = Spaces.shm("known-send");
        try {
            Object p = s.decode(named(1, 1L << 40), Fixtures.Counter.class, 0L);
            s.peers().know(PEER, List.of("shm:known-peer-nowhere"));
            byte[] first = s.encode(p, PEER, Fixtures.Counter.class);
            assertEquals(ReferenceDescriptor.DECLARED, Spaces.flags(first), "not told yet: the addresses go");
            assertTrue(s.wantsAnswer(MemorySegment.ofArray(first)), "the answer to the call carrying them counts");
            s.peers().told(s.peers().byId(PEER), OWNER); // what answered() does when the call's answer comes
            byte[] again = s.encode(p, PEER, Fixtures.Counter.class);
            assertEquals(ReferenceDescriptor.DECLARED | ReferenceDescriptor.KNOWN, Spaces.flags(again));
            assertEquals(ReferenceDescriptor.FIXED, again.length, "no string at all");
            assertFalse(s.wantsAnswer(MemorySegment.ofArray(again)));
            assertEquals(ReferenceDescriptor.KNOWN, Spaces.flags(s.encode(p, PEER, null)), "named interfaces, no address");
            s.peers().know(PEER + 1, List.of("shm:known-other-nowhere"));
            assertEquals(ReferenceDescriptor.DECLARED, Spaces.flags(s.encode(p, PEER + 1, Fixtures.Counter.class)),
                    "another base was never told");
            assertEquals(ReferenceDescriptor.DECLARED | ReferenceDescriptor.KNOWN,
                    Spaces.flags(s.encode(p, OWNER, Fixtures.Counter.class)), "its owner knows its own addresses");
        } finally {
            s.close();
        }
    }

    @Test
    void aReceiverReadsTheAddressesItKnowsAndRefusesTheFormForAnOwnerItKnowsNothingOf() {
        ObjectSpace s = Spaces.shm("known-form");
        ObjectSpace r = Spaces.shm("known-read");
        try {
            Object held = s.decode(named(2, 1L << 40), Fixtures.Counter.class, 0L);
            MemorySegment known = MemorySegment.ofArray(s.encode(held, OWNER, Fixtures.Counter.class)); // (KNOWN: to its owner)
            assertEquals(ReferenceDescriptor.DECLARED | ReferenceDescriptor.KNOWN, Spaces.flags(known.toArray(ValueLayout.JAVA_BYTE)));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> r.decode(known, Fixtures.Counter.class, PEER));
            assertTrue(e.getMessage().contains("never given"), e.getMessage());
            assertEquals(0, r.heldCount(), "nothing made of it");
            r.peers().know(OWNER, OWNER_AT);
            Object p = r.decode(known, Fixtures.Counter.class, PEER);
            assertEquals(OWNER, r.home(p));
            long w = ObjectSpace.weightHeld(p);
            assertTrue(w > 0);
            assertSame(p, r.decode(named(2, 8), Fixtures.Counter.class, PEER), "the named form: the same proxy");
            assertEquals(w + 8, ObjectSpace.weightHeld(p));
            MemorySegment again = MemorySegment.ofArray(s.encode(held, OWNER, Fixtures.Counter.class));
            long more = ReferenceDescriptor.decode(again).weight();
            assertSame(p, r.decode(again, Fixtures.Counter.class, PEER), "the KNOWN form again: the same proxy");
            assertEquals(w + 8 + more, ObjectSpace.weightHeld(p));
            MemorySegment fromOwner = MemorySegment.ofArray(s.encode(held, OWNER, Fixtures.Counter.class));
            assertSame(p, r.decode(fromOwner, Fixtures.Counter.class, OWNER),
                    "from its owner (whose own form is SENDER): read the general way, the same proxy");
        } finally {
            r.close();
            s.close();
        }
    }

    /**
     * Three bases: a forwards b's object to c twice; the first call names b's addresses, c's answer tells a that c
     * read them, and the second goes without; c, which never called b, reaches b through it either way.
     */
    @Test
    void aForwardNamesTheOwnersAddressesUntilTheReceiverAnsweredACallThatCarriedThem() {
        String at = "shm:known-walk-" + ProcessHandle.current().pid();
        ObjectSpace a = ObjectSpace.listen(BaseOptions.DEFAULT, at + "-a");
        ObjectSpace b = ObjectSpace.listen(BaseOptions.DEFAULT, at + "-b");
        ObjectSpace c = ObjectSpace.listen(BaseOptions.DEFAULT, at + "-c");
        try {
            b.bind("cell", new Fixtures.Cell(5));
            Fixtures.Store store = new Fixtures.Store();
            c.bind("store", store);
            Fixtures.Counter cell = (Fixtures.Counter) a.base(b.addresses().getFirst()).named("cell");
            Fixtures.Registry atC = (Fixtures.Registry) a.base(c.addresses().getFirst()).named("store");
            Peers.Peer cAtA = a.peers().byId(c.id());
            assertFalse(Peers.wasTold(cAtA, b.id()), "c was never sent b's addresses");
            atC.put(cell);
            assertTrue(Peers.wasTold(cAtA, b.id()), "c answered the call that named them");
            Object first = store.stored;
            assertEquals(b.id(), c.home(first));
            atC.put(cell);
            assertSame(first, store.stored, "the second, without the addresses: the same proxy at c");
            assertEquals(7, atC.addToStored(2), "c reaches b at the addresses it read the first time");
            assertEquals(b.addresses(), c.peers().addressesOf(b.id()), "c knows b's addresses since the first");
        } finally {
            c.close();
            b.close();
            a.close();
        }
    }
}
