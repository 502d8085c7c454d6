package dev.verbatim.wire;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/**
 * What the materializer's generated code and fast paths could get wrong: the chain of a class's own field followed in
 * a loop instead of queued, records built by an explicit walk, sharing between objects reached by those paths and by
 * the queue, objects read with two bindings, evolution inside chains, and references changed after validation.
 */
class MaterializerTest {
    private static final WireWriter W = new WireWriter();
    private static final WireReader R = new WireReader();

    static Message roundTrip(Object o) {
        return R.validate(MemorySegment.ofArray(W.toByteArray(o)));
    }

    /** The byte offset in the message of field {@code name} of object {@code object}, which is a {@code type}. */
    static int fieldAt(Message m, int object, Class<?> type, String name) {
        Shape.Field f = Schema.of(type).shape.field(name);
        assertNotNull(f, name);
        return MessageDescriptor.entryOffset(m.entries[object]) + f.offset;
    }

    // --------------------------------------------------------------------------------------------- classes

    public static final class Node {
        int value;
        Node next;
        Node other;

        Node() {}

        Node(int value) { this.value = value; }
    }

    public static final class Holder {
        Node a;
        Node b;
        List<Node> list;

        Holder() {}
    }

    @Test
    void aChainSharesItsNodesWithFieldsAndListsFilledFromTheQueue() {
        Node[] n = new Node[6];
        for (int i = 0; i < n.length; i++) n[i] = new Node(i);
        for (int i = 0; i + 1 < n.length; i++) n[i].next = n[i + 1];
        n[5].next = n[2];   // the chain closes on itself
        n[1].other = n[4];  // a second reference into the chain, ahead of it
        n[4].other = n[0];  // and one behind it
        Holder h = new Holder();
        h.a = n[3];
        h.b = n[0];
        h.list = new ArrayList<>(List.of(n[5], n[1], n[5]));
        Holder back = roundTrip(h).materialize(Holder.class);
        Node[] c = new Node[6];
        c[0] = back.b;
        for (int i = 1; i < 6; i++) c[i] = c[i - 1].next;
        for (int i = 0; i < 6; i++) assertEquals(i, c[i].value);
        assertSame(c[2], c[5].next);
        assertSame(c[4], c[1].other);
        assertSame(c[0], c[4].other);
        assertSame(c[3], back.a);
        assertEquals(List.of(c[5], c[1], c[5]), back.list);
        assertSame(c[5], back.list.get(0));
        assertSame(back.list.get(0), back.list.get(2));
        assertNull(c[0].other);
    }

    @Test
    void aRingOfNodesEndsTheChainWhereItCloses() {
        // The chain loop fills each new node next; a node must be remembered as soon as it is created, or a ring is
        // followed forever (one new copy per turn).
        Node self = new Node(7);
        self.next = self;
        Node back = roundTrip(self).materialize(Node.class);
        assertSame(back, back.next);
        Node a = new Node(0);
        a.next = new Node(1);
        a.next.next = new Node(2);
        a.next.next.next = a;
        Node c = roundTrip(a).materialize(Node.class);
        assertSame(c, c.next.next.next);
        assertEquals(2, c.next.next.value);
    }

    @Test
    void aChainStartingInTheMiddleOfAnotherChainIsFilledOnce() {
        // Materializing twice from two roots that share the tail: each copy is complete and independent.
        Node a = new Node(1);
        a.next = new Node(2);
        a.next.next = new Node(3);
        a.other = a.next.next; // the third node is met first through 'next' (chained) and again through 'other'
        Message m = roundTrip(a);
        Node x = m.materialize(Node.class);
        Node y = m.materialize(Node.class);
        assertNotSame(x, y);
        for (Node k : new Node[] {x, y}) {
            assertEquals(3, k.next.next.value);
            assertSame(k.next.next, k.other);
            assertNull(k.next.next.next);
        }
    }

    // --------------------------------------------------------------------------------------------- records

    public record RNode(int value, RNode next) {}

