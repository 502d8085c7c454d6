package dev.verbatim.fuzz;

import dev.verbatim.fuzz.FuzzTypes.Arrays8;
import dev.verbatim.fuzz.FuzzTypes.Boxes;
import dev.verbatim.fuzz.FuzzTypes.Chain;
import dev.verbatim.fuzz.FuzzTypes.Circle;
import dev.verbatim.fuzz.FuzzTypes.Color;
import dev.verbatim.fuzz.FuzzTypes.Extras;
import dev.verbatim.fuzz.FuzzTypes.Holder;
import dev.verbatim.fuzz.FuzzTypes.Leaf;
import dev.verbatim.fuzz.FuzzTypes.Node;
import dev.verbatim.fuzz.FuzzTypes.Poly;
import dev.verbatim.fuzz.FuzzTypes.Prims;
import dev.verbatim.fuzz.FuzzTypes.Rect;
import dev.verbatim.fuzz.FuzzTypes.Shape;
import dev.verbatim.fuzz.FuzzTypes.Unit;
import dev.verbatim.fuzz.FuzzTypes.Units;
import dev.verbatim.wire.WireWriter;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The corpus: the valid messages the campaign mutates, generated from a seed. Graphs of the {@link FuzzTypes}
 * (the {@code Extras} among them: value types, maps, sets, optionals)
 * (nulls, sharing and cycles included, of three sizes), a null root, an empty holder, a chain of 1,500 records,
 * long lists, big arrays and strings, a ring of 200 nodes, nested polygons with a cycle through a list, and two
 * messages over the campaign's limits ({@link MessageOracle#LIMITS}), always rejected but whose mutations take
 * other paths.
 *
 * <p>Invariants: the same seed gives the same corpus, byte for byte; every message in it is valid and reads back
 * but for the two over the limits (the campaign checks this before its first case).
 */
final class Corpus {
    private Corpus() {}

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

        private static final String[] ZONES = {"UTC", "Z", "Europe/Paris", "America/New_York", "Asia/Kolkata", "+05:30", "GMT-03:00"};

