package dev.verbatim.fuzz;

import dev.verbatim.fuzz.FuzzTypes.Chain;
import dev.verbatim.fuzz.FuzzTypes.ChainV;
import dev.verbatim.fuzz.FuzzTypes.Circle;
import dev.verbatim.fuzz.FuzzTypes.Color;
import dev.verbatim.fuzz.FuzzTypes.Holder;
import dev.verbatim.fuzz.FuzzTypes.HolderV;
import dev.verbatim.fuzz.FuzzTypes.Node;
import dev.verbatim.fuzz.FuzzTypes.NodeV;
import dev.verbatim.fuzz.FuzzTypes.Prims;
import dev.verbatim.wire.ArrayView;
import dev.verbatim.wire.Message;
import dev.verbatim.wire.MessageDescriptor;
import dev.verbatim.wire.WireReader;
import dev.verbatim.wire.WireWriter;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** The one graph oracle sees values, sharing and cycles, in heap graphs and in views alike. */
class GraphOracleTest {
    private static Holder holder(Chain chain, Holder inner) {
        return new Holder(new Prims(true, (byte) 1, 'c', (short) 2, 3, 4L, 5f, 6d), null, null, "t\u00e9xt \ud83d\ude00",
                null, null, Color.BLUE, null, null, null, null, new Circle(1.5, null), null, null, chain, null, null, null, inner);
    }

    private static Message message(Object root) {
        return new WireReader(MessageOracle.LIMITS).validate(MessageOracle.nativeCopy(new WireWriter().toByteArray(root)));
    }

    private static String difference(Runnable comparison) {
        return assertThrows(GraphOracle.GraphMismatch.class, comparison::run).getMessage();
    }

    @Test
    void aGraphIsTheSameAsItsCopiesItsViewsAndItsMaterializedCopy() {
        Chain shared = new Chain(5, null);
        Holder sharing = holder(shared, holder(shared, null));
        Message m = message(sharing);
        GraphOracle.assertSameGraph(sharing, sharing);
        GraphOracle.assertSameGraph(sharing, m.materialize(Holder.class));
        GraphOracle.assertViewsRead(sharing, m.view(HolderV.class));
        GraphOracle.assertSameViews(m.view(HolderV.class), m.view(HolderV.class));
        GraphOracle.read(m.view(HolderV.class));
    }

    @Test
    void aDifferentValueIsFoundAndItsPathNamed() {
        Holder a = holder(new Chain(5, null), null), b = holder(new Chain(6, null), null);
        String d = difference(() -> GraphOracle.assertSameGraph(a, b));
        assertTrue(d.contains(".chain().v()") && d.contains("expected 5 but was 6"), d);
        assertTrue(difference(() -> GraphOracle.assertViewsRead(a, message(b).view(HolderV.class))).contains(".chain().v()"));
        Holder text = new Holder(null, null, null, "other", null, null, null, null, null, null, null, null, null, null, null, null, null, null, null);
        assertTrue(difference(() -> GraphOracle.assertSameGraph(a, text)).contains("expected Chain but was null"));
        assertTrue(difference(() -> GraphOracle.assertSameGraph(new float[] {Float.NaN}, new float[] {Float.intBitsToFloat(0x7FC00001)}))
                .contains("other elements"), "floating point compares by raw bits");
        assertTrue(difference(() -> GraphOracle.assertSameGraph(List.of(-0d), List.of(0d))).contains("expected Double(-0.0)"));
    }

    @Test
    void sharingLostAndSharingInventedAreFound() {
        Chain shared = new Chain(5, null);
        Holder sharing = holder(shared, holder(shared, null));
        Holder copies = holder(new Chain(5, null), holder(new Chain(5, null), null));
        assertTrue(difference(() -> GraphOracle.assertSameGraph(sharing, copies)).contains("sharing lost"));
        assertTrue(difference(() -> GraphOracle.assertSameGraph(copies, sharing)).contains("sharing invented"));
        assertTrue(difference(() -> GraphOracle.assertViewsRead(sharing, message(copies).view(HolderV.class))).contains("sharing lost"));
        assertTrue(difference(() -> GraphOracle.assertViewsRead(copies, message(sharing).view(HolderV.class))).contains("sharing invented"));
        String s = new String("s");
        assertTrue(difference(() -> GraphOracle.assertSameGraph(List.of(s, s), List.of("s", new String("s")))).contains("sharing lost"),
                "heap graphs: strings have an identity");
        Integer big = 1000;
        GraphOracle.assertSameGraph(List.of(Integer.valueOf(1000), Integer.valueOf(1000)), List.of(big, big)); // a cached box for two
        assertTrue(difference(() -> GraphOracle.assertSameGraph(List.of(big, big), List.of(Integer.valueOf(1000), Integer.valueOf(1000))))
                .contains("one box became two objects"));
    }