    @Test
    void aMillionElementListOfRecordsDoesNotOverflowTheStack() {
        int n = 1_000_000;
        RNode head = null;
        for (int i = n - 1; i >= 0; i--) head = new RNode(i, head);
        try (Arena arena = Arena.ofConfined()) {
            long size = W.sizeOf(head);
            MemorySegment seg = arena.allocate(size, 8);
            W.write(head, seg, 0);
            RNode back = R.validate(seg).materialize(RNode.class);
            int k = 0;
            for (RNode x = back; x != null; x = x.next(), k++) assertEquals(k, x.value());
            assertEquals(n, k);
        }
    }

    public record Leaf(String name) {}

    public record Inner(Leaf leaf, Leaf other) {}

    public static final class Mid {
        Inner inner;
        Outer back;
        Leaf leaf;

        Mid() {}
    }

    public record Outer(Mid mid, Leaf leaf, Inner inner, List<Inner> inners) {}

    @Test
    void recordsInsideClassesInsideRecordsShareWhatTheyShare() {
        Leaf shared = new Leaf("shared");
        Inner inner = new Inner(shared, new Leaf("other"));
        Mid mid = new Mid();
        Outer outer = new Outer(mid, shared, inner, List.of(inner, new Inner(shared, shared)));
        mid.inner = inner;
        mid.back = outer; // a cycle through a class back to the root record
        mid.leaf = shared;
        Outer back = roundTrip(outer).materialize(Outer.class);
        assertSame(back, back.mid().back, "the class points back at the root record");
        assertSame(back.inner(), back.mid().inner, "one record held by a record and by a class");
        assertSame(back.inner(), back.inners().get(0), "... and by a list");
        assertSame(back.leaf(), back.inner().leaf());
        assertSame(back.leaf(), back.mid().leaf);
        assertSame(back.leaf(), back.inners().get(1).leaf());
        assertSame(back.leaf(), back.inners().get(1).other());
        assertEquals("other", back.inner().other().name());
        assertNotSame(back.leaf(), back.inner().other());
    }

    public record Pair(RNode a, RNode b) {}

    @Test
    void aRecordReachedByTwoPathsOfTheWalkIsBuiltOnce() {
        RNode tail = new RNode(3, null);
        RNode mid = new RNode(2, tail);
        Pair p = new Pair(new RNode(1, mid), mid);
        Pair back = roundTrip(p).materialize(Pair.class);
        assertSame(back.a().next(), back.b());
        assertEquals(3, back.b().next().value());
    }

    public record Chain(int v, Chain next) {}

    @Test
    void aCycleThroughRecordsAloneIsRefusedWhereverItCloses() {
        // Five records; the last one's next is changed to each earlier one (and itself): a valid message, a record cycle.
        for (int target = 0; target < 5; target++) {
            Chain c = null;
            for (int i = 4; i >= 0; i--) c = new Chain(i, c);
            byte[] b = W.toByteArray(c);
            MemorySegment seg = MemorySegment.ofArray(b);
            Message probe = R.validate(seg);
            seg.set(MessageDescriptor.I32, fieldAt(probe, 4, Chain.class, "next"), target);
            Message m = R.validate(seg);
            WireSchemaException e = assertThrows(WireSchemaException.class, () -> m.materialize(Chain.class));
            assertTrue(e.getMessage().contains("cycle through record"), e.getMessage());
        }
    }

    public sealed interface Expr permits Lit, Add, Box {}

    public record Lit(int v) implements Expr {}

    public record Add(Expr l, Expr r) implements Expr {}

    public static final class Box implements Expr {
        Expr inside;

        Box() {}
    }

    @Test
    void sealedCasesMixRecordsAndClasses() {
        Lit one = new Lit(1);
        Box box = new Box();
        Add add = new Add(new Add(one, box), one);
        box.inside = add; // a cycle through the class case
        Add back = (Add) roundTrip(add).materialize(Expr.class);
        Add left = (Add) back.l();
        assertSame(left.l(), back.r());
        assertEquals(1, ((Lit) back.r()).v());
        assertSame(back, ((Box) left.r()).inside);
    }

    @Test
    void aSealedRootIsReadAsTheCaseItIsEachTime() {
        // The root cache is keyed by the class asked for and the root's shape: alternate the cases under one class.
        for (int i = 0; i < 4; i++) {
            Expr e = i % 2 == 0 ? new Lit(i) : new Add(new Lit(i), new Lit(-i));
            assertEquals(e, roundTrip(e).materialize(Expr.class));
        }
        assertEquals(new Lit(5), roundTrip(new Lit(5)).materialize(Lit.class));
    }

