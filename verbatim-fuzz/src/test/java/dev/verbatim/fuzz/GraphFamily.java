package dev.verbatim.fuzz;

import dev.verbatim.wire.ArrayView;
import dev.verbatim.wire.Message;
import dev.verbatim.wire.WireName;

import java.util.ArrayList;
import java.util.List;

/**
 * A fixed family of test types that together use every kind of value the wire format carries: all primitive
 * kinds, boxes, strings, enums, primitive arrays, arrays and lists of references, records, a mutable class
 * (the only way to build cycles), and a sealed interface with three record cases, one of them recursive.
 * Each type has an accessor-interface twin of the same structure, so a graph written as records can be read
 * through views.
 *
 * <p>{@link Builder} turns a stream of integer choices into a graph (nulls, sharing and cycles included).
 * Choice 0 always means "the simplest option" (null, empty, zero), so when jqwik shrinks the choices towards
 * shorter lists of smaller numbers, the graph shrinks with them.
 */
public final class GraphFamily {
    private GraphFamily() {}

    public enum Color { RED, GREEN, BLUE }

    public record Prims(boolean z, byte b, char c, short s, int i, long l, float f, double d) {}

    public interface PrimsView { boolean z(); byte b(); char c(); short s(); int i(); long l(); float f(); double d(); }

    public record Boxes(Boolean z, Byte b, Character c, Short s, Integer i, Long l, Float f, Double d) {}

    public interface BoxesView { Boolean z(); Byte b(); Character c(); Short s(); Integer i(); Long l(); Float f(); Double d(); }

    public record Arrays8(boolean[] z, byte[] b, char[] c, short[] s, int[] i, long[] l, float[] f, double[] d) {}

    /** Half the arrays as zero-copy views, half as copies. */
    public interface Arrays8View {
        ArrayView.OfBoolean z(); byte[] b(); ArrayView.OfChar c(); short[] s();
        ArrayView.OfInt i(); long[] l(); ArrayView.OfFloat f(); double[] d();
    }

    /** The same arrays the other way round. */
    public interface Arrays8OtherView {
        boolean[] z(); ArrayView.OfByte b(); char[] c(); ArrayView.OfShort s();
        int[] i(); ArrayView.OfLong l(); float[] f(); ArrayView.OfDouble d();
    }

    public sealed interface Shape permits Circle, Rect, Poly {}

    public record Circle(double radius, Color color) implements Shape {}

    public record Rect(float w, float h, String label) implements Shape {}

    public record Poly(int[] xs, List<Shape> parts) implements Shape {}

    public sealed interface ShapeView permits CircleView, RectView, PolyView {}

    @WireName("Circle")
    public non-sealed interface CircleView extends ShapeView { double radius(); Color color(); }

    @WireName("Rect")
    public non-sealed interface RectView extends ShapeView { float w(); float h(); CharSequence label(); }

    @WireName("Poly")
    public non-sealed interface PolyView extends ShapeView { ArrayView.OfInt xs(); List<ShapeView> parts(); }

    public record Leaf(int id, String name) {}

    public interface LeafView { int id(); String name(); }

    /** The record that holds everything. {@code bags} is a mutable list, so a bag can (indirectly) contain itself. */
    public record Bag(Prims prims, Boxes boxes, Arrays8 arrays, String text, String[] texts, List<String> textList,
                      Color color, Color[] colors, List<Color> colorList, Leaf leaf, Leaf[] leaves, List<Leaf> leafList,
                      Shape shape, Shape[] shapes, List<Shape> shapeList, Node node, List<Node> nodes, Bag inner,
                      List<Bag> bags, Integer count) {}

    public interface BagView {
        PrimsView prims(); BoxesView boxes(); Arrays8View arrays(); CharSequence text(); String[] texts();
        List<CharSequence> textList(); Color color(); Color[] colors(); List<Color> colorList(); LeafView leaf();
        LeafView[] leaves(); List<LeafView> leafList(); ShapeView shape(); ShapeView[] shapes(); List<ShapeView> shapeList();
        NodeView node(); List<NodeView> nodes(); BagView inner(); List<BagView> bags(); Integer count();
    }

    /** A mutable class: the only way to close a cycle. */
    public static final class Node {
        int id;
        boolean flag;
        double weight;
        String tag;
        Color color;
        Node next;
        Node[] kids;
        List<Node> list;
        Bag bag;
        Shape shape;
        Integer boxed;

        public Node() {}

        @Override
        public String toString() { return "Node#" + id; }
    }

    /** Reads {@code shape} as records (a view that materializes a sealed case) rather than as a view. */
    public interface NodeView {
        int id(); boolean flag(); double weight(); String tag(); Color color(); NodeView next(); NodeView[] kids();
        List<NodeView> list(); BagView bag(); Shape shape(); Integer boxed();
    }

