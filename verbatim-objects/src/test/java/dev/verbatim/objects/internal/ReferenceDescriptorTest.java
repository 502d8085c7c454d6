package dev.verbatim.objects.internal;

import dev.verbatim.objects.Shared;
import dev.verbatim.rpc.Remote;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

import static dev.verbatim.objects.internal.ReferenceDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

/** The reference's layout, pinned (docs/objects.md §1): changing a number breaks every other base. */
class ReferenceDescriptorTest {
    @Test
    void theLayoutKeepsItsOffsetsAndLimits() {
        assertArrayEquals(new int[] {0, 8, 12, 16, 24, 26, 28, 32}, new int[] {OWNER, ID, FLAGS, WEIGHT, ADDRESSES, INTERFACES,
                RESERVED, FIXED});
        assertArrayEquals(new int[] {8, 32, 1024, 1, 2}, new int[] {MAX_ADDRESSES, MAX_INTERFACES, MAX_STRING, DECLARED,
                SENDER});
    }

    @Test
    void aReferenceIsWrittenFieldByFieldAndReadBackWhole() {
        Reference r = new Reference(0x1122334455667788L, -2, 1L << 40, List.of("shm:a", "tcp://h:1"), List.of("x.Counter"));
        byte[] b = encode(r);
        MemorySegment m = MemorySegment.ofArray(b);
        assertEquals(0x1122334455667788L, m.get(ValueLayout.JAVA_LONG_UNALIGNED, OWNER));
        assertEquals(-2, m.get(ValueLayout.JAVA_INT_UNALIGNED, ID), "ids are u32");
        assertEquals(1L << 40, m.get(ValueLayout.JAVA_LONG_UNALIGNED, WEIGHT));
        assertEquals(2, m.get(ValueLayout.JAVA_SHORT_UNALIGNED, ADDRESSES));
        assertEquals(1, m.get(ValueLayout.JAVA_SHORT_UNALIGNED, INTERFACES));
        assertEquals(5, m.get(ValueLayout.JAVA_SHORT_UNALIGNED, FIXED), "each string: its u16 length, then its bytes");
        assertEquals(FIXED + 2 + 5 + 2 + 9 + 2 + 9, b.length, "nothing after the last string");
        assertEquals(r, decode(m));
        assertEquals(Reference.home(5, 3, 0), decode(MemorySegment.ofArray(encode(Reference.home(5, 3, 0)))));
    }

    @Test
    void tooManyAddressesOrInterfacesOrATooLongStringAreRefused() {
        byte[] b = encode(new Reference(1, 1, 1, List.of("a"), List.of()));
        MemorySegment m = MemorySegment.ofArray(b);
        m.set(ValueLayout.JAVA_SHORT_UNALIGNED, ADDRESSES, (short) (MAX_ADDRESSES + 1));
        assertThrows(IllegalArgumentException.class, () -> decode(m));
        byte[] c = encode(new Reference(1, 1, 1, List.of(), List.of("x".repeat(MAX_STRING + 1))));
        assertThrows(IllegalArgumentException.class, () -> decode(MemorySegment.ofArray(c)));
    }

    @Test
    void aReferenceCarryingTheStringsOfOneHeldAlreadyReadsAsItsOwnBytesWouldAndMakesNoString() {
        List<String> at = List.of("shm:a", "tcp://h:1");
        List<String> iface = List.of("x.Counter");
        Strings known = Strings.of(new java.util.ArrayList<>(at), new java.util.ArrayList<>(iface));
        assertTrue(known.readable());
        Reference r = new Reference(9, 4, 1L << 39, at, iface);
        MemorySegment m = MemorySegment.ofArray(encode(r));
        Reference fast = decode(m, known, null);
        assertEquals(r, fast);
        assertSame(known.addresses(), fast.addresses(), "the hold's lists, no string made");
        assertSame(known.interfaces(), fast.interfaces());
        assertArrayEquals(encode(r), encode(9, 4, 1L << 39, known), "sending with the kept strings writes the same bytes");

        Reference other = new Reference(9, 4, 1, List.of("shm:b", "tcp://h:1"), iface); // same lengths, other bytes
        Reference slow = decode(MemorySegment.ofArray(encode(other)), known, null);
        assertEquals(other, slow);
        assertNotSame(known.addresses(), slow.addresses());
        Reference fewer = new Reference(9, 4, 1, List.of("shm:a"), List.of("tcp://h:1", "x.Counter")); // same bytes, other counts
        assertEquals(fewer, decode(MemorySegment.ofArray(encode(fewer)), known, null));
    }