        /** An {@link Extras} and, {@code depth} levels down, the ones it chains to: values, maps, sets, optionals. */
        Extras extras(int depth) {
            java.time.LocalDateTime ldt = java.time.LocalDateTime.of(java.time.LocalDate.ofEpochDay(r.nextLong(-365243219162L, 365241780472L)),
                    java.time.LocalTime.ofNanoOfDay(r.nextLong(86_400_000_000_000L)));
            java.time.ZoneOffset offset = java.time.ZoneOffset.ofTotalSeconds(r.nextInt(-18 * 3600, 18 * 3600 + 1));
            java.time.LocalDateTime near = java.time.LocalDateTime.of(1900 + r.nextInt(300), 1 + r.nextInt(12), 1 + r.nextInt(28),
                    r.nextInt(24), r.nextInt(60), r.nextInt(60), r.nextInt(1_000_000_000));
            byte[] mag = new byte[r.nextInt(40)];
            r.nextBytes(mag);
            java.math.BigInteger big = mag.length == 0 ? java.math.BigInteger.ZERO : new java.math.BigInteger(mag);
            Map<String, Leaf> byName = new java.util.LinkedHashMap<>();
            for (int i = r.nextInt(6); i > 0; i--) byName.put(i == 1 && r.nextInt(4) == 0 ? null : text(r, r.nextInt(6)), ref(leaves, this::leaf));
            Map<Color, List<Integer>> byColor = new java.util.LinkedHashMap<>();
            for (int i = r.nextInt(4); i > 0; i--) byColor.put(color(), r.nextInt(4) == 0 ? null : new ArrayList<>(List.of(r.nextInt(), r.nextInt(9))));
            Map<Integer, String> byNumber = new java.util.LinkedHashMap<>();
            for (int i = r.nextInt(8); i > 0; i--) byNumber.put(r.nextInt(-50, 50), string());
            Map<Leaf, Color> byLeaf = new java.util.LinkedHashMap<>();
            for (int i = r.nextInt(4); i > 0; i--) byLeaf.put(ref(leaves, this::leaf), color());
            java.util.Set<String> tags = new java.util.LinkedHashSet<>();
            for (int i = r.nextInt(6); i > 0; i--) tags.add(string());
            java.util.Set<Leaf> leafSet = new java.util.LinkedHashSet<>();
            for (int i = r.nextInt(4); i > 0; i--) leafSet.add(ref(leaves, this::leaf));
            List<Long> longs = new ArrayList<>();
            for (int i = r.nextInt(4); i > 0; i--) longs.add(r.nextInt(5) == 0 ? null : r.nextLong());
            return new Extras(
                    r.nextInt(5) == 0 ? null : java.time.Instant.ofEpochSecond(r.nextLong(-31557014167219200L, 31556889864403200L), r.nextInt(1_000_000_000)),
                    java.time.Duration.ofSeconds(r.nextLong(), r.nextInt(1_000_000_000)), ldt.toLocalDate(), ldt.toLocalTime(), ldt,
                    java.time.OffsetDateTime.of(ldt, offset), java.time.ZonedDateTime.of(near, java.time.ZoneId.of(ZONES[r.nextInt(ZONES.length)])),
                    r.nextInt(5) == 0 ? null : new java.util.UUID(r.nextLong(), r.nextLong()), big,
                    new java.math.BigDecimal(big, r.nextInt(-40, 40)), byName, byColor, byNumber, byLeaf, tags, leafSet, longs,
                    java.util.Optional.ofNullable(r.nextBoolean() ? ref(leaves, this::leaf) : null), java.util.Optional.ofNullable(string()),
                    depth > 0 && r.nextBoolean() ? extras(depth - 1) : null);
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

    /** A desk and, {@code depth} levels down, the ones it chains to: members of the table in slots, nulls, repeats. */
    private static FuzzTypes.Desk desk(SplittableRandom r, int depth) {
        List<FuzzTypes.Member> m = FuzzTypes.PARTIES.members;
        java.util.function.Supplier<FuzzTypes.Party> pick = () -> r.nextInt(4) == 0 ? null : m.get(r.nextInt(m.size()));
        List<FuzzTypes.Party> parties = new ArrayList<>();
        for (int k = r.nextInt(5); k > 0; k--) parties.add(pick.get());
        FuzzTypes.Party[] array = new FuzzTypes.Party[r.nextInt(4)];
        for (int k = 0; k < array.length; k++) array[k] = pick.get();
        java.util.Map<String, FuzzTypes.Party> byName = new java.util.LinkedHashMap<>();
        for (int k = r.nextInt(4); k > 0; k--) byName.put("k" + r.nextInt(10), pick.get());
        return new FuzzTypes.Desk("desk" + depth, pick.get(), parties, array, byName, depth > 0 ? desk(r, depth - 1) : null);
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
        SplittableRandom xr = r.split();
        for (int i = 0; i < 12; i++) { // the types beyond the papers'
            pool.add(new Seed("extras " + i, w.toByteArray(new Gen(xr.split(), 12).extras(i % 4))));
        }
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
        SplittableRandom dr = r.split(); // desks: reference slots, in the campaign's one table (FuzzTypes.PARTIES)
        w.references(FuzzTypes.PARTIES);
        for (int i = 0; i < 6; i++) {
            pool.add(new Seed("desk " + i, w.toByteArray(desk(dr.split(), i % 3))));
        }
        w.references(null);
        // Over the limits: always rejected, but their mutations take other paths.
        List<Unit> units = new ArrayList<>();
        for (int i = 0; i < MessageOracle.LIMITS.maxObjects() + 10; i++) units.add(new Unit());
        pool.add(new Seed("too many objects", w.toByteArray(new Units(units))));
        pool.add(new Seed("too many bytes", w.toByteArray(new byte[(int) MessageOracle.LIMITS.maxMessageBytes()])));
        return List.copyOf(pool);
    }
}
