package dev.verbatim.wire;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class RoundTripTest {
    public record Point(int x, int y) {}

    public interface PointView { int x(); int y(); }

    public enum Color { RED, GREEN, BLUE }

    public record Everything(boolean b, byte by, char c, short s, int i, long l, float f, double d,
                             String str, Color color, Integer boxed, int[] ints, byte[] bytes, String[] strs,
                             List<Point> points, Point p, Point[] parr, long[] longs) {}

    public interface EverythingView {
        boolean b(); byte by(); char c(); short s(); int i(); long l(); float f(); double d();
        String str(); CharSequence strView(); Color color(); Integer boxed(); int[] ints(); ArrayView.OfByte bytes();
        List<PointView> points(); PointView p(); PointView[] parr(); ArrayView.OfLong longs();
    }

    public static final class Node {
        int value;
        Node next;
        Node() {}
        Node(int value, Node next) { this.value = value; this.next = next; }
    }

    public interface NodeView { int value(); NodeView next(); }
    public interface ChainsView { NodeView first(); NodeView second(); CharSequence tag(); ChainsView other(); }

    public sealed interface Shape permits Circle, Square {}
    public record Circle(double r) implements Shape {}
    public record Square(double side) implements Shape {}
    public record Drawing(List<Shape> shapes, Shape main) {}

    private static final WireWriter W = new WireWriter();
    private static final WireReader R = new WireReader();

    static Message roundTrip(Object o) {
        byte[] b = W.toByteArray(o);
        assertEquals(b.length, W.sizeOf(o));
        return R.validate(MemorySegment.ofArray(b));
    }

    static Everything sample() {
        return new Everything(true, (byte) -7, 'λ', (short) -300, 123456, -9_000_000_000L, 1.5f, -2.25,
                "héllo wörld ✓", Color.BLUE, 42, new int[] {1, -2, 3}, new byte[] {9, 8, 7, 6, 5},
                new String[] {"a", null, "ccc"}, List.of(new Point(1, 2), new Point(3, 4)), new Point(5, 6),
                new Point[] {new Point(7, 8), null}, new long[] {Long.MIN_VALUE, 0, Long.MAX_VALUE});
    }

    @Test
    void recordMaterializesEqual() {
        Everything e = sample();
        Everything back = roundTrip(e).materialize(Everything.class);
        assertEquals(e.str(), back.str());
        assertEquals(e.color(), back.color());
        assertArrayEquals(e.ints(), back.ints());
        assertArrayEquals(e.bytes(), back.bytes());
        assertArrayEquals(e.strs(), back.strs());
        assertEquals(e.points(), back.points());
        assertEquals(e.p(), back.p());
        assertArrayEquals(e.parr(), back.parr());
        assertArrayEquals(e.longs(), back.longs());
        assertEquals(e.b(), back.b());
        assertEquals(e.c(), back.c());
        assertEquals(e.l(), back.l());
        assertEquals(e.d(), back.d());
        assertEquals(e.boxed(), back.boxed());
    }

    @Test
    void viewReadsEveryKindOfField() {
        Everything e = sample();
        // EverythingView has an extra field strView (an added field: default null) and lacks nothing.
        EverythingView v = roundTrip(e).view(EverythingView.class);
        assertTrue(v.b());
        assertEquals(-7, v.by());
        assertEquals('λ', v.c());
        assertEquals(-300, v.s());
        assertEquals(123456, v.i());
        assertEquals(-9_000_000_000L, v.l());
        assertEquals(1.5f, v.f());
        assertEquals(-2.25, v.d());
        assertEquals("héllo wörld ✓", v.str());
        assertNull(v.strView());
        assertEquals(Color.BLUE, v.color());
        assertEquals(42, v.boxed());
        assertArrayEquals(new int[] {1, -2, 3}, v.ints());
        assertEquals(5, v.bytes().length());
        assertEquals(7, v.bytes().get(2));
        assertEquals(2, v.points().size());
        assertEquals(3, v.points().get(1).x());
        assertEquals(6, v.p().y());
        assertEquals(8, v.parr()[0].y());
        assertNull(v.parr()[1]);
        assertEquals(Long.MAX_VALUE, v.longs().get(2));
    }

    @Test
    void recordAndInterfaceShareFingerprint() {
        assertEquals(Schema.fingerprint(Point.class), Schema.fingerprint(PointView.class));
        assertEquals(Schema.fingerprint(Node.class), Schema.fingerprint(NodeView.class));
        assertNotEquals(Schema.fingerprint(Point.class), Schema.fingerprint(Node.class));
    }

    @Test
    void cyclesAndSharingArePreserved() {
        Node a = new Node(1, null);
        Node b = new Node(2, a);
        a.next = b; // cycle
        Node back = roundTrip(a).materialize(Node.class);
        assertEquals(1, back.value);
        assertEquals(2, back.next.value);
        assertSame(back, back.next.next);
        NodeView v = roundTrip(a).view(NodeView.class);
        assertEquals(1, v.next().next().value());

        Point shared = new Point(1, 1);
        record Pair(Point a, Point b) {}
        Pair p = roundTrip(new Pair(shared, shared)).materialize(Pair.class);
        assertSame(p.a(), p.b());
    }

    @Test
    void sealedHierarchies() {
        Drawing d = new Drawing(List.of(new Circle(1), new Square(2), new Circle(3)), new Square(9));
        Message m = roundTrip(d);
        Drawing back = m.materialize(Drawing.class);
        assertEquals(d, back);
    }

    @Test
    void millionElementListDoesNotOverflowTheStack() {
        Node head = null;
        int n = 1_000_000;
        for (int i = n - 1; i >= 0; i--) head = new Node(i, head);
        try (Arena arena = Arena.ofConfined()) {
            long size = W.sizeOf(head);
            MemorySegment seg = arena.allocate(size, 8);
            assertEquals(size, W.write(head, seg, 0));
            Message m = R.validate(seg);
            assertEquals(n, m.objectCount());
            NodeView v = m.view(NodeView.class);
            long sum = 0;
            int count = 0;
            for (NodeView x = v; x != null; x = x.next()) { sum += x.value(); count++; }
            assertEquals(n, count);
            assertEquals((long) n * (n - 1) / 2, sum);
            Node back = m.materialize(Node.class);
            int k = 0;
            for (Node x = back, y = head; x != null || y != null; x = x.next, y = y.next, k++) {
                assertNotNull(x);
                assertNotNull(y);
                assertEquals(y.value, x.value);
            }
            assertEquals(n, k);
        }
    }

    @Test
    void byteArrayRootIsViewedWithoutCopy() {
        byte[] data = new byte[1 << 20];
        for (int i = 0; i < data.length; i++) data[i] = (byte) (i * 31);
        Message m = roundTrip(data);
        ArrayView.OfByte v = m.view(ArrayView.OfByte.class);
        assertEquals(data.length, v.length());
        assertEquals(data[12345], v.get(12345));
        assertArrayEquals(data, m.materialize(byte[].class));
    }

    @Test
    void nullRoot() {
        Message m = roundTrip(null);
        assertEquals(0, m.objectCount());
        assertNull(m.view(NodeView.class));
    }
}