    /** The accessor-interface twin of a graph's root class (same structure, same fingerprint). */
    static Class<?> twinOf(Class<?> c) {
        if (c == Circle.class) return CircleView.class;
        if (c == Rect.class) return RectView.class;
        if (c == Poly.class) return PolyView.class;
        if (c == Leaf[].class) return LeafView[].class;
        return viewTypeOf(c);
    }

    /** The type a graph's root is viewed as with {@link Message#view}: its twin, or for a sealed case the sealed view. */
    static Class<?> viewTypeOf(Class<?> c) {
        if (c == Bag.class) return BagView.class;
        if (c == Node.class) return NodeView.class;
        if (c == Circle.class || c == Rect.class || c == Poly.class) return ShapeView.class;
        if (c == Leaf.class) return LeafView.class;
        if (c == Leaf[].class) return LeafView[].class;
        if (c == Prims.class) return PrimsView.class;
        if (c == Boxes.class) return BoxesView.class;
        if (c == Arrays8.class) return Arrays8View.class;
        if (c == String.class) return CharSequence.class;
        if (c == int[].class) return ArrayView.OfInt.class;
        if (c == byte[].class) return ArrayView.OfByte.class;
        throw new IllegalArgumentException("no view twin for " + c);
    }

    /** Builds one graph from a stream of choices. Not thread-safe; one per graph. */
    static final class Builder {
        private final int[] choices;
        private int pos;
        private int budget;
        private final List<Node> nodes = new ArrayList<>();
        private final List<Bag> bags = new ArrayList<>();
        private final List<Leaf> leaves = new ArrayList<>();
        private final List<Shape> shapes = new ArrayList<>();
        private final List<String> strings = new ArrayList<>();
        private final List<Prims> primsPool = new ArrayList<>();
        private final List<int[]> intArrays = new ArrayList<>();
        private final List<List<Shape>> shapeLists = new ArrayList<>();
        private final List<List<Node>> nodeLists = new ArrayList<>();
        private final List<List<String>> stringLists = new ArrayList<>();
        private final List<List<Leaf>> leafLists = new ArrayList<>();
        private final List<List<Color>> colorLists = new ArrayList<>();

        Builder(List<Integer> choices, int budget) {
            this.choices = choices.stream().mapToInt(Integer::intValue).toArray();
            this.budget = budget;
        }

        /** A choice in [0, bound); 0 once the stream is exhausted. */
        int next(int bound) {
            if (bound <= 1 || pos >= choices.length) return 0;
            return Math.floorMod(choices[pos++], bound);
        }

        private int raw() { return pos >= choices.length ? 0 : choices[pos++]; }

        private boolean fresh() {
            if (budget <= 0) return false;
            budget--;
            return true;
        }

        /** 0: null, 1: a list shared with another field (when there is one), else a fresh list of up to max - 1 elements. */
        private <T> List<T> list(List<List<T>> pool, java.util.function.Supplier<T> element, int max) {
            int c = next(4);
            if (c == 0) return null;
            if (c == 1 && !pool.isEmpty()) return pool.get(next(pool.size()));
            List<T> l = new ArrayList<>();
            pool.add(l);
            for (int i = next(max); i > 0; i--) l.add(element.get());
            return l;
        }

        /** 0: null, 1 and 2: shared (when there is one), else a fresh object while the budget lasts. */
        private <T> T ref(List<T> pool, java.util.function.Supplier<T> make) {
            int c = next(5);
            if (c == 0) return null;
            if (c <= 2 && !pool.isEmpty()) return pool.get(next(pool.size()));
            if (!fresh()) return pool.isEmpty() ? null : pool.get(next(pool.size()));
            return make.get();
        }

        Object root() {
            int nodeCount = next(5);
            for (int i = 0; i < nodeCount; i++) nodes.add(new Node());
            Object root = switch (next(16)) {
                case 0, 1, 2, 3, 4, 5, 6, 7, 8 -> bag();
                case 9, 10 -> nodes.isEmpty() ? newNode() : nodes.get(next(nodes.size()));
                case 11 -> shape();
                case 12 -> leafArray();
                case 13 -> switch (next(3)) {
                    case 0 -> prims();
                    case 1 -> boxes();
                    default -> arrays();
                };
                case 14 -> string();
                default -> next(2) == 0 ? ints() : bytes();
            };
            if (root == null) root = new Leaf(raw(), null);
            for (int i = 0; i < nodes.size(); i++) fill(nodes.get(i)); // nodes may grow while filling
            return root;
        }

