package dev.verbatim.wire;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The writer of flat roots (a record or class whose reference fields hold only leaves: strings, boxes, primitive arrays,
 * records of primitives and enums, {@code Instant}, {@code UUID}...), which writes a message in one pass without the
 * identity index or the queue: its bytes are the general writer's whatever is null, shared or long, and it refuses what
 * does not fit as the general writer does.
 */
class FlatWriterTest {
    public enum Side { BUY, SELL }
    /** A leaf of the test's own: a record of primitives and an enum (it gets a type-table entry after the root's). */
    public record Point(int x, long y, Side side) {}
    public record Deal(long id, double price, Side side, String symbol, String venue, Instant at, Instant settled,
                       UUID order, Integer lots, byte[] blob, Point where, LocalDate day) {}
    /** Flat with no reference at all. */
    public record Plain(int a, long b, Side side) {}
    /** A flat class (fields read directly), not a record. */
    public static final class Ticket { public String name; public long seat; public String row; public Point spot; }

    public record WithList(String name, List<String> tags) {}
    public record WithOptional(Optional<String> name) {}
    public record WithNested(String name, Deal deal) {}
    public record WithText(CharSequence text) {}
    public static class Open { public int x; }
    public record WithOpen(Open open) {}
    public record LeafWithString(String s) {}
    public record WithStringyLeaf(LeafWithString leaf) {}

    /** A leaf of 64 longs: 32 of them in one root are past the JIT's method size (and the class file's), written the general way. */
    public record Big(long f00, long f01, long f02, long f03, long f04, long f05, long f06, long f07, long f08, long f09, long f10, long f11, long f12, long f13, long f14, long f15, long f16, long f17, long f18, long f19, long f20, long f21, long f22, long f23, long f24, long f25, long f26, long f27, long f28, long f29, long f30, long f31, long f32, long f33, long f34, long f35, long f36, long f37, long f38, long f39, long f40, long f41, long f42, long f43, long f44, long f45, long f46, long f47, long f48, long f49, long f50, long f51, long f52, long f53, long f54, long f55, long f56, long f57, long f58, long f59, long f60, long f61, long f62, long f63) {}
    public record ManyBigs(Big b00, Big b01, Big b02, Big b03, Big b04, Big b05, Big b06, Big b07, Big b08, Big b09, Big b10, Big b11, Big b12, Big b13, Big b14, Big b15, Big b16, Big b17, Big b18, Big b19, Big b20, Big b21, Big b22, Big b23, Big b24, Big b25, Big b26, Big b27, Big b28, Big b29, Big b30, Big b31) {}
    public record HoldsMany(ManyBigs r) {}
    /** 28 strings: their pairwise compares put writeFlat past what the JIT compiles. */
    public record Strings28(String s00, String s01, String s02, String s03, String s04, String s05, String s06, String s07, String s08, String s09, String s10, String s11, String s12, String s13, String s14, String s15, String s16, String s17, String s18, String s19, String s20, String s21, String s22, String s23, String s24, String s25, String s26, String s27) {}
    public record Strings12(String s00, String s01, String s02, String s03, String s04, String s05, String s06, String s07, String s08, String s09, String s10, String s11) {}
    /** Accessors that throw, or count: the general writer's order of calls is kept. */
    public record Throwing(long a, String s) {
        public long a() { throw new IllegalStateException("a"); }
        public String s() { throw new UnsupportedOperationException("s"); }
    }
    /** A leaf of every primitive kind but int and long (the Point above has those). */
    public record Kinds(boolean b, char c, float f, short s, byte y, double d) {}
    public sealed interface Shape2 permits Square, Circle {}
    public record Square(int side) implements Shape2 {}
    public record Circle(double r) implements Shape2 {}
    public record Mixed(Kinds kinds, Long big, Character ch, Boolean flag, Double real, int[] ints, long[] longs,
                        char[] chars, Square square, UUID id) {}
    public interface Customer extends ByReference { String name(); }
    public record Person(String name) implements Customer {}
    public record Order(String note, Customer customer, String by, Customer other) {}

    static final String LONG = "L".repeat(300);
    static final String WIDE = "Zürich → 東京";

    static List<Deal> deals() {
        String sym = "AAPL";
        Instant t = Instant.ofEpochSecond(1_700_000_000L, 123_456_789);
        UUID u = new UUID(0x1234_5678_9abc_def0L, 0x0fed_cba9_8765_4321L);
        Point p = new Point(-3, 1L << 40, Side.SELL);
        List<Deal> l = new ArrayList<>();
        l.add(new Deal(1, 2.5, Side.BUY, sym, "XNAS", t, Instant.EPOCH, u, 7, new byte[] {1, 2, 3}, p, LocalDate.of(2026, 11, 29)));
        l.add(new Deal(0, 0, null, null, null, null, null, null, null, null, null, null));
        l.add(new Deal(2, -0.0, Side.SELL, sym, sym, t, t, u, null, new byte[0], p, null)); // shared string, shared Instant
        l.add(new Deal(3, Double.NaN, Side.BUY, new String("AAPL"), "AAPL", t, Instant.ofEpochSecond(t.getEpochSecond(),
                t.getNano()), u, Integer.MIN_VALUE, new byte[1000], null, LocalDate.MIN)); // equal, not the same: two each
        l.add(new Deal(4, 1e300, null, null, sym, null, t, null, 0, null, p, null)); // nulls between leaves
        l.add(new Deal(5, 1, Side.BUY, LONG, WIDE, Instant.MAX, Instant.MIN, new UUID(0, 0), 1, new byte[] {-1}, p, LocalDate.MAX));
        l.add(new Deal(6, 1, Side.BUY, WIDE, LONG, null, null, u, null, null, new Point(0, 0, null), null));
        l.add(new Deal(7, 1, Side.BUY, "", "", t, null, null, null, null, null, null)); // two empty strings, the same
        return l;
    }