    @Test
    void stringsThatWouldNotPassTheChecksAreNeverMatchedSoEveryCheckStays() {
        // a string decoded from 1,024 malformed bytes is 1,024 replacement characters: 3,072 bytes when encoded again
        Strings grown = Strings.of(List.of("\uFFFD".repeat(MAX_STRING)), List.of());
        assertFalse(grown.readable());
        byte[] b = encode(7, 1, 1, grown);
        assertThrows(IllegalArgumentException.class, () -> decode(MemorySegment.ofArray(b), grown, null));
        MemorySegment flags = MemorySegment.ofArray(encode(7, 1, 1, Strings.of(List.of("shm:a"), List.of())));
        flags.set(ValueLayout.JAVA_INT_UNALIGNED, FLAGS, 2);
        assertThrows(IllegalArgumentException.class, () -> decode(flags, Strings.of(List.of("shm:a"), List.of()), null),
                "the fixed part is checked whatever the strings");
        MemorySegment longer = MemorySegment.ofArray(java.util.Arrays.copyOf(encode(7, 1, 1, Strings.of(List.of("shm:a"),
                List.of())), FIXED + 7 + 8));
        assertThrows(IllegalArgumentException.class, () -> decode(longer, Strings.of(List.of("shm:a"), List.of()), null),
                "bytes after the last string");
    }

    /**
     * {@code weightIfSame} (an arrival of the object held last, read word by word) accepts a payload only if
     * {@code decode} reads it as that object with the known strings: every byte of a reference changed in three ways,
     * and what it accepts is what decode reads; the weight's bytes are the only ones it may accept changed.
     */
    @Test
    void aReferenceToTheObjectHeldLastIsRecognisedWordByWordOnlyAsDecodeWouldReadIt() {
        Strings known = Strings.of(List.of("shm:a", "tcp://h:1"), List.of("x.Counter"));
        byte[] b = encode(9, -4, 1L << 24, known);
        assertEquals(1L << 24, weightIfSame(MemorySegment.ofArray(b), 9, -4, known, false, false));
        assertRecognisedOnlyAsDecodeReadsIt(b, known, false, m -> decode(m));
        MemorySegment m = MemorySegment.ofArray(b.clone());
        for (long weight : new long[] {1, (1L << 24) + 1, Long.MAX_VALUE}) {
            m.set(ValueLayout.JAVA_LONG_UNALIGNED, WEIGHT, weight);
            assertEquals(weight, weightIfSame(m, 9, -4, known, false, false), "weight " + weight + " read as it came");
        }
        for (long weight : new long[] {0, -1, Long.MIN_VALUE}) {
            m.set(ValueLayout.JAVA_LONG_UNALIGNED, WEIGHT, weight);
            assertEquals(-1, weightIfSame(m, 9, -4, known, false, false), "weight " + weight);
        }
        assertEquals(-1, weightIfSame(MemorySegment.ofArray(b), 8, -4, known, false, false), "another owner");
        assertEquals(-1, weightIfSame(MemorySegment.ofArray(b), 9, 4, known, false, false), "another object");
        assertEquals(-1, weightIfSame(MemorySegment.ofArray(java.util.Arrays.copyOf(b, b.length + 1)), 9, -4, known, false, false),
                "a byte after the last string");
        assertEquals(-1, weightIfSame(MemorySegment.ofArray(b).asSlice(0, b.length - 1), 9, -4, known, false, false), "one short");
        Strings grown = Strings.of(List.of("\uFFFD".repeat(MAX_STRING)), List.of());
        assertEquals(-1, weightIfSame(MemorySegment.ofArray(encode(9, -4, 1, grown)), 9, -4, grown, false, false),
                "strings that would not pass the checks are never matched");
    }

    /** A shared interface, as a parameter would declare it. */
    public interface Counter extends Shared {
        int next();
    }

    /** Another one. */
    public interface Gauge extends Shared {
        int read();
    }

