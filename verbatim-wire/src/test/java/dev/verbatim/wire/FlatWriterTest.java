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
            w.toByteArray(root);
            assertTrue(Schema.of(root.getClass()).writer.flat(), root.getClass().getSimpleName());
        }
        w.toByteArray(new WithNested("n", null));
        assertFalse(Schema.of(WithNested.class).writer.flat());
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
