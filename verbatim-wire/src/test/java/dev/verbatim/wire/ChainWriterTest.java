package dev.verbatim.wire;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import org.junit.jupiter.api.Test;

import static dev.verbatim.wire.MessageDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * The writer of chains (a graph whose root is a record or final class with one reference field, of its own type: a
 * linked list), which writes without the identity index: the bytes are the general writer's, and a cycle (the one way a
 * chain shares an object) or a chain that does not fit hands over to the general writer.
 */
class ChainWriterTest {
    public enum Mood { CALM, ANGRY }
    public static final class Link { int v; boolean on; Mood mood; Link next; }
    public record RLink(long big, RLink next, short s) {}
    /** Not a chain type: two references. */
    public static final class Two { int v; Two next; Two other; }

    static Link chain(int n) {
        Link head = null;
        for (int i = n - 1; i >= 0; i--) {
            Link l = new Link();
            l.v = i * 31 + 7;
            l.on = i % 3 == 0;
            l.mood = i % 5 == 0 ? null : Mood.values()[i % 2];
            l.next = head;
            head = l;
        }
        return head;
    }

    /** The message a list of {@code n} Links is, laid out by hand from the shape (what the general writer makes). */
    static byte[] expected(Link head, int n) {
        Shape s = Schema.of(Link.class).shape;
        long a = align8(s.objectSize);
        int len = (int) (HEADER_LENGTH + n * a + 8 + 8L * n);
        MemorySegment m = MemorySegment.ofArray(new byte[len]);
        m.set(I64, 0, VERSION | 1L << 16 | (long) n << 32);
        Link l = head;
        for (int k = 0; k < n; k++, l = l.next) {
            long at = HEADER_LENGTH + k * a;
            m.set(I32, at + s.field("v").offset, l.v);
            m.set(I8, at + s.field("on").offset, (byte) (l.on ? 1 : 0));
            m.set(I32, at + s.field("mood").offset, l.mood == null ? -1 : l.mood.ordinal());
            m.set(I32, at + s.field("next").offset, l.next == null ? -1 : k + 1);
            m.set(I64, HEADER_LENGTH + n * a + 8 + 8L * k, objectEntry((int) at, FIRST_TABLE_TYPE_ID));
        }
        m.set(I64, HEADER_LENGTH + n * a, s.fingerprint);
        return m.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
    }

    @Test
    void chainsAreWrittenAsTheGeneralWriterWritesThem() {
        WireWriter w = new WireWriter();
        for (int n : new int[] {1, 2, 3, 63, 64, 65, 200, 5000}) {
            Link head = chain(n);
            byte[] b = w.toByteArray(head);
            assertArrayEquals(expected(head, n), b, "list of " + n);
            assertCopyWritesTheSame(b, new WireReader().validate(MemorySegment.ofArray(b)).materialize(Link.class));
        }
        RLink r = null;
        for (int i = 0; i < 100; i++) r = new RLink(i * 1_000_000_007L, r, (short) i);
        byte[] b = w.toByteArray(r);
        assertEquals(r, new WireReader().validate(MemorySegment.ofArray(b)).materialize(RLink.class));
        assertNothingHeld(w);
    }

    /**
     * The materialized copy of {@code message} is the graph that was written: written again (by a fresh writer), it
     * is the same message byte for byte. A message's bytes are a function of the graph's values, sharing and cycles
     * (the fuzz module's GraphProperties.writingIsDeterministic), so a copy with a value, a share or a cycle of its own would differ.
     * (Graphs are compared object by object by the fuzz module's GraphOracle, which wire's tests cannot reach.)
     */
    static void assertCopyWritesTheSame(byte[] message, Object copy) {
        assertArrayEquals(message, new WireWriter().toByteArray(copy), "the materialized copy, written again");
    }

    /** A writer keeps no reference to the graph it wrote (its queue is cleared, or was not used). */
    static void assertNothingHeld(WireWriter w) {
        for (Object o : w.objects) assertNull(o);
    }

    @Test
    void cyclesAreKept() {
        // A lasso: a tail of mu nodes into a cycle of lambda, for small and larger sizes of each (Brent's algorithm
        // finds the cycle after a number of steps that depends on both).
        WireWriter w = new WireWriter();
        for (int mu : new int[] {0, 1, 2, 5, 17, 100}) {
            for (int lambda : new int[] {1, 2, 3, 7, 64, 129}) {
                Link head = chain(mu + lambda);
                Link last = head;
                while (last.next != null) last = last.next;
                Link into = head;
                for (int i = 0; i < mu; i++) into = into.next;
                last.next = into;
                long size = w.sizeOf(head);
                byte[] b = w.toByteArray(head);
                assertEquals(size, b.length);
                assertEquals(mu + lambda, MemorySegment.ofArray(b).get(I32, OBJECT_COUNT_OFFSET), mu + "+" + lambda);
                Link back = new WireReader().validate(MemorySegment.ofArray(b)).materialize(Link.class);
                assertCopyWritesTheSame(b, back);
                assertNothingHeld(w);
            }
        }
    }

    @Test
    void aChainThatDoesNotFitIsRefusedAndOneThatFitsExactlyIsWritten() {
        WireWriter w = new WireWriter();
        Link head = chain(300);
        long size = w.sizeOf(head);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment exact = arena.allocate(size);
            assertEquals(size, w.tryWrite(head, exact, 0));
            assertArrayEquals(expected(head, 300), exact.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
            MemorySegment objectsOnly = arena.allocate(size - 8L * 300);
            assertEquals(-1, w.tryWrite(head, objectsOnly, 0));
            assertEquals(-1, w.tryWrite(head, arena.allocate(size - 1), 0));
            assertThrows(IndexOutOfBoundsException.class, () -> w.write(head, arena.allocate(100), 0));
            // a cycle that does not fit as a chain (it would repeat) but fits once shared
            Link ring = chain(50);
            Link l = ring;
            while (l.next != null) l = l.next;
            l.next = ring;
            long ringSize = w.sizeOf(ring);
            MemorySegment ringExact = arena.allocate(ringSize);
            assertEquals(ringSize, w.tryWrite(ring, ringExact, 0));
            assertCopyWritesTheSame(ringExact.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                    new WireReader().validate(ringExact).materialize(Link.class));
            // A cycle is found within a few of its lengths, not when the space runs out: in 512 KiB a chain writer that
            // missed it would record some 32,000 entries before handing over.
            Link three = chain(3);
            three.next.next.next = three;
            assertEquals(w.sizeOf(three), w.tryWrite(three, arena.allocate(512 * 1024), 0));
            assertTrue(w.entries.length <= 1024, "entries grew to " + w.entries.length);
        }
    }

    @Test
    void aLongChainNeedsNoRecursionAndTypesThatAreNotChainsAreWrittenAsBefore() {
        WireWriter w = new WireWriter();
        Link head = chain(1_000_000);
        byte[] b = w.toByteArray(head);
        assertEquals(1_000_000, new WireReader().validate(MemorySegment.ofArray(b)).objectCount());
        assertFalse(StructWriterGenerator.isChainType(Schema.of(Two.class)));
        assertTrue(StructWriterGenerator.isChainType(Schema.of(Link.class)));
        assertTrue(StructWriterGenerator.isChainType(Schema.of(RLink.class)));
        Two t = new Two();
        t.next = new Two();
        t.other = t.next;
        t.next.next = t;
        byte[] two = w.toByteArray(t);
        assertCopyWritesTheSame(two, new WireReader().validate(MemorySegment.ofArray(two)).materialize(Two.class));
    }
}