    @Test
    void aReferenceToAnObjectOfferingExactlyTheDeclaredInterfaceTravelsWithoutItsName() {
        List<String> at = List.of("shm:a", "tcp://h:1");
        Strings known = Strings.of(at, List.of(Counter.class.getName()));
        assertTrue(declares(known.interfaces(), Counter.class));
        assertFalse(declares(known.interfaces(), Gauge.class), "another interface");
        assertFalse(declares(known.interfaces(), Shared.class), "Shared itself names nothing");
        assertFalse(declares(known.interfaces(), Remote.class), "a table's entry: no type");
        assertFalse(declares(known.interfaces(), null));
        assertFalse(declares(List.of(Counter.class.getName(), Gauge.class.getName()), Counter.class), "two interfaces");

        byte[] d = encodeIn(9, 4, 1L << 30, known, true, 0);
        MemorySegment m = MemorySegment.ofArray(d);
        assertEquals(FIXED + known.addressBytes(), d.length, "the addresses only");
        assertEquals(2 + 5 + 2 + 9, known.addressBytes());
        assertEquals(DECLARED, m.get(ValueLayout.JAVA_INT_UNALIGNED, FLAGS));
        assertEquals(2, m.get(ValueLayout.JAVA_SHORT_UNALIGNED, ADDRESSES));
        assertEquals(0, m.get(ValueLayout.JAVA_SHORT_UNALIGNED, INTERFACES), "no name travels");
        Reference r = new Reference(9, 4, 1L << 30, at, List.of(Counter.class.getName()));
        assertEquals(r, decode(m, null, Counter.class), "read as the declared type");
        assertEquals(new Reference(9, 4, 1L << 30, at, List.of()), decode(m), "read for its weight only");
        Reference fast = decode(m, known, Counter.class);
        assertEquals(r, fast);
        assertSame(known.interfaces(), fast.interfaces(), "the hold's lists, no string made");
        assertEquals(new Reference(9, 4, 1L << 30, at, List.of(Gauge.class.getName())), decode(m, known, Gauge.class),
                "the hold's strings are not taken for another type");
        for (Class<?> c : new Class<?>[] {null, Shared.class, Remote.class, String.class, Runnable.class}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> decode(m, known, c), "as " + c);
            assertTrue(e.getMessage().contains("declared"), e.getMessage());
        }
        MemorySegment named = MemorySegment.ofArray(encode(9, 4, 1, known));
        named.set(ValueLayout.JAVA_INT_UNALIGNED, FLAGS, DECLARED);
        assertThrows(IllegalArgumentException.class, () -> decode(named, null, Counter.class), "DECLARED and a name too");
        assertThrows(IllegalArgumentException.class, () -> decode(named));
    }

    @Test
    void aReferenceToItsSendersOwnObjectTravelsWithoutTheAddresses() {
        List<String> at = List.of("shm:a", "tcp://h:1");
        Reference r = new Reference(9, 4, 1L << 30, at, List.of(Counter.class.getName(), Gauge.class.getName()));
        byte[] b = encodeFromSender(r, false);
        MemorySegment m = MemorySegment.ofArray(b);
        assertTrue(fromSender(m));
        assertEquals(SENDER, m.get(ValueLayout.JAVA_INT_UNALIGNED, FLAGS));
        assertEquals(0, m.get(ValueLayout.JAVA_SHORT_UNALIGNED, ADDRESSES), "no address travels");
        assertEquals(2, m.get(ValueLayout.JAVA_SHORT_UNALIGNED, INTERFACES));
        assertEquals(FIXED + 2 + Counter.class.getName().length() + 2 + Gauge.class.getName().length(), b.length);
        assertEquals(new Reference(9, 4, 1L << 30, List.of(), r.interfaces()), decode(m), "read with no address: the"
                + " receiver puts in the sender's");
        Strings known = Strings.of(at, r.interfaces());
        Reference fast = decode(m, known, null);
        assertEquals(new Reference(9, 4, 1L << 30, List.of(), r.interfaces()), fast);
        assertSame(known.interfaces(), fast.interfaces(), "a hold's strings matched: no string made");
        Reference one = new Reference(9, 4, 1L << 30, at, List.of(Counter.class.getName()));
        byte[] both = encodeFromSender(one, true);
        assertEquals(FIXED, both.length, "neither strings travel");
        assertEquals(DECLARED | SENDER, MemorySegment.ofArray(both).get(ValueLayout.JAVA_INT_UNALIGNED, FLAGS));
        assertEquals(new Reference(9, 4, 1L << 30, List.of(), one.interfaces()),
                decode(MemorySegment.ofArray(both), null, Counter.class));
        assertFalse(fromSender(MemorySegment.ofArray(encode(one))));
        MemorySegment named = MemorySegment.ofArray(encode(one));
        named.set(ValueLayout.JAVA_INT_UNALIGNED, FLAGS, SENDER);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> decode(named));
        assertTrue(e.getMessage().contains("naming 2 addresses"), e.getMessage());
    }

    /**
     * From the object's owner {@code weightIfSame} takes only the SENDER forms (no address to check; a named one goes
     * the general way, which checks the owner's addresses), each as {@code decode} reads it with the sender's addresses.
     */
    @Test
    void anArrivalFromItsOwnerIsRecognisedWordByWordOnlyInTheSenderForms() {
        Strings known = Strings.of(List.of("shm:a", "tcp://h:1"), List.of(Counter.class.getName()));
        Reference r = new Reference(9, -4, 1L << 24, known.addresses(), known.interfaces());
        byte[] named = encode(9, -4, 1L << 24, known);
        byte[] sender = encodeFromSender(r, false);
        byte[] both = encodeFromSender(r, true);
        assertEquals(-1, weightIfSame(MemorySegment.ofArray(named), 9, -4, known, true, true), "named, from its owner");
        assertEquals(-1, weightIfSame(MemorySegment.ofArray(sender), 9, -4, known, true, false), "SENDER, from another");
        assertEquals(1L << 24, weightIfSame(MemorySegment.ofArray(sender), 9, -4, known, false, true));
        assertEquals(1L << 24, weightIfSame(MemorySegment.ofArray(both), 9, -4, known, true, true));
        assertEquals(-1, weightIfSame(MemorySegment.ofArray(both), 9, -4, known, false, true), "not where another type is declared");
        java.util.function.Function<MemorySegment, Reference> withSendersAddresses =
                readWithAddresses(known, ReferenceDescriptor::fromSender);
        assertRecognisedOnlyAsDecodeReadsIt(sender, known, false, true, withSendersAddresses);
        assertRecognisedOnlyAsDecodeReadsIt(both, known, true, true, withSendersAddresses);
    }

    /**
     * A reference to an object whose owner's addresses the receiver was given before travels without them
     * ({@code KNOWN}): read with none (the receiver puts in its own), never with SENDER too, never naming addresses;
     * recognised word by word from any base but the owner, as {@code decode} reads it.
     */
    @Test
    void aReferenceWhoseOwnersAddressesTheReceiverKnowsTravelsWithoutThem() {
        Strings known = Strings.of(List.of("shm:a", "tcp://h:1"), List.of(Counter.class.getName()));
        Reference r = new Reference(9, -4, 1L << 24, known.addresses(), known.interfaces());
        byte[] k = encodeKnown(r, false);
        byte[] both = encodeKnown(r, true);
        assertEquals(FIXED, both.length, "neither strings travel");
        assertEquals(DECLARED | KNOWN, MemorySegment.ofArray(both).get(ValueLayout.JAVA_INT_UNALIGNED, FLAGS));
        assertTrue(ofKnownOwner(MemorySegment.ofArray(k)));
        assertFalse(ofKnownOwner(MemorySegment.ofArray(encode(r))));
        assertFalse(fromSender(MemorySegment.ofArray(k)));
        assertTrue(namesAddresses(MemorySegment.ofArray(encode(r))));
        assertFalse(namesAddresses(MemorySegment.ofArray(k)), "what the receiver's answer teaches is only in the named form");
        assertEquals(new Reference(9, -4, 1L << 24, List.of(), r.interfaces()), decode(MemorySegment.ofArray(k)));
        assertEquals(new Reference(9, -4, 1L << 24, List.of(), r.interfaces()),
                decode(MemorySegment.ofArray(both), null, Counter.class));
        MemorySegment twoForms = MemorySegment.ofArray(encodeKnown(r, false));
        twoForms.set(ValueLayout.JAVA_INT_UNALIGNED, FLAGS, KNOWN | SENDER);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> decode(twoForms));
        assertTrue(e.getMessage().contains("both"), e.getMessage());
        MemorySegment named = MemorySegment.ofArray(encode(r));
        named.set(ValueLayout.JAVA_INT_UNALIGNED, FLAGS, KNOWN);
        e = assertThrows(IllegalArgumentException.class, () -> decode(named));
        assertTrue(e.getMessage().contains("naming 2 addresses"), e.getMessage());

        assertEquals(1L << 24, weightIfSame(MemorySegment.ofArray(k), 9, -4, known, false, false));
        assertEquals(1L << 24, weightIfSame(MemorySegment.ofArray(both), 9, -4, known, true, false));
        assertEquals(-1, weightIfSame(MemorySegment.ofArray(k), 9, -4, known, false, true), "from its owner: SENDER only");
        java.util.function.Function<MemorySegment, Reference> withKnownAddresses =
                readWithAddresses(known, ReferenceDescriptor::ofKnownOwner);
        assertRecognisedOnlyAsDecodeReadsIt(k, known, false, withKnownAddresses);
        assertRecognisedOnlyAsDecodeReadsIt(both, known, true, withKnownAddresses);
    }

    /** {@code weightIfSame} reads the DECLARED form as {@code decode} would, where the hold's one interface is declared. */
    @Test
    void anArrivalInTheDeclaredFormIsRecognisedWordByWordOnlyWhereItsInterfaceIsDeclared() {
        Strings known = Strings.of(List.of("shm:a", "tcp://h:1"), List.of(Counter.class.getName()));
        byte[] b = encodeIn(9, -4, 1L << 24, known, true, 0);
        assertEquals(1L << 24, weightIfSame(MemorySegment.ofArray(b), 9, -4, known, true, false));
        assertEquals(-1, weightIfSame(MemorySegment.ofArray(b), 9, -4, known, false, false), "not where another type is declared");
        assertEquals(1L << 24, weightIfSame(MemorySegment.ofArray(encode(9, -4, 1L << 24, known)), 9, -4, known, true, false),
                "the named form reads the same wherever");
        assertRecognisedOnlyAsDecodeReadsIt(b, known, true, m -> decode(m, null, Counter.class));
    }

    /**
     * How a receiver reads a reference as {@code Counter}: one in a form without addresses ({@code form}) with
     * {@code known}'s, which the receiver puts in (the sender's, or the owner's it knows).
     */
    private static java.util.function.Function<MemorySegment, Reference> readWithAddresses(
            Strings known, java.util.function.Predicate<MemorySegment> form) {
        return m -> {
            Reference d = decode(m, null, Counter.class);
            return new Reference(d.owner(), d.id(), d.weight(), d.addresses().isEmpty() && form.test(m) ? known.addresses()
                    : d.addresses(), d.interfaces());
        };
    }

    /**
     * Every byte of reference {@code b} (object -4 of base 9) changed in three ways: what {@code weightIfSame} accepts
     * (where the hold's one interface is {@code declared} or not) is what {@code decoder} reads as that object, and only
     * the weight's bytes may change and still be accepted.
     */
    private static void assertRecognisedOnlyAsDecodeReadsIt(byte[] b, Strings known, boolean declared,
                                                            java.util.function.Function<MemorySegment, Reference> decoder) {
        assertRecognisedOnlyAsDecodeReadsIt(b, known, declared, false, decoder);
    }

    private static void assertRecognisedOnlyAsDecodeReadsIt(byte[] b, Strings known, boolean declared, boolean fromOwner,
                                                            java.util.function.Function<MemorySegment, Reference> decoder) {
        for (int i = 0; i < b.length; i++) {
            for (int flip : new int[] {0x01, 0x80, 0xFF}) {
                byte[] c = b.clone();
                c[i] ^= (byte) flip;
                long w = weightIfSame(MemorySegment.ofArray(c), 9, -4, known, declared, fromOwner);
                if (w >= 0) {
                    assertTrue(i >= WEIGHT && i < WEIGHT + 8, "byte " + i + " changed and still accepted");
                    assertEquals(new Reference(9, -4, w, known.addresses(), known.interfaces()), decoder.apply(MemorySegment.ofArray(c)));
                } else if (i < WEIGHT || i >= WEIGHT + 8) {
                    Reference r;
                    try {
                        r = decoder.apply(MemorySegment.ofArray(c));
                    } catch (IllegalArgumentException refused) {
                        continue;
                    }
                    assertNotEquals(new Reference(9, -4, r.weight(), known.addresses(), known.interfaces()), r,
                            "byte " + i + ": refused though decode reads it as the same object");
                }
            }
        }
    }
}