    static byte[] general(Object root) {
        WireWriter w = new WireWriter();
        w.flatRoots = false;
        return w.toByteArray(root);
    }

    @Test
    void flatRootsAreWrittenAsTheGeneralWriterWritesThem() {
        WireWriter w = new WireWriter();
        List<Object> roots = new ArrayList<>(deals());
        roots.add(new Plain(1, 2, Side.SELL));
        roots.add(new Plain(0, 0, null));
        Ticket k = new Ticket();
        k.name = "Ada";
        k.row = k.name;
        k.seat = 42;
        k.spot = new Point(1, 2, Side.BUY);
        roots.add(k);
        roots.add(new Ticket());
        for (Object root : roots) {
            byte[] b = w.toByteArray(root);
            assertArrayEquals(general(root), b, root.toString());
            assertEquals(w.sizeOf(root), b.length);
            Object back = new WireReader().validate(MemorySegment.ofArray(b)).materialize(root.getClass());
            ChainWriterTest.assertCopyWritesTheSame(b, back);
            if (root instanceof Deal d) {
                Deal e = (Deal) back;
                assertEquals(d.symbol(), e.symbol());
                assertEquals(d.venue(), e.venue());
                assertEquals(d.at(), e.at());
                assertEquals(d.order(), e.order());
                assertArrayEquals(d.blob(), e.blob());
                assertEquals(d.where(), e.where());
                assertEquals(d.day(), e.day());
                assertEquals(d.symbol() != null && d.symbol() == d.venue(), e.symbol() != null && e.symbol() == e.venue(),
                        "sharing kept: " + d);
            }
            ChainWriterTest.assertNothingHeld(w);
        }
    }

    @Test
    void theFlatWriterIsTheOneThatWrites() {
        // the types the generated writeFlat is made for, and those it is not
        for (Class<?> c : List.of(Deal.class, Plain.class, Ticket.class, Point.class)) {
            assertTrue(FlatWriterGenerator.isFlat(Schema.of(c)), c.getSimpleName());
        }
        for (Class<?> c : List.of(WithList.class, WithOptional.class, WithNested.class, WithText.class, WithOpen.class,
                WithStringyLeaf.class)) {
            assertFalse(FlatWriterGenerator.isFlat(Schema.of(c)), c.getSimpleName());
        }
        // the writers generated for them have writeFlat, which WireWriter takes for a root of the exact class
        WireWriter w = new WireWriter();
        for (Object root : List.of(deals().getFirst(), new Plain(1, 2, Side.BUY), new Ticket())) {
            long before = w.flatMessages;
            MemorySegment seg = MemorySegment.ofArray(new byte[4096]);
            assertEquals(general(root).length, w.write(root, seg, 0));
            assertEquals(before + 1, w.flatMessages, root.getClass().getSimpleName());
            assertTrue(Schema.of(root.getClass()).writer.flat(), root.getClass().getSimpleName());
        }
        long before = w.flatMessages;
        w.toByteArray(new WithNested("n", null));
        w.toByteArray(new Deal[] {deals().getFirst()});
        assertEquals(before, w.flatMessages, "not a flat root: the general writer");
        assertFalse(Schema.of(WithNested.class).writer.flat());
    }

    @Test
    void moreLeafKindsSlotsAndValueRootsAreWrittenAsTheGeneralWriterWritesThem() {
        WireWriter w = new WireWriter();
        Kinds k = new Kinds(true, '\uFFFF', -0.0f, Short.MIN_VALUE, (byte) -1, Double.NaN);
        List<Object> roots = List.of(
                new Mixed(k, Long.MIN_VALUE, 'x', Boolean.TRUE, -0.0, new int[] {1, -1}, new long[0], "hé".toCharArray(),
                        new Square(3), UUID.randomUUID()),
                new Mixed(null, null, null, null, null, null, null, null, null, null),
                Instant.ofEpochSecond(-5, 7), new UUID(1, 2), LocalDate.of(1, 1, 1), new Square(9));
        for (Object root : roots) {
            assertArrayEquals(general(root), w.toByteArray(root), root.toString());
            Object back = new WireReader().validate(MemorySegment.ofArray(w.toByteArray(root))).materialize(root.getClass());
            ChainWriterTest.assertCopyWritesTheSame(w.toByteArray(root), back);
        }
        // reference slots in a flat root: entered in the caller's table in field order, as the general writer enters them
        Person ann = new Person("ann");
        Order o = new Order("n", ann, "n", ann);
        ReferenceSlotsTest.Table flat = new ReferenceSlotsTest.Table(), gen = new ReferenceSlotsTest.Table();
        w.references(flat);
        byte[] b = w.toByteArray(o);
        WireWriter g = new WireWriter();
        g.flatRoots = false;
        g.references(gen);
        assertArrayEquals(g.toByteArray(o), b);
        assertEquals(gen.entries, flat.entries);
        w.references(null);
        assertThrows(IllegalArgumentException.class, () -> w.toByteArray(o), "a slot with no table, as before");
    }