    @Test
    void cyclesTerminateAndAreComparedByShape() {
        Node n = new Node();
        n.next = n;
        n.kids = new Node[] {n, null};
        Node two = new Node();
        Node other = new Node();
        two.next = other;
        other.next = two;
        two.kids = new Node[] {two, null};
        Message m = message(n);
        GraphOracle.assertViewsRead(n, m.view(NodeV.class));
        GraphOracle.assertSameGraph(n, m.materialize(Node.class));
        GraphOracle.read(m.view(NodeV.class));
        assertTrue(difference(() -> GraphOracle.assertSameGraph(n, two)).contains(".next"));
        assertTrue(difference(() -> GraphOracle.assertViewsRead(two, m.view(NodeV.class))).contains(".next()"));
    }

    @Test
    void aViewOfAnotherWireTypeIsNotTheSameStruct() {
        Message m = message(new Chain(1, null));
        assertTrue(difference(() -> GraphOracle.assertViewsRead(new Circle(1, Color.RED), m.view(ChainV.class))).contains("another wire type"));
    }

    /** A chain whose root refers to itself: valid, readable through views, a cycle through records. */
    @Test
    void aCycleThroughRecordsIsFoundInViews() {
        byte[] valid = new WireWriter().toByteArray(new Chain(0x0707, new Chain(0x0808, null)));
        assertFalse(RecordCycles.in(message(holder(new Chain(1, null), null)).view(HolderV.class)));
        assertFalse(RecordCycles.in(new WireReader().validate(MessageOracle.nativeCopy(valid)).view(ChainV.class)));
        byte[] cycle = valid.clone();
        MessageLayout l = MessageLayout.of(cycle);
        for (int p = MessageDescriptor.HEADER_LENGTH; p < l.tail(); p += 4) {
            if (MessageLayout.getInt(cycle, p) == 1) MessageLayout.putInt(cycle, p, 0);
        }
        assertTrue(RecordCycles.in(new WireReader().validate(MessageOracle.nativeCopy(cycle)).view(ChainV.class)));
    }

    /** A char sequence or an array view that disagrees with itself fails a read, with no other graph to compare. */
    @Test
    void aLeafThatDisagreesWithItselfIsFound() {
        CharSequence twoFaced = new CharSequence() {
            @Override public int length() { return 2; }
            @Override public char charAt(int i) { return 'a'; }
            @Override public CharSequence subSequence(int a, int b) { return this; }
            @Override public String toString() { return "ab"; }
        };
        assertTrue(difference(() -> GraphOracle.read(List.of(twoFaced))).contains("char 1 of a char sequence"));
        MemorySegment ints = MemorySegment.ofArray(new int[] {1, 2}).asReadOnly();
        record Ints(int[] bulk, MemorySegment segment) implements ArrayView.OfInt {
            @Override public int length() { return 2; }
            @Override public int get(int i) { return i + 1; }
            @Override public int[] toArray() { return bulk.clone(); }
        }
        GraphOracle.read(List.of(new Ints(new int[] {1, 2}, ints)));
        assertTrue(difference(() -> GraphOracle.read(List.of(new Ints(new int[] {1, 3}, ints)))).contains("toArray() differs"));
        assertTrue(difference(() -> GraphOracle.read(List.of(new Ints(new int[] {1, 2}, MemorySegment.ofArray(new int[] {1, 2})))))
                .contains("read-only"));
        assertTrue(difference(() -> GraphOracle.assertViewsRead(new int[] {1, 2, 3}, new Ints(new int[] {1, 2}, ints))).contains("int[3]"));
    }

    @Test
    void countsObjectsAndReferences() {
        Chain shared = new Chain(5, null);
        List<Object> list = new ArrayList<>(List.of(shared, shared, "x"));
        list.add(list);
        assertEquals(3, GraphOracle.countObjects(list)); // the list, the chain, the string
        assertEquals(5, GraphOracle.countReferences(list)); // the root, two to the chain, the string, the list itself
    }
}
