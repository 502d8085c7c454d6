package dev.verbatim.wire;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Minimal reproducers of defects found by the graph properties and the fuzz campaign (verbatim-fuzz), kept as regression
 * tests. Tests that could hang on a regression run under a timeout in a separate thread.
 */
class WireRegressionTest {
    private final WireWriter writer = new WireWriter();
    private final WireReader reader = new WireReader();

    private Message roundTrip(Object root) {
        return reader.validate(MemorySegment.ofArray(writer.toByteArray(root)));
    }

    // ------------------------------------------------------------------------------------- shared records

    public record S(int v) {}

    public record P(S s) {}

    public static final class C {
        P a;
        S b;
        P c;

        C() {}
    }

    /** One record referenced by a class and by two records was built three times (one copy per reference). */
    @Test
    void aRecordReferencedFromSeveralPlacesIsMaterializedOnce() {
        S s = new S(7);
        C c = new C();
        c.a = new P(s);
        c.b = s;
        c.c = new P(s);
        C back = roundTrip(c).materialize(C.class);
        assertSame(back.b, back.a.s());
        assertSame(back.b, back.c.s());
    }

    public record Pair(Pair left, Pair right) {}

    /**
     * A chain of records each holding the next one twice: 64 objects. Materializing once walked every path
     * (2^64 of them) instead of every object.
     */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aDagOfSharedRecordsIsMaterializedInWorkProportionalToItsObjects() {
        Pair p = new Pair(null, null);
        for (int i = 0; i < 63; i++) p = new Pair(p, p);
        Message m = roundTrip(p);
        assertEquals(64, m.objectCount());
        Pair back = m.materialize(Pair.class);
        int depth = 0;
        for (Pair x = back; x.left() != null; x = x.left(), depth++) assertSame(x.left(), x.right());
        assertEquals(63, depth);
    }

    public record Chain(int v, Chain next) {}

    public interface ChainView { int v(); ChainView next(); }

    /**
     * A valid message can hold a cycle through records alone (the writer cannot produce one, a peer can). It must
     * be refused by the materializer with a {@link WireSchemaException}, as documented, and stay readable through
     * views. It used to loop forever, growing the heap.
     */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aCycleThroughRecordsIsRefusedByTheMaterializerAndReadableByViews() {
        byte[] b = writer.toByteArray(new Chain(0x0707_0707, new Chain(0x0808_0808, null)));
        MemorySegment seg = MemorySegment.ofArray(b);
        // The root's reference to object 1: the only 4-byte value 1 among the root's first 16 bytes.
        int at = -1;
        for (int p = MessageDescriptor.HEADER_LENGTH; p < MessageDescriptor.HEADER_LENGTH + 16; p += 4) {
            if (seg.get(MessageDescriptor.I32, p) == 1) {
                assertEquals(-1, at, "one reference to object 1");
                at = p;
            }
        }
        assertTrue(at > 0);
        seg.set(MessageDescriptor.I32, at, 0); // the root now refers to itself
        Message m = reader.validate(seg);
        ChainView v = m.view(ChainView.class);
        assertEquals(0x0707_0707, v.next().next().next().v());
        assertThrows(WireSchemaException.class, () -> m.materialize(Chain.class));
    }

    // -------------------------------------------------------------------------------------- schema interning

    public record TwoLists(List<String> x, List<String> y) {}

    /**
     * Two fields of one generic type analysed in one session got two shapes, and the second was never interned:
     * writing it threw ArrayIndexOutOfBoundsException (type serial -1), and one list in both fields was refused.
     */
    @Test
    void twoFieldsOfOneListTypeAreOneWireType() {
        List<String> shared = new ArrayList<>(List.of("a", "b"));
        for (TwoLists t : List.of(new TwoLists(List.of("a"), null), new TwoLists(null, List.of("b")), new TwoLists(shared, shared))) {
            TwoLists back = roundTrip(t).materialize(TwoLists.class);
            assertEquals(t, back);
            if (t.x() == t.y()) assertSame(back.x(), back.y(), "one list in two fields stays one list");
        }
    }

    // ---------------------------------------------------------------------------------------- boolean arrays

    public record Flags(boolean[] z) {}

    public interface FlagsView { ArrayView.OfBoolean z(); }

    /** boolean[] could not be written or materialized: MemorySegment.copy does not take boolean[]. */
    @Test
    void booleanArraysRoundTrip() {
        boolean[] z = {true, false, true, true, false};
        assertArrayEquals(z, roundTrip(z).materialize(boolean[].class));
        Message m = roundTrip(new Flags(z));
        assertArrayEquals(z, m.materialize(Flags.class).z());
        ArrayView.OfBoolean v = m.view(FlagsView.class).z();
        assertArrayEquals(z, v.toArray());
        for (int i = 0; i < z.length; i++) assertEquals(z[i], v.get(i));
    }