    @Test
    void aTypeWhoseFlatWriterWouldBeTooLargeIsWrittenTheGeneralWay() {
        Big b = new Big(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27,
                28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55,
                56, 57, 58, 59, 60, 61, 62, 63);
        ManyBigs r = new ManyBigs(b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b);
        WireWriter w = new WireWriter();
        assertEquals(general(r).length, w.sizeOf(r)); // (the writer class of ManyBigs failed to build: 83 KB of writeFlat)
        assertArrayEquals(general(r), w.toByteArray(r));
        assertArrayEquals(general(new HoldsMany(r)), w.toByteArray(new HoldsMany(r)));
        assertFalse(Schema.of(ManyBigs.class).writer.flat());
        Strings28 many = new Strings28("a", "b", "a", null, "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o",
                "p", "q", "r", "s", "t", "u", "v", "w", "x", "y", "z");
        assertArrayEquals(general(many), w.toByteArray(many));
        assertFalse(Schema.of(Strings28.class).writer.flat(), "writeFlat past the JIT's size: written the general way");
        Strings12 some = new Strings12("a", "b", "a", null, "c", "d", "e", "f", "g", "h", "i", "j");
        assertArrayEquals(general(some), w.toByteArray(some));
        assertTrue(Schema.of(Strings12.class).writer.flat());
    }

    @Test
    void accessorsAreCalledAsTheGeneralWriterCallsThem() {
        WireWriter g = new WireWriter();
        g.flatRoots = false;
        WireWriter w = new WireWriter();
        Throwing t = new Throwing(1, "s");
        MemorySegment small = MemorySegment.ofArray(new byte[16]);
        assertEquals(-1, g.tryWrite(t, small, 0));
        assertEquals(-1, w.tryWrite(t, small, 0), "the root's room is looked at before any field is read");
        MemorySegment room = MemorySegment.ofArray(new byte[256]);
        Class<?> general = assertThrows(RuntimeException.class, () -> g.tryWrite(t, room, 0)).getClass();
        assertEquals(general, assertThrows(RuntimeException.class, () -> w.tryWrite(t, room, 0)).getClass(),
                "the fields are read in the same order");
        ChainWriterTest.assertNothingHeld(w);
        assertArrayEquals(general(deals().getFirst()), w.toByteArray(deals().getFirst()), "and the writer goes on");
    }

    @Test
    void aFlatRootThatDoesNotFitIsRefusedWhereverItStops() {
        WireWriter w = new WireWriter();
        try (Arena arena = Arena.ofConfined()) {
            for (Deal d : deals()) {
                byte[] expected = general(d);
                MemorySegment seg = arena.allocate(expected.length + 64);
                for (int room = 0; room < expected.length; room++) {
                    assertEquals(-1, w.tryWrite(d, seg.asSlice(0, room), 0), "room " + room + " of " + expected.length);
                }
                assertEquals(expected.length, w.tryWrite(d, seg.asSlice(0, expected.length), 0));
                assertArrayEquals(expected, seg.asSlice(0, expected.length).toArray(ValueLayout.JAVA_BYTE));
                assertEquals(expected.length, w.tryWrite(d, seg, 24)); // at an offset, room to spare
                assertArrayEquals(expected, seg.asSlice(24, expected.length).toArray(ValueLayout.JAVA_BYTE));
            }
            Deal d = deals().getFirst();
            assertThrows(IndexOutOfBoundsException.class, () -> w.write(d, arena.allocate(40), 0));
        }
    }

    @Test
    void aWriterGoesOnAsBeforeAfterFlatMessages() {
        // the type table and stamps a flat message used do not leak into the next message, flat or general
        WireWriter w = new WireWriter();
        Deal d = deals().getFirst();
        WithNested nested = new WithNested("n", d);
        ChainWriterTest.Link chain = ChainWriterTest.chain(5);
        for (int round = 0; round < 3; round++) {
            assertArrayEquals(general(d), w.toByteArray(d));
            assertArrayEquals(general(nested), w.toByteArray(nested));
            assertArrayEquals(general(new Plain(round, round, Side.BUY)), w.toByteArray(new Plain(round, round, Side.BUY)));
            assertArrayEquals(general(chain), w.toByteArray(chain));
            assertArrayEquals(general(new Deal[] {d, d}), w.toByteArray(new Deal[] {d, d}));
        }
    }
}
