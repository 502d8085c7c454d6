package dev.verbatim.objects.internal;

import dev.verbatim.objects.Fixtures;
import dev.verbatim.objects.Shared;
import dev.verbatim.rpc.Remote;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A reference to an object offering exactly the shared interface its value is declared as travels without that
 * interface's name ({@link ReferenceDescriptor#DECLARED}, docs/objects.md §1): written so where (and only where) the
 * receiver reads it as that type, read back as the same object, and never a proxy made of a type the receiver
 * cannot know.
 */
@Timeout(60)
class DeclaredReferencesTest {
    private static final long OWNER = 0xdec1a4edL;
    private static final long PEER = 0x7e57L;

    /** Another shared interface. */
    public interface Gauge extends Shared {
        int read();
    }

    /** An object offering two shared interfaces. */
    public static final class CounterGauge implements Fixtures.Counter, Gauge {
        @Override
        public int add(int n) {
            return n;
        }

        @Override
        public int value() {
            return 0;
        }

        @Override
        public int read() {
            return 0;
        }
    }

    private static String address() {
        return "shm:declared-nowhere-" + ProcessHandle.current().pid();
    }

    private static MemorySegment named(int id, long weight) {
        return MemorySegment.ofArray(ReferenceDescriptor.encode(new Reference(OWNER, id, weight, List.of(address()),
                List.of(Fixtures.Counter.class.getName()))));
    }

    private static MemorySegment declared(int id, long weight) {
        return MemorySegment.ofArray(ReferenceDescriptor.encodeIn(OWNER, id, weight,
                ReferenceDescriptor.Strings.of(List.of(address()), List.of(Fixtures.Counter.class.getName())), true, 0));
    }