        private Node newNode() {
            Node n = new Node();
            nodes.add(n);
            return n;
        }

        private Node nodeRef() {
            int c = next(4);
            if (c == 0) return null;
            if (c == 1 && fresh()) return newNode();
            return nodes.isEmpty() ? null : nodes.get(next(nodes.size()));
        }

        private void fill(Node n) {
            n.id = raw();
            n.flag = next(2) == 1;
            n.weight = dbl();
            n.tag = stringRef();
            n.color = color();
            n.next = nodeRef();
            if (next(3) != 0) {
                n.kids = new Node[next(4)];
                for (int i = 0; i < n.kids.length; i++) n.kids[i] = nodeRef();
            }
            n.list = list(nodeLists, this::nodeRef, 4);
            n.bag = ref(bags, this::bag);
            n.shape = ref(shapes, this::shape);
            n.boxed = next(3) == 0 ? null : raw();
        }

        Bag bag() {
            Prims prims = ref(primsPool, this::prims);
            Boxes boxes = next(3) == 0 ? null : boxes();
            Arrays8 arrays = next(3) == 0 ? null : arrays();
            String text = stringRef();
            String[] texts = null;
            if (next(3) != 0) {
                texts = new String[next(4)];
                for (int i = 0; i < texts.length; i++) texts[i] = stringRef();
            }
            List<String> textList = list(stringLists, this::stringRef, 4);
            Color color = color();
            Color[] colors = null;
            if (next(3) != 0) {
                colors = new Color[next(5)];
                for (int i = 0; i < colors.length; i++) colors[i] = color();
            }
            List<Color> colorList = list(colorLists, this::color, 5);
            Leaf leaf = ref(leaves, this::leaf);
            Leaf[] leafArray = next(3) == 0 ? null : leafArray();
            List<Leaf> leafList = list(leafLists, () -> ref(leaves, this::leaf), 4);
            Shape shape = ref(shapes, this::shape);
            Shape[] shapeArray = null;
            if (next(3) != 0) {
                shapeArray = new Shape[next(4)];
                for (int i = 0; i < shapeArray.length; i++) shapeArray[i] = ref(shapes, this::shape);
            }
            List<Shape> shapeList = list(shapeLists, () -> ref(shapes, this::shape), 4);
            Node node = nodeRef();
            List<Node> nodeList = list(nodeLists, this::nodeRef, 4);
            Bag inner = next(3) == 0 || bags.isEmpty() ? (next(2) == 1 && fresh() ? bag() : null) : bags.get(next(bags.size()));
            List<Bag> bagList = next(3) == 0 ? null : new ArrayList<>();
            Integer count = next(3) == 0 ? null : raw();
            Bag b = new Bag(prims, boxes, arrays, text, texts, textList, color, colors, colorList, leaf, leafArray, leafList,
                    shape, shapeArray, shapeList, node, nodeList, inner, bagList, count);
            if (bagList != null) {
                for (int i = next(4); i > 0; i--) {
                    int c = next(3);
                    if (c == 0) bagList.add(null);
                    else if (c == 1) bagList.add(b); // a record that contains itself through a list
                    else bagList.add(bags.isEmpty() ? null : bags.get(next(bags.size())));
                }
            }
            bags.add(b);
            return b;
        }

        Prims prims() {
            Prims p = new Prims(next(2) == 1, (byte) raw(), chr(), (short) raw(), raw(), lng(), flt(), dbl());
            primsPool.add(p);
            return p;
        }

        Boxes boxes() {
            return new Boxes(next(3) == 0 ? null : next(2) == 1, next(3) == 0 ? null : (byte) raw(), next(3) == 0 ? null : chr(),
                    next(3) == 0 ? null : (short) raw(), next(3) == 0 ? null : raw(), next(3) == 0 ? null : lng(),
                    next(3) == 0 ? null : flt(), next(3) == 0 ? null : dbl());
        }

        Arrays8 arrays() {
            boolean[] z = null;
            byte[] b = null;
            char[] c = null;
            short[] s = null;
            int[] i = null;
            long[] l = null;
            float[] f = null;
            double[] d = null;
            if (next(3) != 0) { z = new boolean[length()]; for (int k = 0; k < z.length; k++) z[k] = next(2) == 1; }
            if (next(3) != 0) { b = new byte[length()]; for (int k = 0; k < b.length; k++) b[k] = (byte) raw(); }
            if (next(3) != 0) { c = new char[length()]; for (int k = 0; k < c.length; k++) c[k] = chr(); }
            if (next(3) != 0) { s = new short[length()]; for (int k = 0; k < s.length; k++) s[k] = (short) raw(); }
            if (next(3) != 0) i = ints();
            if (next(3) != 0) { l = new long[length()]; for (int k = 0; k < l.length; k++) l[k] = lng(); }
            if (next(3) != 0) { f = new float[length()]; for (int k = 0; k < f.length; k++) f[k] = flt(); }
            if (next(3) != 0) { d = new double[length()]; for (int k = 0; k < d.length; k++) d[k] = dbl(); }
            return new Arrays8(z, b, c, s, i, l, f, d);
        }