    /**
     * Element bytes of a boolean[] other than 0 and 1 are not checked by the validator (it never looks at primitive
     * array elements). They must then never reach a heap boolean[] raw: a boolean holding 2 is not a Java value
     * (Arrays.equals, == true and friends disagree with it).
     */
    @Test
    void aBooleanArrayElementOtherThanZeroOrOneIsRejectedOrNormalized() {
        byte[] b = writer.toByteArray(new Flags(new boolean[] {false, false, true, false, false}));
        byte[] pattern = {5, 0, 0, 0, 0, 0, 1, 0, 0}; // length 5, then the elements
        int at = indexOf(b, pattern);
        assertTrue(at > 0, "the array's bytes are in the message");
        b[at + 6] = 2;
        Message m;
        try {
            m = reader.validate(MemorySegment.ofArray(b));
        } catch (WireFormatException e) {
            return; // rejecting is fine
        }
        boolean[] z = m.materialize(Flags.class).z();
        assertArrayEquals(new boolean[] {false, false, true, false, false}, z, "materialized as a normalized true");
        assertTrue(m.view(FlagsView.class).z().get(2));
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) if (hay[i + j] != needle[j]) continue outer;
            return i;
        }
        return -1;
    }

    // --------------------------------------------------------------------------------------------- strings

    public record Text(String s) {}

    public interface TextView { String s(); }

    public interface TextCharsView { CharSequence s(); }

    /**
     * A Java string may hold unpaired surrogates; the writer writes its UTF-16 code units as they are. Reading them
     * back as a String decoded them as UTF-16LE, which replaced each lone surrogate with U+FFFD: the materialized
     * string differed from the original (and from the same field read as a CharSequence).
     */
    @Test
    void stringsWithLoneSurrogatesRoundTripUnchanged() {
        for (String s : List.of("a\uD800b", "\uDC00", "x\uDBFF", "\uDC00\uD800", "ok \uD83D\uDE00 pair")) {
            Message m = roundTrip(new Text(s));
            assertEquals(s, m.materialize(Text.class).s(), "materialized");
            assertEquals(s, m.view(TextView.class).s(), "String accessor of a view");
            assertEquals(s, m.view(TextCharsView.class).s().toString(), "CharSequence accessor of a view");
            assertEquals(s, roundTrip(s).materialize(String.class), "string root");
        }
    }

    // ------------------------------------------------------------------------ memory changed after validation

    /**
     * DESIGN §7: a validated message stays safe to read when its memory changes afterwards (a peer scribbling on
     * shared memory); the worst outcome is a WireFormatException. A reference changed to an index past the object
     * count reached the materializer's memo table unchecked: ArrayIndexOutOfBoundsException (found by the fuzz
     * campaign's "changed after validation" phase).
     */
    @Test
    void aReferenceChangedAfterValidationFailsWithAWireFormatException() {
        for (int bad : new int[] {2, 1000, Integer.MAX_VALUE, -2, Integer.MIN_VALUE}) {
            byte[] b = writer.toByteArray(new Text("hello"));
            MemorySegment seg = MemorySegment.ofArray(b);
            int at = -1;
            for (int p = MessageDescriptor.HEADER_LENGTH; p < MessageDescriptor.HEADER_LENGTH + 8; p += 4) {
                if (seg.get(MessageDescriptor.I32, p) == 1) at = p; // the root's reference to the string, object 1
            }
            assertTrue(at > 0);
            Message m = reader.validate(seg);
            TextView v = m.view(TextView.class);
            assertEquals("hello", v.s());
            seg.set(MessageDescriptor.I32, at, bad); // the peer scribbles
            assertThrows(WireFormatException.class, v::s, "String accessor, reference " + bad);
            assertThrows(WireFormatException.class, () -> m.view(TextCharsView.class).s(), "CharSequence accessor, reference " + bad);
            assertThrows(WireFormatException.class, () -> m.materialize(Text.class), "materializer, reference " + bad);
        }
    }

    public record Names(String[] names) {}

    public record Q(S first, S second) {}

    /**
     * DESIGN §7 again, with the peer writing while the materializer reads: the materializer sized a reference array
     * from the length it read in its first phase and filled it with the length it read again in its last phase, so a
     * length that grew in between escaped as ArrayIndexOutOfBoundsException.
     */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aLengthChangingDuringMaterializationFailsWithAWireFormatExceptionAtWorst() throws Exception {
        byte[] b = writer.toByteArray(new Names(new String[] {"a", "b"}));
        int at = -1;
        MemorySegment heap = MemorySegment.ofArray(b);
        for (int p = MessageDescriptor.HEADER_LENGTH; p + 12 <= b.length && at < 0; p += 4) { // [length 2][ref 2][ref 3]
            if (heap.get(MessageDescriptor.I32, p) == 2 && heap.get(MessageDescriptor.I32, p + 4) == 2 && heap.get(MessageDescriptor.I32, p + 8) == 3) at = p;
        }
        assertTrue(at > 0, "the array's length is in the message");
        int where = at;
        assertOnlyWireExceptionsWhileFlipping(b, seg -> { }, seg -> {
            seg.set(MessageDescriptor.I32, where, 1);
            seg.set(MessageDescriptor.I32, where, 2);
        }, m -> m.materialize(Names.class));
    }

    /**
     * The same with a reference: the materializer looked up, in its record-building phase, a reference it re-read
     * from memory among the objects its first phase had found; a reference changed in between to an object it had not
     * found escaped as NullPointerException (unboxing a missing map entry).
     */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aReferenceChangingDuringMaterializationFailsWithAWireFormatExceptionAtWorst() throws Exception {
        byte[] b = writer.toByteArray(new Q(new S(0x1111), new S(0x2222)));
        MemorySegment heap = MemorySegment.ofArray(b);
        int first = -1, second = -1;
        for (int p = MessageDescriptor.HEADER_LENGTH; p < MessageDescriptor.HEADER_LENGTH + 8; p += 4) {
            if (heap.get(MessageDescriptor.I32, p) == 1) first = p;
            if (heap.get(MessageDescriptor.I32, p) == 2) second = p;
        }
        assertTrue(first > 0 && second > 0);
        int f = first, sec = second;
        assertOnlyWireExceptionsWhileFlipping(b, seg -> seg.set(MessageDescriptor.I32, sec, -1), seg -> { // object 2: now unreachable
            seg.set(MessageDescriptor.I32, f, 1);
            seg.set(MessageDescriptor.I32, f, 2);
        }, m -> m.materialize(Q.class));
    }

    /**
     * Validates {@code message} in shared native memory, applies {@code after} once, then reads it up to 200,000 times
     * while another thread keeps applying {@code flip}: only WireFormatException (or WireSchemaException) may escape.
     */
    private void assertOnlyWireExceptionsWhileFlipping(byte[] message, java.util.function.Consumer<MemorySegment> after,
                                                       java.util.function.Consumer<MemorySegment> flip,
                                                       java.util.function.Consumer<Message> read) throws Exception {
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared()) {
            MemorySegment seg = arena.allocate(message.length, 8);
            MemorySegment.copy(MemorySegment.ofArray(message), 0, seg, 0, message.length);
            Message m = reader.validate(seg);
            after.accept(seg);
            java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            Thread peer = new Thread(() -> {
                while (!stop.get()) flip.accept(seg);
            }, "scribbling peer");
            peer.setDaemon(true);
            peer.start();
            try {
                for (int i = 0; i < 200_000; i++) {
                    try {
                        read.accept(m);
                    } catch (WireFormatException | WireSchemaException expected) {
                        // the worst allowed outcome
                    } catch (RuntimeException e) {
                        throw new AssertionError("read " + i + " of a message changing under it threw " + e, e);
                    }
                }
            } finally {
                stop.set(true);
                peer.join();
            }
        }
    }

    // ----------------------------------------------------------------------------------- view allocations

    public record Item(int id, String name, Integer boxed) {}

    public record Items(List<Item> items) {}

    public interface ItemView { int id(); String name(); Integer boxed(); }

    public interface ItemsView { List<ItemView> items(); }

    /**
     * A String or boxed accessor of a view built a whole Materializer, whose memo tables have one slot per object of
     * the message: each call allocated O(objects) bytes (2.4 MB per call in a 300k-object message), so reading one
     * string field of every element of a long list took time quadratic in its length. An accessor must allocate
     * what it returns, not something proportional to the rest of the message.
     */
    @Test
    void aViewAccessorAllocatesTheSameInASmallAndInALargeMessage() {
        java.util.function.LongSupplier allocated = allocationCounter();
        assumeTrue(allocated != null, "per-thread allocation counters (com.sun.management)");
        long small = bytesPerAccess(allocated, 1_000);
        long large = bytesPerAccess(allocated, 50_000);
        assertTrue(large <= small + 256, "a string and a boxed accessor allocate " + small + " bytes per call with 1k items, "
                + large + " with 50k items");
    }

    /**
     * The current thread's allocated bytes, through {@code com.sun.management.ThreadMXBean} found reflectively
     * (this test compiles inside module dev.verbatim.wire, which does not read java.management), or null.
     */
    static java.util.function.LongSupplier allocationCounter() {
        try {
            Object mx = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
            Class<?> ext = Class.forName("com.sun.management.ThreadMXBean");
            if (!ext.isInstance(mx) || !(boolean) ext.getMethod("isThreadAllocatedMemoryEnabled").invoke(mx)) return null;
            java.lang.reflect.Method get = ext.getMethod("getCurrentThreadAllocatedBytes");
            return () -> {
                try {
                    return (long) get.invoke(mx);
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException(e);
                }
            };
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    private long bytesPerAccess(java.util.function.LongSupplier allocated, int n) {
        List<Item> items = new ArrayList<>(n);
        for (int i = 0; i < n; i++) items.add(new Item(i, "n" + (i % 10), 1000 + i));
        Message m = roundTrip(new Items(items));
        ItemView v = m.view(ItemsView.class).items().get(n / 2);
        long sink = 0;
        for (int i = 0; i < 2000; i++) sink += v.name().length() + v.boxed();
        long best = Long.MAX_VALUE;
        for (int round = 0; round < 5; round++) {
            long before = allocated.getAsLong();
            for (int i = 0; i < 100; i++) sink += v.name().length() + v.boxed();
            best = Math.min(best, (allocated.getAsLong() - before) / 100);
        }
        assertTrue(sink > 0);
        return best;
    }
}