    // --------------------------------------------------------------------------------------------- two bindings

    public record Point(int x, int y) {}

    public interface PointView { int x(); int y(); }

    public record Points(List<Point> a, List<Point> b, Point p, Point q) {}

    public record PointsRead(List<Point> a, List<PointView> b, Point p, PointView q) {}

    @Test
    void oneObjectReadWithTwoBindingsIsTwoHeapObjectsEachShared() {
        Point shared = new Point(1, 2);
        List<Point> list = new ArrayList<>(List.of(shared, new Point(3, 4), shared));
        Message m = roundTrip(new Points(list, list, shared, shared));
        PointsRead r = m.materialize(PointsRead.class);
        assertEquals(List.of(new Point(1, 2), new Point(3, 4), new Point(1, 2)), r.a());
        assertSame(r.p(), r.a().get(0), "the record is one object wherever it is read as a record");
        assertSame(r.a().get(0), r.a().get(2));
        assertEquals(3, r.b().size());
        assertNotSame((Object) r.a(), r.b(), "the list read as records and read as views: two lists");
        assertEquals(4, r.b().get(1).y());
        assertSame(r.q(), r.b().get(0), "the view is one object wherever it is read as a view");
        assertEquals(2, r.q().y());
    }

    // --------------------------------------------------------------------------------------------- evolution

    public static final class NodeV1 {
        int value;
        String tag;
        NodeV1 next;

        NodeV1() {}
    }

    /** Another version: tag removed, weight added (with a constructor default), next kept. */
    public static final class NodeV2 {
        int value;
        double weight = 0.5;
        NodeV2 next;

        NodeV2() {}
    }

    public record HeadV1(String title, NodeV1 first, long count) {}

    public record HeadV2(NodeV2 first, String title, int extra) {}

    @Test
    void evolutionAppliesAlongAChainAndInsideRecords() {
        NodeV1 first = null;
        for (int i = 9; i >= 0; i--) {
            NodeV1 n = new NodeV1();
            n.value = i;
            n.tag = "t" + i;
            n.next = first;
            first = n;
        }
        Message m = roundTrip(new HeadV1("list", first, 10));
        HeadV2 h = m.materialize(HeadV2.class);
        assertEquals("list", h.title());
        assertEquals(0, h.extra(), "a record field the writer lacks reads as its default");
        int k = 0;
        for (NodeV2 n = h.first(); n != null; n = n.next, k++) {
            assertEquals(k, n.value);
            assertEquals(0.5, n.weight, "a class field the writer lacks keeps what the constructor set");
        }
        assertEquals(10, k);
    }

    // --------------------------------------------------------------------------------------------- broken types

    public static final class NoDefault {
        int x;

        NoDefault(int x) { this.x = x; }
    }

    public record MaybeBroken(int id, NoDefault inner) {}

    @Test
    void aTypeThatCannotBeConstructedFailsOnlyWhenAnObjectOfItIsMet() {
        assertEquals(new MaybeBroken(3, null), roundTrip(new MaybeBroken(3, null)).materialize(MaybeBroken.class));
        WireSchemaException e = assertThrows(WireSchemaException.class,
                () -> roundTrip(new MaybeBroken(3, new NoDefault(4))).materialize(MaybeBroken.class));
        assertTrue(e.getMessage().contains("no-argument constructor"), e.getMessage());
    }

    // --------------------------------------------------------------------------------------------- changed after validation

    public record Flagged(boolean on, Level level, String name, Node node) {}

    public enum Level { LOW, HIGH }