        int[] ints() {
            if (next(3) == 0 && !intArrays.isEmpty()) return intArrays.get(next(intArrays.size()));
            int[] a = new int[length()];
            for (int k = 0; k < a.length; k++) a[k] = raw();
            intArrays.add(a);
            return a;
        }

        byte[] bytes() {
            byte[] a = new byte[next(3) == 2 ? 1000 + next(5000) : length()];
            for (int k = 0; k < a.length; k++) a[k] = (byte) (k < 64 ? raw() : k * 31);
            return a;
        }

        /** Mostly short, sometimes long enough to need more than a byte or two of length. */
        private int length() { return next(8) == 7 ? 100 + next(300) : next(5); }

        Leaf leaf() {
            Leaf l = new Leaf(raw(), stringRef());
            leaves.add(l);
            return l;
        }

        Leaf[] leafArray() {
            Leaf[] a = new Leaf[next(5)];
            for (int i = 0; i < a.length; i++) a[i] = ref(leaves, this::leaf);
            return a;
        }

        Shape shape() {
            Shape s = switch (next(3)) {
                case 0 -> new Circle(dbl(), color());
                case 1 -> new Rect(flt(), flt(), stringRef());
                default -> new Poly(next(3) == 0 ? null : ints(), list(shapeLists, () -> ref(shapes, this::shape), 4));
            };
            shapes.add(s);
            return s;
        }

        Color color() {
            int c = next(4);
            return c == 0 ? null : Color.values()[c - 1];
        }

        String stringRef() {
            int c = next(4);
            if (c == 0) return null;
            if (c == 1 && !strings.isEmpty()) return strings.get(next(strings.size()));
            String s = string();
            strings.add(s);
            return s;
        }

        /** ASCII, Latin-1, or UTF-16 with surrogate pairs (always well-formed: no lone surrogates). */
        String string() {
            int kind = next(4);
            int n = next(6) == 5 ? 50 + next(200) : next(10);
            StringBuilder sb = new StringBuilder(n);
            for (int i = 0; i < n; i++) {
                int r = raw() & 0x7FFF_FFFF;
                switch (kind) {
                    case 0 -> sb.append((char) (0x20 + r % 95));
                    case 1 -> sb.append((char) (r % 256));
                    case 2 -> sb.append((char) (r % 128));
                    default -> {
                        switch (r % 4) {
                            case 0 -> sb.append((char) (0x100 + r % 0xD700));          // BMP below the surrogates
                            case 1 -> sb.appendCodePoint(0x10000 + r % 0x100000);       // a surrogate pair
                            case 2 -> sb.append((char) (0xE000 + r % 0x2000));          // BMP above the surrogates
                            default -> sb.append((char) (r % 256));
                        }
                    }
                }
            }
            return sb.toString();
        }

        char chr() {
            return switch (next(4)) {
                case 0 -> 0;
                case 1 -> (char) (raw() % 128);
                case 2 -> Character.MAX_VALUE;
                default -> (char) raw();
            };
        }

        long lng() {
            return switch (next(5)) {
                case 0 -> 0;
                case 1 -> Long.MIN_VALUE;
                case 2 -> Long.MAX_VALUE;
                case 3 -> -1;
                default -> ((long) raw() << 32) ^ raw();
            };
        }

        float flt() {
            return switch (next(9)) {
                case 0 -> 0f;
                case 1 -> -0f;
                case 2 -> Float.NaN;
                case 3 -> Float.POSITIVE_INFINITY;
                case 4 -> Float.NEGATIVE_INFINITY;
                case 5 -> Float.MIN_VALUE;
                case 6 -> Float.MAX_VALUE;
                case 7 -> raw() / 7f;
                default -> Float.intBitsToFloat(raw());
            };
        }

        double dbl() {
            return switch (next(9)) {
                case 0 -> 0d;
                case 1 -> -0d;
                case 2 -> Double.NaN;
                case 3 -> Double.POSITIVE_INFINITY;
                case 4 -> Double.NEGATIVE_INFINITY;
                case 5 -> Double.MIN_VALUE;
                case 6 -> Double.MAX_VALUE;
                case 7 -> raw() / 7d;
                default -> Double.longBitsToDouble(lng());
            };
        }
    }
}
