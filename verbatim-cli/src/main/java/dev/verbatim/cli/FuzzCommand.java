package dev.verbatim.cli;

import dev.verbatim.wire.ArrayView;
import dev.verbatim.wire.Message;
import dev.verbatim.wire.MessageDescriptor;
import dev.verbatim.wire.Schema;
import dev.verbatim.wire.WireFormatException;
import dev.verbatim.wire.WireLimits;
import dev.verbatim.wire.WireName;
import dev.verbatim.wire.WireReader;
import dev.verbatim.wire.WireSchemaException;
import dev.verbatim.wire.WireWriter;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * {@code verbatim fuzz [--seconds N] [--iterations N] [--seed S] [--threads T] [--heap] [--replay I] [--out DIR]}:
 * the validator fuzz campaign.
 *
 * <p>Each iteration takes a valid message from a pool of generated graphs (records, a class with cycles, a sealed
 * hierarchy, every primitive kind, strings, enums, boxes, arrays, lists, long lists, big arrays and strings) and
 * mutates it (bit flips, byte/int/long overwrites with interesting values, references retargeted, lengths near the
 * message size, truncation, extension, splicing two messages, header and table corruption, swapped object table
 * entries, claims of huge counts and lengths), or makes random bytes. The message is copied to native memory (as a
 * transport hands it over; {@code --heap} reads it from a {@code byte[]} instead). Then:
 *
 * <ul>
 *   <li>{@link WireReader#validate} must throw nothing but {@link WireFormatException} (counted by rule), must
 *       allocate no more than a small constant and its copy of the object table (8 bytes per object, at most the
 *       message's own length: nothing in proportion to a count or length it has not checked), and must
 *       finish: a case that takes longer than {@value #HANG_MILLIS} ms is reported as a hang;</li>
 *   <li>an accepted message must respect the reader's limits ({@link #LIMITS}), and be fully readable: every accessor
 *       of every view is walked (identity by offset, so cycles terminate), the root is materialized, and the two
 *       graphs must agree value for value and share for share. The materializer may refuse a valid message with a
 *       {@link WireSchemaException} only when the views show a cycle through records (no record can be built for
 *       one); those are counted. A {@code Holder} is also read as an other version of its type (schema evolution).
 *       A message up to 64 KiB is written again from its materialized copy and must read the same;</li>
 *   <li>for one accepted message in four, the memory is then changed in place (what a peer scribbling on shared
 *       memory could do) and read again: only WireFormatException (or WireSchemaException for a record cycle the
 *       change made) may come out (DESIGN §7).</li>
 * </ul>
 *
 * <p>Everything derives from the seed: the pool from the seed, iteration {@code i} from (seed, i), so
 * {@code --seed S --replay I} reproduces one case with its full stack trace. Failures are printed, grouped by kind,
 * and the message of each is written as hex (with the stack trace) to the output directory ({@code target/fuzz}).
 *
 * <p>Thread-safety: {@link #campaign} runs its own worker threads; the class holds no mutable static state.
 */
public final class FuzzCommand {
    private FuzzCommand() {}

    /** The reader's limits: tight, so that the limits are exercised and memory stays bounded. */
    public static final WireLimits LIMITS = new WireLimits(1 << 20, 50_000, 64, 1 << 16);
    /** A single validate-and-read taking longer than this is reported as a hang. */
    public static final long HANG_MILLIS = 5_000;
    /**
     * Most bytes one {@code validate} may allocate beyond its copy of the object table ({@link #tableCopyBytes}),
     * whatever the message claims.
     */
    public static final long VALIDATE_ALLOCATION_BUDGET = 64 << 10;

    /**
     * What {@code validate}'s copy of the object table takes for this message: 8 bytes per object and an array
     * header, when the object count in its header fits its length (validate refuses it before copying otherwise).
     * Never more than the message's own length plus the header: nothing in proportion to an unchecked count.
     */
    public static long tableCopyBytes(byte[] message) {
        if (message.length < MessageDescriptor.HEADER_LENGTH) return 0;
        long objects = Integer.toUnsignedLong((int) I32.get(message, MessageDescriptor.OBJECT_COUNT_OFFSET));
        return 8 * objects <= message.length ? 16 + 8 * objects : 0;
    }
    /** Stop after this many hung cases: each leaves a thread behind that cannot be stopped. */
    static final int MAX_HANGS = 3;
    /** Failures reported in detail (all are counted). */
    static final int MAX_REPORTED_FAILURES = 50;

    // ====================================================================================== the test types

    public enum Color { RED, GREEN, BLUE, ALPHA }

    public record Prims(boolean z, byte b, char c, short s, int i, long l, float f, double d) {}

    public interface PrimsV { boolean z(); byte b(); char c(); short s(); int i(); long l(); float f(); double d(); }

    public record Boxes(Boolean z, Byte b, Character c, Short s, Integer i, Long l, Float f, Double d) {}

    public interface BoxesV { Boolean z(); Byte b(); Character c(); Short s(); Integer i(); Long l(); Float f(); Double d(); }

    public record Arrays8(boolean[] z, byte[] b, char[] c, short[] s, int[] i, long[] l, float[] f, double[] d) {}

    public interface Arrays8V {
        ArrayView.OfBoolean z(); ArrayView.OfByte b(); char[] c(); ArrayView.OfShort s();
        int[] i(); ArrayView.OfLong l(); float[] f(); ArrayView.OfDouble d();
    }

    public sealed interface Shape permits Circle, Rect, Poly {}

    public record Circle(double radius, Color color) implements Shape {}

    public record Rect(float w, float h, String label, boolean filled) implements Shape {}

    /** {@code hole} is a direct record-to-record reference: a mutated message can close a cycle through records. */
    public record Poly(int[] xs, List<Shape> parts, Shape hole) implements Shape {}

    public sealed interface ShapeV permits CircleV, RectV, PolyV {}

    @WireName("Circle")
    public non-sealed interface CircleV extends ShapeV { double radius(); Color color(); }

    @WireName("Rect")
    public non-sealed interface RectV extends ShapeV { float w(); float h(); CharSequence label(); boolean filled(); }

    @WireName("Poly")
    public non-sealed interface PolyV extends ShapeV { ArrayView.OfInt xs(); List<ShapeV> parts(); ShapeV hole(); }

    public record Leaf(long id, String name, Color color) {}

    public interface LeafV { long id(); String name(); Color color(); }

    public record Chain(int v, Chain next) {}

    public interface ChainV { int v(); ChainV next(); }

    public record Unit() {}

    public interface UnitV {}

    public record Units(List<Unit> all) {}

    public interface UnitsV { List<UnitV> all(); }

    /** The mutable class: cycles. */
    public static final class Node {
        int id;
        boolean flag;
        String tag;
        Color color;
        Node next;
        Node[] kids;
        List<Node> list;
        Leaf leaf;
        Shape shape;
        Holder back;
        long[] data;

        Node() {}
    }

    /** {@code leaf()} materializes a record from a view. */
    public interface NodeV {
        int id(); boolean flag(); CharSequence tag(); Color color(); NodeV next(); NodeV[] kids(); List<NodeV> list();
        Leaf leaf(); ShapeV shape(); HolderV back(); long[] data();
    }

    public record Holder(Prims prims, Boxes boxes, Arrays8 arrays, String text, String[] texts, List<String> textList,
                         Color color, Color[] colors, List<Color> colorList, Leaf[] leaves, List<Leaf> leafList,
                         Shape shape, List<Shape> shapes, Shape[] shapeArray, Chain chain, Node node, List<Integer> ints,
                         Long boxedId, Holder inner) {}

    /** {@code boxes()} materializes a record from a view; {@code textList()} reads strings in place. */
    public interface HolderV {
        PrimsV prims(); Boxes boxes(); Arrays8V arrays(); String text(); String[] texts(); List<CharSequence> textList();
        Color color(); Color[] colors(); List<Color> colorList(); LeafV[] leaves(); List<LeafV> leafList(); ShapeV shape();
        List<ShapeV> shapes(); ShapeV[] shapeArray(); ChainV chain(); NodeV node(); List<Integer> ints(); Long boxedId();
        HolderV inner();
    }

    /**
     * An other version of {@link Holder}, read by field name (schema evolution): a subset of its fields and one it
     * does not have, which reads as 0.
     */
    public interface HolderOldV { String text(); ChainV chain(); List<LeafV> leafList(); NodeV node(); HolderOldV inner(); int added(); }

    /** How a root of some wire type is read: materialized as {@code type}, viewed as {@code view} (and {@code view2}). */
    record ReadAs(Class<?> type, Class<?> view, Class<?> view2) {}

    /** Root fingerprint → how to read it. */
    static final Map<Long, ReadAs> READERS;
    /** Every fingerprint a type table may name, for mutations that swap type table entries. */
    static final long[] TABLE_FINGERPRINTS;

    static {
        Map<Long, ReadAs> m = new HashMap<>();
        Object[][] pairs = {
                {Holder.class, HolderV.class, null}, {Node.class, NodeV.class, null}, {Chain.class, ChainV.class, null},
                {Circle.class, CircleV.class, ShapeV.class}, {Rect.class, RectV.class, ShapeV.class}, {Poly.class, PolyV.class, ShapeV.class},
                {Leaf.class, LeafV.class, null}, {Prims.class, PrimsV.class, null}, {Boxes.class, BoxesV.class, null},
                {Arrays8.class, Arrays8V.class, null}, {Unit.class, UnitV.class, null}, {Units.class, UnitsV.class, null},
                {Leaf[].class, LeafV[].class, null}, {Shape[].class, ShapeV[].class, null}, {String[].class, String[].class, null},
                {Color[].class, Color[].class, null}, {Node[].class, NodeV[].class, null},
                {String.class, CharSequence.class, String.class},
                {boolean[].class, ArrayView.OfBoolean.class, null}, {byte[].class, ArrayView.OfByte.class, null},
                {char[].class, ArrayView.OfChar.class, null}, {short[].class, ArrayView.OfShort.class, null},
                {int[].class, ArrayView.OfInt.class, null}, {long[].class, ArrayView.OfLong.class, null},
                {float[].class, ArrayView.OfFloat.class, null}, {double[].class, ArrayView.OfDouble.class, null},
                {Boolean.class, Boolean.class, null}, {Byte.class, Byte.class, null}, {Character.class, Character.class, null},
                {Short.class, Short.class, null}, {Integer.class, Integer.class, null}, {Long.class, Long.class, null},
                {Float.class, Float.class, null}, {Double.class, Double.class, null},
        };
        List<Long> table = new ArrayList<>();
        for (Object[] p : pairs) {
            Class<?> type = (Class<?>) p[0];
            long fp = Schema.fingerprint(type);
            if (fp != Schema.fingerprint((Class<?>) p[1])) {
                throw new IllegalStateException(type + " and its view twin " + p[1] + " have different fingerprints");
            }
            m.put(fp, new ReadAs(type, (Class<?>) p[1], (Class<?>) p[2]));
            boolean builtin = type.isPrimitive() || type == String.class || (type.isArray() && type.getComponentType().isPrimitive())
                    || type.getName().startsWith("java.lang.");
            if (!builtin) table.add(fp);
        }
        READERS = Map.copyOf(m);
        TABLE_FINGERPRINTS = table.stream().mapToLong(Long::longValue).toArray();
    }

    // ============================================================================================ the pool

    /**
     * One valid (or deliberately over-the-limit) message of the pool, and how often it is picked relative to others
     * (the big ones are slow to read in full, so they are picked less often).
     */
    record Seed(String name, byte[] bytes, int weight) {
        Seed(String name, byte[] bytes) { this(name, bytes, bytes.length > 8192 ? 1 : 4); }
    }

    /** Generates graphs of the test types from a random source. Not thread-safe; one per pool. */
    static final class Gen {
        private final SplittableRandom r;
        private int budget;
        private final List<Node> nodes = new ArrayList<>();
        private final List<Holder> holders = new ArrayList<>();
        private final List<Leaf> leaves = new ArrayList<>();
        private final List<Shape> shapes = new ArrayList<>();
        private final List<String> strings = new ArrayList<>();
        private final List<Chain> chains = new ArrayList<>();
        private final List<List<Shape>> shapeLists = new ArrayList<>();

        Gen(SplittableRandom r, int budget) {
            this.r = r;
            this.budget = budget;
        }

        private boolean fresh() {
            if (budget <= 0) return false;
            budget--;
            return true;
        }

        private <T> T pick(List<T> pool) { return pool.isEmpty() ? null : pool.get(r.nextInt(pool.size())); }

        private <T> T ref(List<T> pool, java.util.function.Supplier<T> make) {
            int c = r.nextInt(6);
            if (c == 0) return null;
            if (c == 1 && !pool.isEmpty()) return pick(pool);
            return fresh() ? make.get() : pick(pool);
        }

        Holder holder() {
            Prims prims = r.nextInt(3) == 0 ? null : prims();
            Boxes boxes = r.nextInt(3) == 0 ? null : boxes();
            Arrays8 arrays = r.nextInt(3) == 0 ? null : arrays(8);
            String[] texts = r.nextInt(3) == 0 ? null : new String[r.nextInt(5)];
            if (texts != null) for (int i = 0; i < texts.length; i++) texts[i] = string();
            List<String> textList = null;
            if (r.nextBoolean()) {
                textList = new ArrayList<>();
                for (int i = r.nextInt(5); i > 0; i--) textList.add(string());
            }
            Color[] colors = r.nextInt(3) == 0 ? null : new Color[r.nextInt(6)];
            if (colors != null) for (int i = 0; i < colors.length; i++) colors[i] = color();
            List<Color> colorList = null;
            if (r.nextBoolean()) {
                colorList = new ArrayList<>();
                for (int i = r.nextInt(6); i > 0; i--) colorList.add(color());
            }
            Leaf[] leafArray = r.nextInt(3) == 0 ? null : new Leaf[r.nextInt(5)];
            if (leafArray != null) for (int i = 0; i < leafArray.length; i++) leafArray[i] = ref(leaves, this::leaf);
            List<Leaf> leafList = null;
            if (r.nextBoolean()) {
                leafList = new ArrayList<>();
                for (int i = r.nextInt(5); i > 0; i--) leafList.add(ref(leaves, this::leaf));
            }
            Shape[] shapeArray = r.nextInt(3) == 0 ? null : new Shape[r.nextInt(4)];
            if (shapeArray != null) for (int i = 0; i < shapeArray.length; i++) shapeArray[i] = ref(shapes, this::shape);
            List<Integer> ints = null;
            if (r.nextBoolean()) {
                ints = new ArrayList<>();
                for (int i = r.nextInt(6); i > 0; i--) ints.add(r.nextInt(4) == 0 ? null : r.nextInt(300) - 150);
            }
            Holder inner = r.nextInt(3) == 0 ? (fresh() ? holder() : pick(holders)) : null;
            Holder h = new Holder(prims, boxes, arrays, string(), texts, textList, color(), colors, colorList, leafArray, leafList,
                    ref(shapes, this::shape), shapeList(), shapeArray, ref(chains, this::chain), node(),
                    ints, r.nextInt(3) == 0 ? null : r.nextLong(), inner);
            holders.add(h);
            return h;
        }

        Node node() {
            int c = r.nextInt(4);
            if (c == 0) return null;
            if (c == 1 && !nodes.isEmpty()) return pick(nodes);
            if (!fresh()) return pick(nodes);
            Node n = new Node();
            nodes.add(n);
            return n;
        }

        /** Fills every node made so far (and those made while filling): nodes point anywhere, cycles included. */
        void fillNodes() {
            for (int k = 0; k < nodes.size(); k++) {
                Node n = nodes.get(k);
                n.id = r.nextInt();
                n.flag = r.nextBoolean();
                n.tag = string();
                n.color = color();
                n.next = r.nextInt(3) == 0 ? null : pick(nodes);
                if (r.nextBoolean()) {
                    n.kids = new Node[r.nextInt(4)];
                    for (int i = 0; i < n.kids.length; i++) n.kids[i] = r.nextInt(3) == 0 ? null : pick(nodes);
                }
                if (r.nextBoolean()) {
                    n.list = new ArrayList<>();
                    for (int i = r.nextInt(4); i > 0; i--) n.list.add(pick(nodes));
                }
                n.leaf = r.nextBoolean() ? ref(leaves, this::leaf) : null;
                n.shape = ref(shapes, this::shape);
                n.back = r.nextInt(3) == 0 ? pick(holders) : null;
                if (r.nextInt(3) == 0) {
                    n.data = new long[r.nextInt(5)];
                    for (int i = 0; i < n.data.length; i++) n.data[i] = r.nextLong();
                }
            }
        }

        Prims prims() {
            return new Prims(r.nextBoolean(), (byte) r.nextInt(), (char) r.nextInt(), (short) r.nextInt(), r.nextInt(), r.nextLong(),
                    flt(), dbl());
        }

        Boxes boxes() {
            return new Boxes(r.nextInt(3) == 0 ? null : r.nextBoolean(), r.nextInt(3) == 0 ? null : (byte) r.nextInt(),
                    r.nextInt(3) == 0 ? null : (char) r.nextInt(), r.nextInt(3) == 0 ? null : (short) r.nextInt(),
                    r.nextInt(3) == 0 ? null : r.nextInt(), r.nextInt(3) == 0 ? null : r.nextLong(),
                    r.nextInt(3) == 0 ? null : flt(), r.nextInt(3) == 0 ? null : dbl());
        }

        Arrays8 arrays(int max) {
            boolean[] z = r.nextInt(4) == 0 ? null : new boolean[r.nextInt(max)];
            if (z != null) for (int k = 0; k < z.length; k++) z[k] = r.nextBoolean();
            byte[] b = r.nextInt(4) == 0 ? null : new byte[r.nextInt(max)];
            if (b != null) r.nextBytes(b);
            char[] c = r.nextInt(4) == 0 ? null : new char[r.nextInt(max)];
            if (c != null) for (int k = 0; k < c.length; k++) c[k] = (char) r.nextInt();
            short[] s = r.nextInt(4) == 0 ? null : new short[r.nextInt(max)];
            if (s != null) for (int k = 0; k < s.length; k++) s[k] = (short) r.nextInt();
            int[] i = r.nextInt(4) == 0 ? null : r.ints(r.nextInt(max)).toArray();
            long[] l = r.nextInt(4) == 0 ? null : r.longs(r.nextInt(max)).toArray();
            float[] f = r.nextInt(4) == 0 ? null : new float[r.nextInt(max)];
            if (f != null) for (int k = 0; k < f.length; k++) f[k] = flt();
            double[] d = r.nextInt(4) == 0 ? null : new double[r.nextInt(max)];
            if (d != null) for (int k = 0; k < d.length; k++) d[k] = dbl();
            return new Arrays8(z, b, c, s, i, l, f, d);
        }

        Leaf leaf() {
            Leaf l = new Leaf(r.nextLong(), string(), color());
            leaves.add(l);
            return l;
        }

        Chain chain() {
            Chain c = new Chain(r.nextInt(), r.nextBoolean() ? null : ref(chains, this::chain));
            chains.add(c);
            return c;
        }

        Shape shape() {
            Shape s = switch (r.nextInt(3)) {
                case 0 -> new Circle(dbl(), color());
                case 1 -> new Rect(flt(), flt(), string(), r.nextBoolean());
                default -> new Poly(r.nextInt(3) == 0 ? null : r.ints(r.nextInt(6)).toArray(), shapeList(), ref(shapes, this::shape));
            };
            shapes.add(s);
            return s;
        }

        List<Shape> shapeList() {
            int c = r.nextInt(4);
            if (c == 0) return null;
            if (c == 1 && !shapeLists.isEmpty()) return pick(shapeLists); // shared lists: a Poly can hold itself
            List<Shape> l = new ArrayList<>();
            shapeLists.add(l);
            for (int i = r.nextInt(4); i > 0; i--) l.add(ref(shapes, this::shape));
            return l;
        }

        Color color() {
            int c = r.nextInt(Color.values().length + 1);
            return c == 0 ? null : Color.values()[c - 1];
        }

        String string() {
            int c = r.nextInt(8);
            if (c == 0) return null;
            if (c == 1 && !strings.isEmpty()) return pick(strings);
            String s = text(r, r.nextInt(8) == 0 ? 40 + r.nextInt(200) : r.nextInt(12));
            strings.add(s);
            return s;
        }

        float flt() {
            return switch (r.nextInt(6)) {
                case 0 -> Float.NaN;
                case 1 -> -0f;
                case 2 -> Float.POSITIVE_INFINITY;
                default -> Float.intBitsToFloat(r.nextInt());
            };
        }

        double dbl() {
            return switch (r.nextInt(6)) {
                case 0 -> Double.NaN;
                case 1 -> -0d;
                case 2 -> Double.NEGATIVE_INFINITY;
                default -> Double.longBitsToDouble(r.nextLong());
            };
        }
    }

    /** ASCII, Latin-1 or UTF-16 text with surrogate pairs. */
    static String text(SplittableRandom r, int n) {
        int kind = r.nextInt(3);
        StringBuilder sb = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            switch (kind) {
                case 0 -> sb.append((char) (0x20 + r.nextInt(95)));
                case 1 -> sb.append((char) r.nextInt(256));
                default -> {
                    switch (r.nextInt(3)) {
                        case 0 -> sb.append((char) (0x100 + r.nextInt(0xD700)));
                        case 1 -> sb.appendCodePoint(0x10000 + r.nextInt(0x100000));
                        default -> sb.append((char) (0xE000 + r.nextInt(0x2000)));
                    }
                }
            }
        }
        return sb.toString();
    }

    /** Builds the pool for a seed: the same seed, the same pool. Every message but the two over-the-limit ones is valid. */
    static List<Seed> pool(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        WireWriter w = new WireWriter();
        List<Seed> pool = new ArrayList<>();
        for (int i = 0; i < 48; i++) {
            Gen g = new Gen(r.split(), i < 16 ? 6 : i < 40 ? 20 : 60);
            Object root = switch (i % 8) {
                case 0, 1, 2, 3 -> g.holder();
                case 4 -> { Node n = new Node(); g.nodes.add(n); g.holder(); yield n; }
                case 5 -> g.shape();
                case 6 -> { Leaf[] a = new Leaf[1 + r.nextInt(6)]; for (int k = 0; k < a.length; k++) a[k] = g.ref(g.leaves, g::leaf); yield a; }
                default -> g.chain();
            };
            g.fillNodes();
            pool.add(new Seed("graph " + i + " (" + root.getClass().getSimpleName() + ")", w.toByteArray(root)));
        }
        Gen g = new Gen(r.split(), 10);
        pool.add(new Seed("null root", w.toByteArray(null)));
        pool.add(new Seed("empty holder", w.toByteArray(new Holder(null, null, null, null, null, null, null, null, null, null,
                null, null, null, null, null, null, null, null, null))));
        Chain chain = null;
        for (int i = 0; i < 1500; i++) chain = new Chain(i, chain);
        pool.add(new Seed("chain of 1500 records", w.toByteArray(chain)));
        List<Integer> ints = new ArrayList<>();
        for (int i = 0; i < 4000; i++) ints.add(i % 7 == 0 ? null : r.nextInt());
        List<Leaf> leafList = new ArrayList<>();
        for (int i = 0; i < 300; i++) leafList.add(g.leaf());
        pool.add(new Seed("long lists", w.toByteArray(new Holder(null, null, null, "long", null, null, Color.GREEN, null, null, null,
                leafList, null, null, null, null, null, ints, 42L, null))));
        pool.add(new Seed("int[65536]", w.toByteArray(r.ints(65536).toArray())));
        pool.add(new Seed("UTF-16 string of 40k chars", w.toByteArray(text(new SplittableRandom(r.nextLong()), 40_000) + "\u20ac")));
        StringBuilder latin1 = new StringBuilder();
        for (int i = 0; i < 30_000; i++) latin1.append((char) r.nextInt(256));
        pool.add(new Seed("Latin-1 string of 30k chars", w.toByteArray(latin1.toString())));
        pool.add(new Seed("big arrays", w.toByteArray(g.arrays(3000))));
        boolean[] flags = new boolean[1000];
        for (int i = 0; i < flags.length; i++) flags[i] = r.nextBoolean();
        pool.add(new Seed("boolean[1000]", w.toByteArray(flags)));
        Poly poly = new Poly(new int[] {1, 2, 3}, new ArrayList<>(), null);
        for (int i = 0; i < 20; i++) poly = new Poly(new int[] {i}, new ArrayList<>(List.of(new Circle(i, Color.RED), poly)), poly);
        poly.parts().add(poly); // a cycle through a list
        pool.add(new Seed("nested polygons", w.toByteArray(poly)));
        Node[] ring = new Node[200];
        for (int i = 0; i < ring.length; i++) {
            ring[i] = new Node();
            ring[i].id = i;
            ring[i].tag = i % 3 == 0 ? "n" + i : null;
        }
        for (int i = 0; i < ring.length; i++) {
            ring[i].next = ring[(i + 1) % ring.length];
            ring[i].kids = new Node[] {ring[(i * 7) % ring.length], null};
            ring[i].shape = i % 5 == 0 ? new Rect(i, -i, null, true) : null;
        }
        pool.add(new Seed("ring of 200 nodes", w.toByteArray(ring[0])));
        pool.add(new Seed("prims", w.toByteArray(g.prims())));
        pool.add(new Seed("boxes", w.toByteArray(g.boxes())));
        // Over the limits: always rejected, but their mutations take other paths.
        List<Unit> units = new ArrayList<>();
        for (int i = 0; i < LIMITS.maxObjects() + 10; i++) units.add(new Unit());
        pool.add(new Seed("too many objects", w.toByteArray(new Units(units))));
        pool.add(new Seed("too many bytes", w.toByteArray(new byte[(int) LIMITS.maxMessageBytes()])));
        return List.copyOf(pool);
    }

    // ======================================================================================== mutations

    private static final VarHandle I16 = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle I32 = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle I64 = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    static int getInt(byte[] b, int at) { return at >= 0 && at + 4 <= b.length ? (int) I32.get(b, at) : 0; }

    static void putInt(byte[] b, int at, int v) { if (at >= 0 && at + 4 <= b.length) I32.set(b, at, v); }

    static void putLong(byte[] b, int at, long v) { if (at >= 0 && at + 8 <= b.length) I64.set(b, at, v); }

    /** Where things are in a message, as far as its header says (all zero when it has no plausible layout). */
    record Layout(int length, int types, int objects, int tail, int typeTable, int objectTable) {
        static Layout of(byte[] m) {
            int len = m.length;
            if (len < MessageDescriptor.HEADER_LENGTH) return new Layout(len, 0, 0, 0, 0, 0);
            int t = (short) I16.get(m, MessageDescriptor.TYPE_COUNT_OFFSET) & 0xFFFF;
            int n = getInt(m, MessageDescriptor.OBJECT_COUNT_OFFSET);
            long tail = len - (long) MessageDescriptor.TYPE_ENTRY_LENGTH * t - (long) MessageDescriptor.OBJECT_ENTRY_LENGTH * n;
            if (n < 0 || tail < MessageDescriptor.HEADER_LENGTH || tail > len) return new Layout(len, 0, 0, 0, 0, 0);
            return new Layout(len, t, n, (int) tail, (int) tail, (int) tail + MessageDescriptor.TYPE_ENTRY_LENGTH * t);
        }

        boolean plausible() { return tail > 0; }

        /** Offset of object i according to its object table entry (low 32 bits), or -1. */
        int objectStart(byte[] m, int i) {
            int o = getInt(m, objectTable + MessageDescriptor.OBJECT_ENTRY_LENGTH * i);
            return o >= MessageDescriptor.HEADER_LENGTH && o < tail ? o : -1;
        }
    }

    /** Interesting 32-bit values, some relative to where they are written and to the message's counts. */
    static int interestingInt(SplittableRandom r, Layout l, int pos) {
        int rest = Math.max(0, l.length - pos);
        return switch (r.nextInt(34)) {
            case 0 -> 0;
            case 1 -> 1;
            case 2 -> -1;
            case 3 -> 2;
            case 4 -> 7;
            case 5 -> 8;
            case 6 -> 0x7F;
            case 7 -> 0x80;
            case 8 -> 0xFF;
            case 9 -> 0xFFFF;
            case 10 -> 0x10000;
            case 11 -> Integer.MAX_VALUE;
            case 12 -> Integer.MIN_VALUE;
            case 13 -> 0x7FFF_FFF8;
            case 14 -> 0x4000_0000;
            case 15 -> -2;
            case 16 -> l.length;
            case 17 -> l.length - 1 - r.nextInt(8);
            case 18 -> l.length + 8;
            case 19 -> l.length / 2;
            case 20 -> rest;
            case 21 -> rest / 2;
            case 22 -> rest / 4;
            case 23 -> rest / 8;
            case 24 -> rest / 4 + 1;
            case 25 -> 0x8000_0000 | (rest / 2);
            case 26 -> 0x8000_0000 | rest;
            case 27 -> l.objects;
            case 28 -> l.objects - 1;
            case 29 -> l.objects + 1;
            case 30 -> MessageDescriptor.FIRST_TABLE_TYPE_ID + r.nextInt(Math.max(1, l.types + 1));
            case 31 -> 1 + r.nextInt(MessageDescriptor.MAX_BUILTIN);
            case 32 -> MessageDescriptor.FIRST_TABLE_TYPE_ID - 1;
            default -> r.nextInt();
        };
    }

    private static int anyPos(SplittableRandom r, int len) { return len == 0 ? 0 : r.nextInt(len); }

    /** A position biased into the objects (where most of the meaning is). */
    private static int objectPos(SplittableRandom r, Layout l, int align) {
        int lo = MessageDescriptor.HEADER_LENGTH, hi = l.plausible() ? l.tail : l.length;
        if (hi - lo < align || r.nextInt(5) == 0) return anyPos(r, l.length) & -align;
        return (lo + r.nextInt(hi - lo)) & -align;
    }

    static byte[] mutate(byte[] base, byte[] other, SplittableRandom r) {
        byte[] m = base.clone();
        int ops = r.nextInt(4) == 0 ? 2 + r.nextInt(3) : 1;
        for (int k = 0; k < ops; k++) m = mutateOnce(m, other, r);
        return m;
    }

    static byte[] mutateOnce(byte[] m, byte[] other, SplittableRandom r) {
        Layout l = Layout.of(m);
        int len = m.length;
        switch (r.nextInt(18)) {
            case 0, 1 -> { // bit flips
                if (len == 0) return m;
                for (int i = 1 + r.nextInt(4); i > 0; i--) {
                    int p = r.nextBoolean() ? objectPos(r, l, 1) : anyPos(r, len);
                    if (p < len) m[p] ^= (byte) (1 << r.nextInt(8));
                }
            }
            case 2 -> { // interesting byte
                if (len == 0) return m;
                byte[] values = {0, 1, 2, (byte) 0x7F, (byte) 0x80, (byte) 0xFF, (byte) 0xFE, 0x40};
                m[anyPos(r, len)] = values[r.nextInt(values.length)];
            }
            case 3, 4 -> { // interesting int, mostly aligned in the objects
                int p = r.nextInt(4) == 0 ? anyPos(r, len) : objectPos(r, l, 4);
                putInt(m, p, interestingInt(r, l, p));
            }
            case 5, 6 -> { // retarget a reference (or anything that looks like one) to another object, null or one past the end
                int p = objectPos(r, l, 4);
                putInt(m, p, l.objects == 0 ? -1 : r.nextInt(l.objects + 2) - 1);
            }
            case 7 -> { // interesting long
                long[] values = {0, -1, Long.MAX_VALUE, Long.MIN_VALUE, 0x7FFF_FFFFL, 0xFFFF_FFFFL,
                        TABLE_FINGERPRINTS[r.nextInt(TABLE_FINGERPRINTS.length)], r.nextLong()};
                putLong(m, anyPos(r, len) & -8, values[r.nextInt(values.length)]);
            }
            case 8 -> { // truncation
                if (len == 0) return m;
                int n = switch (r.nextInt(4)) {
                    case 0 -> len - 1 - r.nextInt(Math.min(len, 16));
                    case 1 -> r.nextInt(len) & -8;
                    case 2 -> l.plausible() ? l.tail : r.nextInt(len);
                    default -> r.nextInt(len);
                };
                return Arrays.copyOf(m, Math.max(0, n));
            }
            case 9 -> { // extension
                int extra = switch (r.nextInt(3)) {
                    case 0 -> 8;
                    case 1 -> 1 + r.nextInt(16);
                    default -> r.nextInt(64);
                };
                byte[] e = Arrays.copyOf(m, len + extra);
                if (r.nextBoolean()) for (int i = len; i < e.length; i++) e[i] = (byte) r.nextInt();
                if (r.nextInt(3) == 0 && l.plausible()) { // room inserted before the tables: they move, entries no longer match
                    System.arraycopy(m, l.tail, e, l.tail + extra, len - l.tail);
                    Arrays.fill(e, l.tail, l.tail + extra, (byte) 0);
                }
                return e;
            }
            case 10 -> { // splicing: a head of this message and a tail of another, or a block of the other copied in
                if (r.nextBoolean()) {
                    int a = r.nextInt(len + 1), b = r.nextInt(other.length + 1);
                    if (r.nextBoolean()) { a &= -8; b &= -8; }
                    byte[] s = Arrays.copyOf(m, a + other.length - b);
                    System.arraycopy(other, b, s, a, other.length - b);
                    return s;
                }
                int n = Math.min(Math.min(len, other.length), 8 + r.nextInt(64));
                if (n <= 0) return m;
                int from = r.nextInt(other.length - n + 1), to = r.nextInt(len - n + 1);
                if (r.nextBoolean()) to = Math.min(from, len - n);
                System.arraycopy(other, from, m, to, n);
            }
            case 11 -> { // header fields
                if (len < MessageDescriptor.HEADER_LENGTH) return m;
                switch (r.nextInt(5)) {
                    case 0 -> m[MessageDescriptor.VERSION_OFFSET] = (byte) (r.nextBoolean() ? 0 : 2 + r.nextInt(254));
                    case 1 -> m[MessageDescriptor.FLAGS_OFFSET] = (byte) (1 << r.nextInt(8));
                    case 2 -> {
                        int[] values = {l.types + 1, l.types - 1, 0, 0xFFFF, LIMITS.maxTypes(), LIMITS.maxTypes() + 1, r.nextInt(0x10000)};
                        I16.set(m, MessageDescriptor.TYPE_COUNT_OFFSET, (short) values[r.nextInt(values.length)]);
                    }
                    default -> {
                        int[] values = {l.objects + 1, l.objects - 1, 0, -1, LIMITS.maxObjects(), LIMITS.maxObjects() + 1,
                                Integer.MAX_VALUE, Integer.MIN_VALUE, l.objects + 2, l.objects * 2};
                        putInt(m, MessageDescriptor.OBJECT_COUNT_OFFSET, values[r.nextInt(values.length)]);
                    }
                }
            }
            case 12 -> { // type table entries
                if (!l.plausible() || l.types == 0) return mutateOnce(m, other, r);
                int at = l.typeTable + MessageDescriptor.TYPE_ENTRY_LENGTH * r.nextInt(l.types);
                long v = switch (r.nextInt(4)) {
                    case 0 -> TABLE_FINGERPRINTS[r.nextInt(TABLE_FINGERPRINTS.length)];
                    case 1 -> (long) I64.get(m, l.typeTable + MessageDescriptor.TYPE_ENTRY_LENGTH * r.nextInt(l.types)); // a duplicate
                    case 2 -> Schema.fingerprint(int[].class); // a built-in type in the table
                    default -> r.nextLong();
                };
                putLong(m, at, v);
            }
            case 13 -> { // object table entries: swapped or copied
                if (!l.plausible() || l.objects < 2) return mutateOnce(m, other, r);
                int e = MessageDescriptor.OBJECT_ENTRY_LENGTH;
                int i = l.objectTable + e * r.nextInt(l.objects), j = l.objectTable + e * r.nextInt(l.objects);
                byte[] tmp = Arrays.copyOfRange(m, i, i + e);
                if (r.nextBoolean()) System.arraycopy(m, j, m, i, e);
                else {
                    System.arraycopy(m, j, m, i, e);
                    System.arraycopy(tmp, 0, m, j, e);
                }
            }
            case 14 -> { // one half of an object table entry (offset, or type id where the entry carries it)
                if (!l.plausible() || l.objects == 0) return mutateOnce(m, other, r);
                int at = l.objectTable + MessageDescriptor.OBJECT_ENTRY_LENGTH * r.nextInt(l.objects);
                if (MessageDescriptor.OBJECT_ENTRY_LENGTH >= 8 && r.nextBoolean()) at += 4;
                putInt(m, at, interestingInt(r, l, at));
            }
            case 15, 16 -> { // the first word of an object (an array or string length, a field): lengths near the message size
                if (!l.plausible() || l.objects == 0) return mutateOnce(m, other, r);
                int o = l.objectStart(m, r.nextInt(l.objects));
                if (o < 0) return mutateOnce(m, other, r);
                if (MessageDescriptor.OBJECT_ENTRY_LENGTH < 8 && r.nextBoolean()) o += 4; // type id first in the old layout
                int rest = l.tail - o;
                int[] values = {rest, rest - 4, rest - 3, rest / 2, rest / 2 - 1, rest / 4, rest / 4 - 1, rest / 8, rest / 8 - 1,
                        rest + 1, rest / 4 + 1, 0x8000_0000 | (rest / 2), 0x8000_0000 | (rest / 2 - 1), Integer.MAX_VALUE, 0x7FFF_FFF0,
                        0x3FFF_FFFF, 0x1FFF_FFFF, -1, 0};
                putInt(m, o, values[r.nextInt(values.length)]);
            }
            default -> { // huge claims: counts and lengths the bytes cannot back
                if (len < MessageDescriptor.HEADER_LENGTH) return m;
                switch (r.nextInt(4)) {
                    case 0 -> putInt(m, MessageDescriptor.OBJECT_COUNT_OFFSET, r.nextBoolean() ? LIMITS.maxObjects() : Integer.MAX_VALUE);
                    case 1 -> I16.set(m, MessageDescriptor.TYPE_COUNT_OFFSET, (short) (r.nextBoolean() ? LIMITS.maxTypes() : 0xFFFF));
                    default -> {
                        if (!l.plausible() || l.objects == 0) return m;
                        int o = l.objectStart(m, r.nextInt(l.objects));
                        if (o >= 0) putInt(m, o, r.nextBoolean() ? Integer.MAX_VALUE : 0x7FFF_FFFF / (1 + r.nextInt(8)));
                    }
                }
            }
        }
        return m;
    }

    /** Changes a message in place, keeping its length: what a peer scribbling on shared memory could do. */
    static void scribble(byte[] m, SplittableRandom r) {
        if (m.length == 0) return;
        Layout l = Layout.of(m);
        switch (r.nextInt(6)) {
            case 0 -> m[r.nextInt(m.length)] ^= (byte) (1 << r.nextInt(8));
            case 1 -> {
                int p = objectPos(r, l, 4);
                putInt(m, p, interestingInt(r, l, p));
            }
            case 2 -> putInt(m, objectPos(r, l, 4), l.objects == 0 ? -1 : r.nextInt(l.objects + 2) - 1);
            case 3 -> { // an object table entry or a type table entry
                if (!l.plausible() || l.objects == 0) return;
                int at = l.objectTable + MessageDescriptor.OBJECT_ENTRY_LENGTH * r.nextInt(l.objects) + (r.nextBoolean() ? 4 : 0);
                putInt(m, at, interestingInt(r, l, at));
            }
            case 4 -> {
                if (!l.plausible() || l.types == 0) return;
                putLong(m, l.typeTable + MessageDescriptor.TYPE_ENTRY_LENGTH * r.nextInt(l.types), TABLE_FINGERPRINTS[r.nextInt(TABLE_FINGERPRINTS.length)]);
            }
            default -> {
                if (!l.plausible() || l.objects == 0) return;
                int o = l.objectStart(m, r.nextInt(l.objects));
                if (o >= 0) putInt(m, o, r.nextBoolean() ? Integer.MAX_VALUE : l.tail - o);
            }
        }
    }

    /** Random bytes: fully random, or behind a plausible header with tables that fit (to get past the first checks). */
    static byte[] randomMessage(SplittableRandom r) {
        if (r.nextBoolean()) {
            byte[] b = new byte[r.nextInt(r.nextBoolean() ? 24 : 300)];
            r.nextBytes(b);
            return b;
        }
        int types = r.nextInt(4), objects = r.nextInt(9), body = 8 * r.nextInt(16);
        int tail = MessageDescriptor.HEADER_LENGTH + body;
        byte[] b = new byte[tail + MessageDescriptor.TYPE_ENTRY_LENGTH * types + MessageDescriptor.OBJECT_ENTRY_LENGTH * objects];
        if (r.nextBoolean()) r.nextBytes(b);
        else for (int i = MessageDescriptor.HEADER_LENGTH; i < tail; i += 4) putInt(b, i, r.nextInt(8) == 0 ? r.nextInt() : r.nextInt(5) - 1);
        b[MessageDescriptor.VERSION_OFFSET] = MessageDescriptor.VERSION;
        b[MessageDescriptor.FLAGS_OFFSET] = 0;
        I16.set(b, MessageDescriptor.TYPE_COUNT_OFFSET, (short) types);
        putInt(b, MessageDescriptor.OBJECT_COUNT_OFFSET, objects);
        for (int k = 0; k < types; k++) {
            putLong(b, tail + MessageDescriptor.TYPE_ENTRY_LENGTH * k, TABLE_FINGERPRINTS[r.nextInt(TABLE_FINGERPRINTS.length)]);
        }
        int objTable = tail + MessageDescriptor.TYPE_ENTRY_LENGTH * types;
        int pos = MessageDescriptor.HEADER_LENGTH;
        for (int i = 0; i < objects; i++) {
            int at = objTable + MessageDescriptor.OBJECT_ENTRY_LENGTH * i;
            int tid = r.nextBoolean() ? 1 + r.nextInt(MessageDescriptor.MAX_BUILTIN) : MessageDescriptor.FIRST_TABLE_TYPE_ID + r.nextInt(types + 1);
            putInt(b, at, pos);
            if (MessageDescriptor.OBJECT_ENTRY_LENGTH >= 8) putInt(b, at + 4, tid);
            else putInt(b, pos, tid);
            pos = Math.min(tail, pos + 8 * r.nextInt(3));
        }
        return b;
    }

    // ========================================================================================== checking

    /** A property the campaign checks was broken (as opposed to an exception escaping the code under test). */
    static final class Broken extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final String detail;

        Broken(String message, String detail) {
            super(message, null, false, false);
            this.detail = detail;
        }
    }

    /** What one case came to. */
    enum Outcome { REJECTED, ACCEPTED_READ, ACCEPTED_NULL_ROOT, ACCEPTED_UNREADABLE_ROOT, ACCEPTED_RECORD_CYCLE }

    /**
     * Per-thread state of the checks: a writer for re-writing, the allocation counter, and native memory that each
     * message is copied to, as a transport would receive it (exactly the message's bytes: a read past its end fails).
     * Not thread-safe.
     */
    static final class Checker {
        private static final long SLAB = 2 << 20;
        final WireReader reader;
        final WireWriter writer = new WireWriter();
        final LongSupplier allocated = allocationCounter();
        final Stats stats;
        /** Read messages from heap segments (byte[]) instead of native memory. */
        final boolean heap;
        private MemorySegment slab;
        String lastRule;

        Checker(WireReader reader, Stats stats) {
            this(reader, stats, false);
        }

        Checker(WireReader reader, Stats stats, boolean heap) {
            this.reader = reader;
            this.stats = stats;
            this.heap = heap;
        }

        /** A native segment of exactly {@code n} bytes at {@code at} in the slab (or of its own, if larger). */
        private MemorySegment nativeSegment(long at, long n) {
            if (slab == null) slab = Arena.ofAuto().allocate(2 * SLAB, 8);
            return n <= SLAB ? slab.asSlice(at, n) : Arena.ofAuto().allocate(n, 8);
        }

        Outcome check(byte[] bytes) {
            return check(bytes, 0);
        }

        /** Checks one message; if it is valid and {@code scribble} is not 0, also reads it after changing it in place. */
        Outcome check(byte[] bytes, long scribble) {
            MemorySegment seg;
            if (heap) {
                seg = MemorySegment.ofArray(bytes.clone());
            } else {
                seg = nativeSegment(0, bytes.length);
                MemorySegment.copy(bytes, 0, seg, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, bytes.length);
            }
            Outcome o = check(seg, bytes);
            if (o != Outcome.REJECTED && scribble != 0) scribbled(seg, scribble);
            return o;
        }

        /** The message and its reader types of the last accepted case, for {@link #scribbled}. */
        private Message lastMessage;
        private ReadAs lastHow;

        /**
         * DESIGN §7: a validated message stays safe to read when its memory changes afterwards (a shared-memory peer
         * scribbling). Reading it again through views and the materializer may fail only with a WireFormatException
         * (or the materializer's WireSchemaException for a cycle through records the change made); anything else
         * escaping, a read outside the message included, is a failure.
         */
        private void scribbled(MemorySegment seg, long seed) {
            if (lastHow == null) return;
            SplittableRandom r = new SplittableRandom(seed);
            byte[] now = seg.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
            for (int i = 1 + r.nextInt(3); i > 0; i--) scribble(now, r);
            MemorySegment.copy(now, 0, seg, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, now.length);
            stats.scribbled.increment();
            try {
                new Dump(true).run(lastMessage.view(lastHow.view()));
                new Dump(false).run(lastMessage.materialize(lastHow.type()));
            } catch (WireFormatException e) {
                stats.scribbledRefused.increment();
            } catch (WireSchemaException e) {
                stats.scribbledRefused.increment();
            } catch (Broken b) {
                throw new Broken("after the memory of a validated message changed: " + b.getMessage(), b.detail);
            } catch (RuntimeException | Error e) {
                throw new Broken("after the memory of a validated message changed, escaped: " + e, stackTrace(e));
            }
        }

        private Outcome check(MemorySegment seg, byte[] bytes) {
            lastMessage = null;
            lastHow = null;
            Message m;
            long before = allocated == null ? 0 : allocated.getAsLong();
            try {
                m = reader.validate(seg);
            } catch (WireFormatException e) {
                checkValidateAllocation(before, seg, bytes);
                if (e.rule() == null || e.rule().isEmpty()) throw new Broken("a WireFormatException without a rule", e.toString());
                if (e.offset() < -1 || e.offset() > bytes.length) {
                    throw new Broken("a WireFormatException names an offset outside the message", e + " (message of " + bytes.length + " bytes)");
                }
                lastRule = e.rule();
                return Outcome.REJECTED;
            }
            checkValidateAllocation(before, seg, bytes);
            int types = bytes.length >= MessageDescriptor.HEADER_LENGTH ? (short) I16.get(bytes, MessageDescriptor.TYPE_COUNT_OFFSET) & 0xFFFF : 0;
            if (bytes.length > LIMITS.maxMessageBytes() || m.objectCount() > LIMITS.maxObjects() || types > LIMITS.maxTypes()) {
                throw new Broken("an accepted message exceeds the limits", bytes.length + " bytes, " + m.objectCount() + " objects, " + types + " types");
            }
            if (m.byteSize() != bytes.length) throw new Broken("Message.byteSize() differs from the message length", m.byteSize() + " vs " + bytes.length);
            return read(m, bytes.length);
        }

        /** validate may allocate a small constant and its table copy, never in proportion to what the message claims. */
        private void checkValidateAllocation(long before, MemorySegment seg, byte[] bytes) {
            if (allocated == null) return;
            long used = allocated.getAsLong() - before;
            if (used > 8192) {
                // The first run of a code path can allocate for class loading and call-site linking: measure again.
                long again = allocated.getAsLong();
                try {
                    reader.validate(seg);
                } catch (WireFormatException expected) {
                    // measured below
                }
                used = Math.min(used, allocated.getAsLong() - again);
            }
            used -= Math.min(used, tableCopyBytes(bytes));
            stats.maxValidateAllocation.accumulateAndGet(used, Math::max);
            if (used > VALIDATE_ALLOCATION_BUDGET) {
                throw new Broken("validate allocated " + used + " bytes beyond its copy of the object table (budget "
                        + VALIDATE_ALLOCATION_BUDGET + ")",
                        "message of " + bytes.length + " bytes");
            }
        }

        private Outcome read(Message m, int length) {
            if (m.objectCount() == 0) {
                if (m.view(HolderV.class) != null || m.materialize(Holder.class) != null) throw new Broken("a null root read as non-null", null);
                return Outcome.ACCEPTED_NULL_ROOT;
            }
            ReadAs how = READERS.get(m.rootFingerprint());
            if (how == null) return Outcome.ACCEPTED_UNREADABLE_ROOT; // e.g. a List as the root: no Java type names it
            lastMessage = m;
            lastHow = how;
            Dump views = new Dump(true);
            views.run(m.view(how.view()));
            if (how.type() == Holder.class) { // read by an other version of the type, field by field
                HolderOldV old = m.view(HolderOldV.class);
                new Dump(true).run(old);
                if (old.added() != 0) throw new Broken("a field the writer does not have did not read as 0", Integer.toString(old.added()));
            }
            if (how.view2() != null) {
                Dump other = new Dump(true);
                other.run(m.view(how.view2()));
                if (!other.text().equals(views.text())) {
                    throw new Broken("two views of the root disagree (" + how.view().getSimpleName() + ", " + how.view2().getSimpleName() + ")",
                            "first:\n" + views.text() + "\nsecond:\n" + other.text());
                }
            }
            boolean recordCycle = views.hasRecordCycle();
            Object copy0;
            try {
                copy0 = m.materialize(how.type());
            } catch (WireSchemaException e) {
                if (recordCycle) return Outcome.ACCEPTED_RECORD_CYCLE;
                throw e; // refused without a reason a valid message can give
            }
            if (recordCycle) throw new Broken("the materializer built a graph with a cycle through records", views.text());
            Dump copy = new Dump(false);
            copy.run(copy0);
            if (!copy.text().equals(views.text())) {
                throw new Broken("the views and the materialized graph disagree", "views:\n" + views.text() + "\nmaterialized:\n" + copy.text());
            }
            if (length <= (64 << 10)) { // written again, it reads the same
                long size = writer.sizeOf(copy0);
                MemorySegment again = heap ? MemorySegment.ofArray(new byte[(int) size]) : nativeSegment(SLAB, size);
                if (writer.write(copy0, again, 0) != size) throw new Broken("sizeOf differs from what write wrote", size + " bytes");
                Dump re = new Dump(false);
                re.run(reader.validate(again).materialize(how.type()));
                if (!re.text().equals(copy.text())) {
                    throw new Broken("the materialized graph, written and read again, differs", "first:\n" + copy.text() + "\nagain:\n" + re.text());
                }
            }
            return Outcome.ACCEPTED_READ;
        }
    }

    /** The current thread's allocated bytes (HotSpot's com.sun.management), or null where unsupported. */
    static LongSupplier allocationCounter() {
        if (ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean mx
                && mx.isThreadAllocatedMemorySupported() && mx.isThreadAllocatedMemoryEnabled()) {
            return mx::getCurrentThreadAllocatedBytes;
        }
        return null;
    }

    /** A copy of {@code bytes} in native memory (freed by the GC), as a transport would hand a received message over. */
    public static MemorySegment nativeCopy(byte[] bytes) {
        MemorySegment seg = Arena.ofAuto().allocate(Math.max(1, bytes.length), 8).asSlice(0, bytes.length);
        MemorySegment.copy(bytes, 0, seg, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, bytes.length);
        return seg;
    }

    /** Bytes one {@code validate} of {@code message} allocates (second run, so linking is not counted), or -1. */
    public static long validateAllocation(byte[] message) {
        LongSupplier a = allocationCounter();
        if (a == null) return -1;
        WireReader reader = new WireReader(LIMITS);
        MemorySegment seg = nativeCopy(message);
        long used = 0;
        for (int run = 0; run < 2; run++) {
            long before = a.getAsLong();
            try {
                reader.validate(seg);
            } catch (WireFormatException e) {
                // rejected: that is fine, the allocation is what is measured
            }
            used = a.getAsLong() - before;
        }
        return used;
    }

    // ============================================================================= walking views and copies

    /** What the dump needs to know about a struct type, view or Java. */
    record StructInfo(String tag, boolean identity, boolean recordBacked, String[] names, Method[] methods, Field[] fields) {
        Object get(Object o, int i) throws Throwable {
            try {
                return methods != null ? methods[i].invoke(o) : fields[i].get(o);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }
    }

    /** Struct types whose objects are walked once (identity by offset or by reference); the others are dumped inline. */
    private static final java.util.Set<String> IDENTITY_TAGS = java.util.Set.of("Holder", "HolderOld", "Node", "Chain", "Circle", "Rect", "Poly", "Units");

    private static final ClassValue<StructInfo> STRUCTS = new ClassValue<>() {
        @Override
        protected StructInfo computeValue(Class<?> c) {
            Class<?> iface = null;
            if (c.isHidden()) {
                for (Class<?> i : c.getInterfaces()) if (i.getEnclosingClass() == FuzzCommand.class) iface = i;
            } else if (c.isInterface() && c.getEnclosingClass() == FuzzCommand.class) {
                iface = c;
            }
            if (iface != null) {
                List<Method> ms = new ArrayList<>();
                for (Method m : iface.getMethods()) {
                    if (Modifier.isAbstract(m.getModifiers()) && m.getParameterCount() == 0) ms.add(m);
                }
                ms.sort(Comparator.comparing(Method::getName));
                String simple = iface.getSimpleName();
                String tag = simple.endsWith("V") ? simple.substring(0, simple.length() - 1) : simple;
                return new StructInfo(tag, IDENTITY_TAGS.contains(tag), !tag.equals("Node"),
                        ms.stream().map(Method::getName).toArray(String[]::new), ms.toArray(Method[]::new), null);
            }
            if (c.getEnclosingClass() != FuzzCommand.class) return null;
            if (c.isRecord()) {
                RecordComponent[] rc = c.getRecordComponents().clone();
                Arrays.sort(rc, Comparator.comparing(RecordComponent::getName));
                Method[] ms = new Method[rc.length];
                for (int i = 0; i < rc.length; i++) ms[i] = rc[i].getAccessor();
                return new StructInfo(c.getSimpleName(), IDENTITY_TAGS.contains(c.getSimpleName()), true,
                        Arrays.stream(rc).map(RecordComponent::getName).toArray(String[]::new), ms, null);
            }
            if (c == Node.class) {
                List<Field> fs = new ArrayList<>();
                for (Field f : c.getDeclaredFields()) if (!Modifier.isStatic(f.getModifiers())) fs.add(f);
                fs.sort(Comparator.comparing(Field::getName));
                return new StructInfo("Node", true, false, fs.stream().map(Field::getName).toArray(String[]::new), null, fs.toArray(Field[]::new));
            }
            return null;
        }
    };

    /** The offset a view reads its object at, from {@code ViewBase.toString()}'s "(offset N)". */
    static long viewOffset(Object view) {
        String s = view.toString();
        int i = s.lastIndexOf("(offset ");
        int j = s.indexOf(')', i);
        if (i < 0 || j < 0) throw new IllegalStateException("cannot tell which object a view reads: " + s);
        return Long.parseLong(s.substring(i + 8, j));
    }

    private record Tok(String s) {}

    private static final Object NULL = new Object();

    /**
     * A canonical, iterative dump of a graph: views and heap objects of the same message dump to the same text.
     * Structs of the identity types are numbered on first visit and written as {@code @k} when met again; strings
     * and primitive arrays are written as length and hash (after being read element by element).
     */
    static final class Dump {
        static final int MAX_CHARS = 8 << 20;
        private final boolean views;
        private final StringBuilder out = new StringBuilder();
        private final Map<Object, Integer> heapIds = new IdentityHashMap<>();
        private final Map<Long, Integer> viewIds = new HashMap<>();
        /** Views: direct references between structs backed by records, as (from offset, to offset). */
        private final List<long[]> recordEdges = new ArrayList<>();

        Dump(boolean views) { this.views = views; }

        String text() { return out.toString(); }

        void run(Object root) {
            ArrayDeque<Object> stack = new ArrayDeque<>();
            stack.push(root == null ? NULL : root);
            while (!stack.isEmpty()) {
                if (out.length() > MAX_CHARS) {
                    out.append("...");
                    return;
                }
                Object v = stack.pop();
                if (v instanceof Tok t) out.append(t.s);
                else visit(v, stack);
            }
        }

        private void emit(String s) { out.append(s).append(' '); }

        private void visit(Object v, ArrayDeque<Object> stack) {
            switch (v) {
                case Object o when o == NULL -> emit("N");
                case Enum<?> e -> emit("E" + e.name());
                case Boolean b -> emit(b ? "Z1" : "Z0");
                case Byte b -> emit("B" + b);
                case Character c -> emit("C" + (int) c);
                case Short s -> emit("S" + s);
                case Integer i -> emit("I" + i);
                case Long l -> emit("J" + l);
                case Float f -> emit("F" + Integer.toHexString(Float.floatToRawIntBits(f)));
                case Double d -> emit("D" + Long.toHexString(Double.doubleToRawLongBits(d)));
                case CharSequence cs -> emit(chars(cs));
                case ArrayView a -> emit(arrayView(a));
                case Object[] a -> {
                    emit("[" + a.length);
                    stack.push(new Tok("] "));
                    for (int i = a.length - 1; i >= 0; i--) stack.push(a[i] == null ? NULL : a[i]);
                }
                case List<?> l -> {
                    int n = l.size();
                    emit("[" + n);
                    stack.push(new Tok("] "));
                    Object[] items = new Object[n];
                    for (int i = 0; i < n; i++) items[i] = l.get(i);
                    for (int i = n - 1; i >= 0; i--) stack.push(items[i] == null ? NULL : items[i]);
                }
                default -> {
                    if (v.getClass().isArray()) emit(primitiveArray(v));
                    else struct(v, stack);
                }
            }
        }

        private void struct(Object v, ArrayDeque<Object> stack) {
            StructInfo info = STRUCTS.get(v.getClass());
            if (info == null) throw new Broken("an unexpected value in the graph: " + v.getClass().getName(), String.valueOf(v));
            boolean isView = v.getClass().isHidden();
            long off = isView ? viewOffset(v) : -1;
            if (info.identity()) {
                Integer seen = isView ? viewIds.get(off) : heapIds.get(v);
                if (seen != null) {
                    emit("@" + seen);
                    return;
                }
                int id = isView ? viewIds.size() : heapIds.size();
                if (isView) viewIds.put(off, id);
                else heapIds.put(v, id);
            }
            emit("{" + info.tag());
            stack.push(new Tok("} "));
            int n = info.names().length;
            Object[] values = new Object[n];
            for (int i = 0; i < n; i++) {
                try {
                    values[i] = info.get(v, i);
                } catch (RuntimeException | Error e) {
                    throw e;
                } catch (Throwable e) {
                    throw new IllegalStateException(e);
                }
                if (isView && info.identity() && info.recordBacked() && values[i] != null && values[i].getClass().isHidden()) {
                    StructInfo child = STRUCTS.get(values[i].getClass());
                    if (child != null && child.identity() && child.recordBacked()) recordEdges.add(new long[] {off, viewOffset(values[i])});
                }
            }
            for (int i = n - 1; i >= 0; i--) {
                stack.push(values[i] == null ? NULL : values[i]);
                stack.push(new Tok(info.names()[i] + "="));
            }
        }

        /** True if the views met a cycle made of direct references between record-backed structs. */
        boolean hasRecordCycle() {
            Map<Long, List<Long>> adj = new HashMap<>();
            for (long[] e : recordEdges) adj.computeIfAbsent(e[0], k -> new ArrayList<>()).add(e[1]);
            Map<Long, Integer> state = new HashMap<>(); // 1 on the path, 2 done
            for (Long start : adj.keySet()) {
                if (state.containsKey(start)) continue;
                ArrayDeque<long[]> path = new ArrayDeque<>(); // (node, next edge index)
                path.push(new long[] {start, 0});
                state.put(start, 1);
                while (!path.isEmpty()) {
                    long[] top = path.peek();
                    List<Long> next = adj.getOrDefault(top[0], List.of());
                    if (top[1] < next.size()) {
                        long w = next.get((int) top[1]++);
                        Integer s = state.get(w);
                        if (s == null) {
                            state.put(w, 1);
                            path.push(new long[] {w, 0});
                        } else if (s == 1) {
                            return true;
                        }
                    } else {
                        state.put(top[0], 2);
                        path.pop();
                    }
                }
            }
            return false;
        }

        private static String chars(CharSequence cs) {
            int n = cs.length();
            long h = 0xcbf29ce484222325L;
            for (int i = 0; i < n; i++) h = (h ^ cs.charAt(i)) * 0x100000001b3L;
            if (!(cs instanceof String)) {
                String s = cs.toString();
                if (s.length() != n) throw new Broken("a CharSequence view's toString() has another length", n + " vs " + s.length());
                for (int i = 0; i < n; i++) {
                    if (s.charAt(i) != cs.charAt(i)) {
                        throw new Broken("a CharSequence view's toString() differs from its charAt()", "char " + i + ": "
                                + Integer.toHexString(s.charAt(i)) + " vs " + Integer.toHexString(cs.charAt(i)));
                    }
                }
            }
            return "T" + n + ":" + Long.toHexString(h);
        }

        private static String hashed(char kind, int n, long h) { return "A" + kind + n + ":" + Long.toHexString(h); }

        private static long mix(long h, long v) { return (h ^ v) * 0x100000001b3L; }

        private static String primitiveArray(Object a) {
            long h = 0xcbf29ce484222325L;
            switch (a) {
                case boolean[] x -> {
                    boolean[] normal = new boolean[x.length];
                    for (int i = 0; i < x.length; i++) normal[i] = x[i];
                    if (!Arrays.equals(x, normal)) throw new Broken("a materialized boolean[] holds a value other than false and true", null);
                    for (boolean e : x) h = mix(h, e ? 1 : 0);
                    return hashed('Z', x.length, h);
                }
                case byte[] x -> { for (byte e : x) h = mix(h, e); return hashed('B', x.length, h); }
                case char[] x -> { for (char e : x) h = mix(h, e); return hashed('C', x.length, h); }
                case short[] x -> { for (short e : x) h = mix(h, e); return hashed('S', x.length, h); }
                case int[] x -> { for (int e : x) h = mix(h, e); return hashed('I', x.length, h); }
                case long[] x -> { for (long e : x) h = mix(h, e); return hashed('J', x.length, h); }
                case float[] x -> { for (float e : x) h = mix(h, Float.floatToRawIntBits(e)); return hashed('F', x.length, h); }
                case double[] x -> { for (double e : x) h = mix(h, Double.doubleToRawLongBits(e)); return hashed('D', x.length, h); }
                default -> throw new Broken("an unexpected array in the graph: " + a.getClass(), null);
            }
        }

        /** Reads every element of an array view one by one, checks toArray() and the segment, and dumps it like the array. */
        private static String arrayView(ArrayView a) {
            int n = a.length();
            long h = 0xcbf29ce484222325L;
            Object bulk;
            int size;
            switch (a) {
                case ArrayView.OfBoolean x -> { for (int i = 0; i < n; i++) h = mix(h, x.get(i) ? 1 : 0); bulk = x.toArray(); size = 1; }
                case ArrayView.OfByte x -> { for (int i = 0; i < n; i++) h = mix(h, x.get(i)); bulk = x.toArray(); size = 1; }
                case ArrayView.OfChar x -> { for (int i = 0; i < n; i++) h = mix(h, x.get(i)); bulk = x.toArray(); size = 2; }
                case ArrayView.OfShort x -> { for (int i = 0; i < n; i++) h = mix(h, x.get(i)); bulk = x.toArray(); size = 2; }
                case ArrayView.OfInt x -> { for (int i = 0; i < n; i++) h = mix(h, x.get(i)); bulk = x.toArray(); size = 4; }
                case ArrayView.OfLong x -> { for (int i = 0; i < n; i++) h = mix(h, x.get(i)); bulk = x.toArray(); size = 8; }
                case ArrayView.OfFloat x -> { for (int i = 0; i < n; i++) h = mix(h, Float.floatToRawIntBits(x.get(i))); bulk = x.toArray(); size = 4; }
                case ArrayView.OfDouble x -> { for (int i = 0; i < n; i++) h = mix(h, Double.doubleToRawLongBits(x.get(i))); bulk = x.toArray(); size = 8; }
                default -> throw new Broken("an unexpected array view: " + a.getClass(), null);
            }
            String kind = primitiveArray(bulk);
            String mine = hashed(kind.charAt(1), n, h);
            if (!kind.equals(mine)) throw new Broken("an array view's toArray() differs from its get(i)", mine + " vs " + kind);
            if (a.segment().byteSize() != (long) n * size || !a.segment().isReadOnly()) {
                throw new Broken("an array view's segment is not its elements, read-only", a.segment() + " for " + n + " elements");
            }
            return mine;
        }
    }

    // =========================================================================================== campaign

    /** Counters shared by the workers. */
    static final class Stats {
        final LongAdder iterations = new LongAdder();
        final LongAdder mutated = new LongAdder();
        final LongAdder random = new LongAdder();
        final LongAdder accepted = new LongAdder();
        final LongAdder rejected = new LongAdder();
        final LongAdder nullRoots = new LongAdder();
        final LongAdder unreadableRoots = new LongAdder();
        final LongAdder recordCycles = new LongAdder();
        final LongAdder failures = new LongAdder();
        final LongAdder scribbled = new LongAdder();
        final LongAdder scribbledRefused = new LongAdder();
        final ConcurrentHashMap<String, LongAdder> rules = new ConcurrentHashMap<>();
        /** Failures by kind: what broke, without the case's origin and with numbers left out. */
        final ConcurrentHashMap<String, LongAdder> failureKinds = new ConcurrentHashMap<>();
        final AtomicLong maxValidateAllocation = new AtomicLong();
        final List<Failure> reported = java.util.Collections.synchronizedList(new ArrayList<>());
    }

    /** One failure: how to reproduce it ({@code --seed seed --replay iteration}) and where its message was written. */
    public record Failure(long seed, long iteration, String what, String origin, String detail, Path hexFile) {
        @Override
        public String toString() {
            return "iteration " + iteration + ": " + what + " [" + origin + "]" + (hexFile == null ? "" : " " + hexFile)
                    + (iteration < 0 ? "" : " (reproduce: verbatim fuzz --seed " + seed + " --replay " + iteration + ")");
        }
    }

    /** The outcome of a campaign. {@code ok()} when nothing failed. */
    public record Result(long seed, long iterations, long mutated, long random, long accepted, long rejected,
                         long nullRoots, long unreadableRoots, long recordCycles, Map<String, Long> rejectedByRule,
                         long scribbled, long scribbledRefused, long failureCount, Map<String, Long> failureKinds, List<Failure> failures,
                         long maxValidateAllocation, long elapsedMillis, boolean stoppedEarly) {
        public boolean ok() { return failureCount == 0; }

        public double messagesPerSecond() { return elapsedMillis == 0 ? 0 : iterations * 1000.0 / elapsedMillis; }

        /** A human summary, several lines. */
        public String summary() {
            StringBuilder b = new StringBuilder();
            b.append(String.format("seed %d: %d iterations in %.1f s (%.0f messages/s): %d mutated, %d random%n", seed, iterations,
                    elapsedMillis / 1000.0, messagesPerSecond(), mutated, random));
            b.append(String.format("accepted %d (%d read through views and materialized, %d null roots, %d roots no Java type names,"
                    + " %d refused by the materializer: cycle through records), rejected %d%n", accepted,
                    accepted - nullRoots - unreadableRoots - recordCycles, nullRoots, unreadableRoots, recordCycles, rejected));
            b.append(String.format("changed after validation and read again: %d (%d of them refused with WireFormatException or WireSchemaException)%n",
                    scribbled, scribbledRefused));
            b.append("rejected by rule:\n");
            rejectedByRule.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                    .forEach(e -> b.append(String.format("  %9d  %s%n", e.getValue(), e.getKey())));
            b.append(maxValidateAllocation < 0 ? "validate allocation: not measured (no per-thread allocation counter)\n"
                    : String.format("validate allocation: at most %d bytes per message beyond its object-table copy (budget %d)%n",
                            maxValidateAllocation, VALIDATE_ALLOCATION_BUDGET));
            b.append("failures: ").append(failureCount).append(stoppedEarly ? " (stopped early)" : "").append('\n');
            failureKinds.forEach((k, n) -> b.append(String.format("  %9d  %s%n", n, k)));
            if (!failures.isEmpty()) b.append("first ").append(failures.size()).append(" in detail:\n");
            for (Failure f : failures) b.append("  ").append(f).append('\n');
            return b.toString();
        }
    }

    /** Runs a campaign with the default thread count and output directory. */
    public static Result campaign(long seed, long iterations, long maxMillis) {
        return campaign(seed, iterations, maxMillis, defaultThreads(), Path.of("target", "fuzz"));
    }

    /**
     * How a campaign runs: worker threads, where failing messages go, when a case counts as hung, heap or native
     * memory, and a hook run before each case (tests use it to simulate a hang).
     */
    record Options(int threads, Path outDir, long hangMillis, boolean heap, java.util.function.LongConsumer beforeCase) {
        Options(int threads, Path outDir) { this(threads, outDir, HANG_MILLIS, false, null); }
    }

    static int defaultThreads() { return Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors())); }

    private static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    /**
     * One case of the campaign: the same (seed, iteration) always gives the same bytes. If {@code scribble} is not 0
     * and the message is valid, it is changed in place after validation, with that seed, and read again.
     */
    record Case(byte[] bytes, String origin, boolean random, long scribble) {}

    private static Seed pick(List<Seed> pool, SplittableRandom r) {
        int total = 0;
        for (Seed s : pool) total += s.weight();
        int x = r.nextInt(total);
        for (Seed s : pool) {
            x -= s.weight();
            if (x < 0) return s;
        }
        throw new IllegalStateException();
    }

    static Case makeCase(List<Seed> pool, long seed, long iteration) {
        SplittableRandom r = new SplittableRandom(mix64(seed ^ mix64(iteration + 0x632BE59BD9B4E019L)));
        long scribble = r.nextInt(4) == 0 ? r.nextLong() | 1 : 0;
        if (r.nextInt(100) < 8) return new Case(randomMessage(r), "random bytes", true, scribble);
        Seed base = pick(pool, r);
        Seed other = pick(pool, r);
        return new Case(mutate(base.bytes(), other.bytes(), r), "mutated " + base.name() + " (other: " + other.name() + ")", false, scribble);
    }

    /**
     * Runs {@code iterations} cases (or until {@code maxMillis} have passed) on {@code threads} threads and reports
     * every failure with the seed and iteration that reproduce it; failing messages are written as hex to {@code outDir}.
     */
    public static Result campaign(long seed, long iterations, long maxMillis, int threads, Path outDir) {
        return campaign(seed, iterations, maxMillis, new Options(threads, outDir));
    }

    static Result campaign(long seed, long iterations, long maxMillis, Options options) {
        Path outDir = options.outDir();
        long start = System.nanoTime();
        long deadline = maxMillis >= Long.MAX_VALUE / 2_000_000 ? Long.MAX_VALUE : start + maxMillis * 1_000_000;
        WireReader reader = new WireReader(LIMITS);
        Stats stats = new Stats();
        List<Seed> pool = pool(seed);
        Checker poolChecker = new Checker(reader, stats, options.heap());
        for (Seed s : pool) { // the pool itself must read back (but for the two deliberately over the limits)
            try {
                Outcome o = poolChecker.check(s.bytes());
                if (o == Outcome.REJECTED && !s.name().startsWith("too many")) {
                    fail(stats, seed, -1, "a pool message is rejected: " + poolChecker.lastRule, "pool: " + s.name(), null, s.bytes(), outDir);
                }
            } catch (Throwable t) {
                fail(stats, seed, -1, "a pool message fails: " + t, "pool: " + s.name(), stackTrace(t), s.bytes(), outDir);
            }
        }
        stats.maxValidateAllocation.set(0);
        AtomicLong next = new AtomicLong();
        List<Worker> workers = new ArrayList<>();
        for (int i = 0; i < options.threads(); i++) workers.add(startWorker(new Worker(seed, iterations, deadline, pool, reader, stats, next, options)));
        int hangs = 0;
        boolean stoppedEarly = false;
        while (true) {
            boolean alive = false;
            for (int i = 0; i < workers.size(); i++) {
                Worker w = workers.get(i);
                if (w.thread.isAlive()) alive = true;
                long it = w.current;
                long began = w.began;
                if (it >= 0 && System.nanoTime() - began > options.hangMillis() * 1_000_000 && !w.abandoned) {
                    w.abandoned = true; // it cannot be stopped: leave it (a daemon) and carry on without it
                    hangs++;
                    stats.iterations.increment();
                    fail(stats, seed, it, "hang: one validate and read took more than " + options.hangMillis() + " ms", w.origin,
                            stackTrace(w.thread), w.bytes, outDir);
                    if (hangs >= MAX_HANGS) {
                        stoppedEarly = true;
                        next.set(Long.MAX_VALUE / 2);
                    } else {
                        workers.set(i, startWorker(new Worker(seed, iterations, deadline, pool, reader, stats, next, options)));
                        alive = true;
                    }
                }
            }
            if (!alive) break;
            if (stoppedEarly && workers.stream().allMatch(w -> w.abandoned || !w.thread.isAlive())) break;
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                next.set(Long.MAX_VALUE / 2);
                stoppedEarly = true;
            }
        }
        Map<String, Long> rules = new TreeMap<>();
        stats.rules.forEach((k, v) -> rules.put(k, v.sum()));
        Map<String, Long> kinds = new TreeMap<>();
        stats.failureKinds.forEach((k, v) -> kinds.put(k, v.sum()));
        long elapsed = (System.nanoTime() - start) / 1_000_000;
        List<Failure> failures;
        synchronized (stats.reported) {
            failures = List.copyOf(stats.reported);
        }
        return new Result(seed, stats.iterations.sum(), stats.mutated.sum(), stats.random.sum(), stats.accepted.sum(), stats.rejected.sum(),
                stats.nullRoots.sum(), stats.unreadableRoots.sum(), stats.recordCycles.sum(), rules, stats.scribbled.sum(),
                stats.scribbledRefused.sum(), stats.failures.sum(), kinds, failures,
                allocationCounter() == null ? -1 : stats.maxValidateAllocation.get(), elapsed, stoppedEarly);
    }

    private static Worker startWorker(Worker w) {
        w.thread.start();
        return w;
    }

    /** Takes iterations from a shared counter; publishes the case in progress for the watchdog. */
    private static final class Worker implements Runnable {
        final Thread thread;
        final long seed, iterations, deadline;
        final List<Seed> pool;
        final Stats stats;
        final AtomicLong next;
        final Path outDir;
        final java.util.function.LongConsumer beforeCase;
        final Checker checker;
        volatile long current = -1;
        volatile long began;
        volatile byte[] bytes;
        volatile String origin;
        volatile boolean abandoned;

        Worker(long seed, long iterations, long deadline, List<Seed> pool, WireReader reader, Stats stats, AtomicLong next, Options options) {
            this.seed = seed;
            this.iterations = iterations;
            this.deadline = deadline;
            this.pool = pool;
            this.stats = stats;
            this.next = next;
            this.outDir = options.outDir();
            this.beforeCase = options.beforeCase();
            this.checker = new Checker(reader, stats, options.heap());
            this.thread = new Thread(this, "verbatim-fuzz");
            thread.setDaemon(true);
        }

        @Override
        public void run() {
            while (!abandoned) {
                long it = next.getAndIncrement();
                if (it >= iterations || deadline != Long.MAX_VALUE && System.nanoTime() - deadline > 0) return;
                Case c = makeCase(pool, seed, it);
                bytes = c.bytes();
                origin = c.origin();
                began = System.nanoTime();
                current = it;
                Outcome o = null;
                Throwable failure = null;
                try {
                    if (beforeCase != null) beforeCase.accept(it);
                    o = checker.check(c.bytes(), c.scribble());
                } catch (Throwable t) {
                    failure = t;
                }
                current = -1;
                if (abandoned) return; // the watchdog reported this case as a hang already
                stats.iterations.increment();
                (c.random() ? stats.random : stats.mutated).increment();
                if (failure != null) {
                    String what = failure instanceof Broken b ? b.getMessage() : "escaped: " + failure;
                    String detail = failure instanceof Broken b ? b.detail : stackTrace(failure);
                    fail(stats, seed, it, what, c.origin(), detail, c.bytes(), outDir);
                    continue;
                }
                switch (o) {
                    case REJECTED -> {
                        stats.rejected.increment();
                        stats.rules.computeIfAbsent(checker.lastRule, k -> new LongAdder()).increment();
                    }
                    case ACCEPTED_NULL_ROOT -> { stats.accepted.increment(); stats.nullRoots.increment(); }
                    case ACCEPTED_UNREADABLE_ROOT -> { stats.accepted.increment(); stats.unreadableRoots.increment(); }
                    case ACCEPTED_RECORD_CYCLE -> { stats.accepted.increment(); stats.recordCycles.increment(); }
                    case ACCEPTED_READ -> stats.accepted.increment();
                }
            }
        }
    }

    /** A failure's kind: its description with numbers left out. */
    static String kind(String what) { return what.replaceAll("-?\\d+", "N"); }

    private static void fail(Stats stats, long seed, long iteration, String what, String origin, String detail, byte[] bytes, Path outDir) {
        stats.failures.increment();
        stats.failureKinds.computeIfAbsent(kind(what), k -> new LongAdder()).increment();
        if (stats.reported.size() >= MAX_REPORTED_FAILURES) return;
        Path file = null;
        try {
            Files.createDirectories(outDir);
            file = outDir.resolve("fuzz-" + seed + "-" + (iteration < 0 ? "pool" + stats.reported.size() : Long.toString(iteration)) + ".hex");
            StringBuilder b = new StringBuilder();
            b.append("# ").append(what.replace('\n', ' ')).append('\n');
            b.append("# case: ").append(origin).append('\n');
            b.append("# reproduce: verbatim fuzz --seed ").append(seed).append(" --replay ").append(iteration).append('\n');
            b.append("# ").append(bytes.length).append(" bytes\n");
            HexFormat hex = HexFormat.of();
            for (int i = 0; i < bytes.length; i += 32) b.append(hex.formatHex(bytes, i, Math.min(bytes.length, i + 32))).append('\n');
            if (detail != null) b.append("\n# detail\n").append(detail.length() > 200_000 ? detail.substring(0, 200_000) + "..." : detail).append('\n');
            Files.writeString(file, b.toString(), StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            file = null;
        }
        stats.reported.add(new Failure(seed, iteration, what, origin, detail, file));
    }

    static String stackTrace(Throwable t) {
        StringWriter s = new StringWriter();
        t.printStackTrace(new PrintWriter(s));
        if (t.getStackTrace().length == 0) s.append("(no stack trace: the JIT threw a preallocated exception; --replay shows where)\n");
        return s.toString();
    }

    private static String stackTrace(Thread t) {
        StringBuilder b = new StringBuilder("stack of the hung thread:\n");
        for (StackTraceElement e : t.getStackTrace()) b.append("  at ").append(e).append('\n');
        return b.toString();
    }

    // ================================================================================================ CLI

    /** {@code verbatim fuzz ...}, printing to {@code out}; returns 0 when nothing failed, 1 on failures, 2 on bad usage. */
    public static int run(String[] args, PrintStream out) {
        return run(args, out, out);
    }

    /** As {@link #run(String[], PrintStream)}, with usage errors printed to {@code err}. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        Map<String, String> opts = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--heap")) {
                opts.put(a, "true");
                continue;
            }
            if (!List.of("--seconds", "--iterations", "--seed", "--threads", "--replay", "--out").contains(a) || i + 1 >= args.length) {
                return usage(err, "unexpected argument '" + a + "'");
            }
            opts.put(a, args[++i]);
        }
        long seconds, iterations, seed, replay;
        int threads;
        try {
            seconds = Long.parseLong(opts.getOrDefault("--seconds", opts.containsKey("--iterations") ? "0" : "10"));
            iterations = Long.parseLong(opts.getOrDefault("--iterations", Long.toString(Long.MAX_VALUE)));
            seed = opts.containsKey("--seed") ? Long.decode(opts.get("--seed")) : System.nanoTime() ^ System.currentTimeMillis();
            threads = Integer.parseInt(opts.getOrDefault("--threads", Integer.toString(defaultThreads())));
            replay = Long.parseLong(opts.getOrDefault("--replay", "-1"));
        } catch (NumberFormatException e) {
            return usage(err, "not a number: " + e.getMessage());
        }
        if (seconds < 0 || iterations < 0 || threads < 1) return usage(err, "counts must be positive");
        Path outDir = Path.of(opts.getOrDefault("--out", Path.of("target", "fuzz").toString()));
        boolean heap = opts.containsKey("--heap");
        if (replay >= 0) return replay(seed, replay, heap, out);
        long maxMillis = seconds == 0 ? Long.MAX_VALUE : seconds * 1000;
        out.printf("verbatim fuzz: seed %d, %d thread(s), %s memory, %s; limits %d bytes, %d objects, %d types%n", seed, threads,
                heap ? "heap" : "native",
                seconds == 0 ? iterations + " iterations" : "up to " + seconds + " s" + (iterations == Long.MAX_VALUE ? "" : " or " + iterations + " iterations"),
                LIMITS.maxMessageBytes(), LIMITS.maxObjects(), LIMITS.maxTypes());
        Result r = campaign(seed, iterations, maxMillis, new Options(threads, outDir, HANG_MILLIS, heap, null));
        out.print(r.summary());
        return r.ok() ? 0 : 1;
    }

    /** Runs one iteration on this thread and prints what happened, with the full stack trace of a failure. */
    static int replay(long seed, long iteration, boolean heap, PrintStream out) {
        List<Seed> pool = pool(seed);
        Case c = makeCase(pool, seed, iteration);
        out.printf("seed %d, iteration %d: %s, %d bytes%n", seed, iteration, c.origin(), c.bytes().length);
        HexFormat hex = HexFormat.of();
        for (int i = 0; i < c.bytes().length && i < 4096; i += 32) out.println("  " + hex.formatHex(c.bytes(), i, Math.min(c.bytes().length, i + 32)));
        Checker checker = new Checker(new WireReader(LIMITS), new Stats(), heap);
        try {
            Outcome o = checker.check(c.bytes(), c.scribble());
            out.println(o == Outcome.REJECTED ? "rejected: " + checker.lastRule : "outcome: " + o);
            return 0;
        } catch (Broken b) {
            out.println("FAILED: " + b.getMessage());
            if (b.detail != null) out.println(b.detail);
            return 1;
        } catch (Throwable t) {
            out.println("FAILED: escaped " + t);
            t.printStackTrace(out);
            return 1;
        }
    }

    private static int usage(PrintStream err, String problem) {
        err.println("verbatim fuzz: " + problem);
        err.println("usage: ./verbatim fuzz [--seconds N] [--iterations N] [--seed S] [--threads T] [--heap] [--out DIR]");
        err.println("       ./verbatim fuzz --seed S --replay I [--heap]   re-run iteration I of seed S and print it");
        err.println("  --seconds N     stop after N seconds (default 10; 0 = no time limit)");
        err.println("  --iterations N  stop after N messages");
        err.println("  --seed S        reproducible campaign (default: a random seed, printed)");
        err.println("  --threads T     worker threads (default: min(4, cores))");
        err.println("  --heap          read messages from heap segments (default: native memory, as a transport hands them over)");
        err.println("  --out DIR       where failing messages are written as hex (default target/fuzz)");
        return 2;
    }
}