    @Test
    void aReferenceReadAsItsDeclaredTypeIsTheSameObjectWhicheverFormItCameIn() {
        ObjectSpace s = Spaces.shm("declared-read");
        try {
            Object p = s.decode(declared(1, 8), Fixtures.Counter.class, PEER);
            assertInstanceOf(Fixtures.Counter.class, p);
            assertSame(p, s.decode(named(1, 4), Fixtures.Counter.class, PEER), "the named form: the same proxy");
            assertSame(p, s.decode(declared(1, 2), Fixtures.Counter.class, PEER), "again: the same proxy");
            assertEquals(14, ObjectSpace.weightHeld(p));
            for (Class<?> as : new Class<?>[] {Shared.class, Remote.class}) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> s.decode(declared(1, 1), as, PEER), "read as " + as.getName());
                assertTrue(e.getMessage().contains("declared"), e.getMessage());
            }
            assertThrows(IllegalArgumentException.class, () -> s.decode(declared(2, 1), Shared.class, PEER),
                    "an object not held yet, where no shared interface is declared");
            assertEquals(14, ObjectSpace.weightHeld(p), "what was refused added nothing");
            assertEquals(1, s.heldCount());
        } finally {
            s.close();
        }
    }

    @Test
    void aHeldObjectIsSentWithoutItsInterfaceNameOnlyWhereThatInterfaceIsDeclared() {
        ObjectSpace s = Spaces.shm("declared-send-held");
        try {
            Object p = s.decode(named(1, 1L << 40), Fixtures.Counter.class, PEER);
            byte[] asCounter = s.encode(p, PEER, Fixtures.Counter.class);
            byte[] asShared = s.encode(p, PEER, Shared.class);
            byte[] untyped = s.encode(p, PEER, null);
            assertEquals(ReferenceDescriptor.DECLARED, Spaces.flags(asCounter));
            assertEquals(0, Spaces.flags(asShared));
            assertEquals(0, Spaces.flags(untyped), "a table's entry is read as no type");
            assertEquals(asShared.length - 2 - Fixtures.Counter.class.getName().length(), asCounter.length);
            Reference r = ReferenceDescriptor.decode(MemorySegment.ofArray(asCounter), null, Fixtures.Counter.class);
            assertEquals(new Reference(OWNER, 1, r.weight(), List.of(address()), List.of(Fixtures.Counter.class.getName())), r);
        } finally {
            s.close();
        }
    }

    /**
     * A base's own object travels without the base's addresses too ({@link ReferenceDescriptor#SENDER}): the receiver
     * knows them, and reads it only from that base.
     */
    @Test
    void anOwnObjectTravelsWithoutItsBasesAddressesAndIsReadOnlyFromThatBase() {
        ObjectSpace s = Spaces.shm("declared-send-own-sender");
        ObjectSpace r = Spaces.shm("declared-read-own-sender");
        try {
            byte[] own = s.encode(new Fixtures.Cell(1), PEER, Fixtures.Counter.class);
            assertEquals(ReferenceDescriptor.DECLARED | ReferenceDescriptor.SENDER, Spaces.flags(own));
            assertEquals(ReferenceDescriptor.FIXED, own.length, "no string at all");
            assertEquals(ReferenceDescriptor.SENDER, Spaces.flags(s.encode(new CounterGauge(), PEER, Fixtures.Counter.class)));
            Fixtures.Cell mine = new Fixtures.Cell(3);
            assertSame(mine, s.decode(MemorySegment.ofArray(s.encode(mine, s.id(), Fixtures.Counter.class)),
                    Fixtures.Counter.class, s.id()), "sent to itself: home, no address read");
            assertEquals(0, s.outstanding(mine));
            MemorySegment m = MemorySegment.ofArray(own);
            long sender = s.id();
            assertThrows(IllegalArgumentException.class, () -> r.decode(m, Fixtures.Counter.class, 0L), "from no known base");
            r.peers().know(sender, s.addresses());
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> r.decode(m, Fixtures.Counter.class, PEER), "from another base");
            assertTrue(e.getMessage().contains("as its owner"), e.getMessage());
            Object p = r.decode(m, Fixtures.Counter.class, sender);
            assertInstanceOf(Fixtures.Counter.class, p);
            assertEquals(s.id(), r.home(p), "the sender's object");
            assertEquals(s.addresses(), r.peers().addressesOf(sender));
            long w = ObjectSpace.weightHeld(p);
            assertSame(p, r.decode(m, Fixtures.Counter.class, sender), "again, from its owner: the same proxy");
            assertEquals(2 * w, ObjectSpace.weightHeld(p));
            assertThrows(IllegalArgumentException.class, () -> r.decode(m, Fixtures.Counter.class, PEER),
                    "again, from another base: refused as before");
            assertEquals(2 * w, ObjectSpace.weightHeld(p));
        } finally {
            r.close();
            s.close();
        }
    }

    @Test
    void anOwnObjectIsSentWithoutItsInterfaceNameOnlyWhenItOffersNoOther() {
        ObjectSpace s = Spaces.shm("declared-send-own");
        try {
            byte[] one = s.encode(new Fixtures.Cell(1), PEER, Fixtures.Counter.class);
            assertEquals(ReferenceDescriptor.DECLARED | ReferenceDescriptor.SENDER, Spaces.flags(one));
            assertEquals(List.of(Fixtures.Counter.class.getName()),
                    ReferenceDescriptor.decode(MemorySegment.ofArray(one), null, Fixtures.Counter.class).interfaces());
            Fixtures.Cell cell = new Fixtures.Cell(2);
            byte[] unsent = s.encode(cell, PEER, Fixtures.Counter.class);
            assertEquals(ReferenceDescriptor.DECLARED | ReferenceDescriptor.SENDER, Spaces.flags(unsent));
            assertTrue(s.outstanding(cell) > 0);
            s.unsent(MemorySegment.ofArray(unsent), null);
            assertEquals(0, s.outstanding(cell), "a DECLARED reference never sent gives its weight back");
            byte[] two = s.encode(new CounterGauge(), PEER, Fixtures.Counter.class);
            assertEquals(ReferenceDescriptor.SENDER, Spaces.flags(two), "two interfaces: both named, so the proxy offers both");
            assertEquals(List.of(Fixtures.Counter.class.getName(), Gauge.class.getName()).stream().sorted().toList(),
                    ReferenceDescriptor.decode(MemorySegment.ofArray(two)).interfaces().stream().sorted().toList());
        } finally {
            s.close();
        }
    }

    /**
     * A message dropped unread (a reply nobody waits for) is read as no type: a DECLARED reference in it adds to the
     * hold this base has, or makes no proxy at all (one made now would offer no interface, and every later reference
     * to the object would resolve to it).
     */
    @Test
    void aDroppedReferenceNamingNoInterfaceMakesNoProxy() {
        ObjectSpace s = Spaces.shm("declared-dropped");
        try {
            s.dropped(declared(3, 5), null);
            assertEquals(0, s.heldCount(), "no proxy made");
            assertNull(s.ledger().get(OWNER, 3), "taken in and sent home: nothing held, no account left");
            assertArrayEquals(new long[] {2, 0, 5, OWNER, 0}, sorted(s.ledger().holdsAndReceived(OWNER)),
                    "counted as received from its sender (0: unknown)");
            assertArrayEquals(new long[] {2, 0, 0, OWNER, 5}, sorted(s.ledger().sentTo(OWNER)), "and as sent home");
            Object p = s.decode(named(3, 8), Fixtures.Counter.class, 0L);
            assertInstanceOf(Fixtures.Counter.class, p, "the object's first proxy offers its interface");
            s.dropped(declared(3, 5), null);
            assertEquals(13, ObjectSpace.weightHeld(p), "added to the hold there is");
            assertEquals(1, s.heldCount());
        } finally {
            s.close();
        }
    }

    /** The totals of a ledger report ({@code m, (peer, w)×m}, then no account) with the pairs sorted by peer. */
    private static long[] sorted(long[] report) {
        int m = (int) report[0];
        assertEquals(1 + 2 * m, report.length, "no account left: " + java.util.Arrays.toString(report));
        long[][] pairs = new long[m][];
        for (int i = 0; i < m; i++) {
            pairs[i] = new long[] {report[1 + 2 * i], report[2 + 2 * i]};
        }
        java.util.Arrays.sort(pairs, java.util.Comparator.comparingLong(x -> x[0]));
        long[] out = new long[report.length];
        out[0] = m;
        for (int i = 0; i < m; i++) {
            out[1 + 2 * i] = pairs[i][0];
            out[2 + 2 * i] = pairs[i][1];
        }
        return out;
    }

    /**
     * A hold released but still entered (a release takes the weight before the entry goes) is no hold to add a
     * dropped reference's weight to: that weight goes home, and no proxy offering no interface is entered for the
     * object, which a reference read as its interface would then find (review of the change).
     */
    @Test
    void aDroppedReferenceToAnObjectWhoseHoldWasJustReleasedMakesNoProxyEither() {
        ObjectSpace s = Spaces.shm("declared-dropped-released");
        try {
            Object p = s.decode(named(4, 8), Fixtures.Counter.class, PEER);
            s.weights().takeAll(SharedHandler.heldBy(p)); // released; its entry not removed yet
            s.dropped(declared(4, 5), null);
            Object q = s.decode(named(4, 4), Fixtures.Counter.class, PEER);
            assertInstanceOf(Fixtures.Counter.class, q, "a proxy of the object's interface");
            assertNotSame(p, q);
            java.lang.ref.Reference.reachabilityFence(p);
        } finally {
            s.close();
        }
    }
}