    @Test
    void referencesChangedAfterValidationFailWithAWireFormatException() {
        Node n0 = new Node(0);
        n0.next = new Node(1);
        n0.next.next = new Node(2);
        Flagged f = new Flagged(true, Level.HIGH, "name", n0);
        byte[] original = W.toByteArray(f);
        Message probe = R.validate(MemorySegment.ofArray(original.clone()));
        // Objects, breadth-first: 0 Flagged, 1 "name", 2 n0, 3 n1, 4 n2.
        int objects = probe.objectCount();
        assertEquals(5, objects);
        assertSame(Shape.STRING_SHAPE, probe.shapeOf(1));
        for (int i = 2; i < 5; i++) assertSame(Schema.of(Node.class).shape, probe.shapeOf(i));
        int[] refs = {fieldAt(probe, 0, Flagged.class, "name"), fieldAt(probe, 0, Flagged.class, "node"),
                fieldAt(probe, 2, Node.class, "next"), fieldAt(probe, 3, Node.class, "next"), fieldAt(probe, 4, Node.class, "other")};
        int[] bad = {objects, objects + 7, -2, Integer.MAX_VALUE, Integer.MIN_VALUE, 0, 1, 2, 3, 4, -1};
        for (int at : refs) {
            for (int v : bad) {
                MemorySegment seg = MemorySegment.ofArray(original.clone());
                Message m = R.validate(seg);
                int before = seg.get(MessageDescriptor.I32, at);
                seg.set(MessageDescriptor.I32, at, v);
                if (v == before) continue;
                // Out of range, or an object of another type: Flagged (0) and "name" (1) are never a Node or a String
                // where the other is expected. Node -> Node rewirings (2..4) are valid graphs and must materialize.
                try {
                    Flagged back = m.materialize(Flagged.class);
                    assertTrue(at != refs[0] && (v == -1 || v >= 2 && v < objects) || at == refs[0] && v == -1,
                            "reference at " + at + " changed to " + v + " was accepted: " + back);
                } catch (WireFormatException expected) {
                    assertTrue(v < 2 || v >= objects || at == refs[0], "reference at " + at + " changed to " + v + ": " + expected);
                }
            }
        }
        MemorySegment seg = MemorySegment.ofArray(original.clone());
        Message m = R.validate(seg);
        seg.set(MessageDescriptor.I8, fieldAt(m, 0, Flagged.class, "on"), (byte) 2);
        assertThrows(WireFormatException.class, () -> m.materialize(Flagged.class), "a boolean changed to 2");
        seg.set(MessageDescriptor.I8, fieldAt(m, 0, Flagged.class, "on"), (byte) 1);
        seg.set(MessageDescriptor.I32, fieldAt(m, 0, Flagged.class, "level"), 2);
        assertThrows(WireFormatException.class, () -> m.materialize(Flagged.class), "an enum ordinal out of range");
        seg.set(MessageDescriptor.I32, fieldAt(m, 0, Flagged.class, "level"), -1);
        assertNull(m.materialize(Flagged.class).level());
        int name = MessageDescriptor.entryOffset(m.entries[1]);
        seg.set(MessageDescriptor.I32, name, 1 << 20);
        assertThrows(WireFormatException.class, () -> m.materialize(Flagged.class), "a string length past the tables");
        seg.set(MessageDescriptor.I32, name, MessageDescriptor.STRING_UTF16_BIT | 3); // past its object, not the tables
        assertEquals(3, m.materialize(Flagged.class).name().length(), "a changed string reads as its new value");
    }

    @Test
    void aRecordChainChangedAfterValidationFailsWithAWireException() {
        RNode head = null;
        for (int i = 5; i >= 0; i--) head = new RNode(i, head);
        byte[] original = W.toByteArray(new Pair(head, head.next()));
        Message probe = R.validate(MemorySegment.ofArray(original.clone()));
        int objects = probe.objectCount();
        for (int obj = 1; obj < objects; obj++) {
            for (int v = -3; v < objects + 3; v++) {
                MemorySegment seg = MemorySegment.ofArray(original.clone());
                Message m = R.validate(seg);
                seg.set(MessageDescriptor.I32, fieldAt(m, obj, RNode.class, "next"), v);
                try {
                    Pair back = m.materialize(Pair.class);
                    assertTrue(v == -1 || v > obj && v < objects, "next of " + obj + " changed to " + v + " was accepted");
                    assertNotNull(back.a());
                } catch (WireFormatException e) {
                    // out of range, the wrong type (the root), or a cycle back along the chain that the validated
                    // message did not have: a change after validation, never a WireSchemaException about the types
                    assertTrue(v < -1 || v == 0 || v >= objects || v >= 1 && v <= obj, "next of " + obj + " changed to " + v + ": " + e);
                }
            }
        }
    }
}
