package dev.verbatim.fuzz;

import dev.verbatim.wire.ArrayView;
import dev.verbatim.wire.ByReference;
import dev.verbatim.wire.Schema;
import dev.verbatim.wire.WireName;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The types the campaign's messages are made of, each with its accessor-interface twin (same structure, same
 * fingerprint): every primitive kind, boxes, strings, enums, primitive arrays and their array views, arrays and
 * lists of references, records, a sealed hierarchy with a direct record-to-record reference (so a mutated message
 * can close a cycle through records), a mutable class (cycles), and an older version of {@link Holder} read by
 * field name (schema evolution), {@link Extras}: the JDK value types, maps, sets, a collection and optionals, and
 * {@link Desk}: reference slots ({@link ByReference}) resolved through the campaign's one table, {@link #PARTIES}.
 *
 * <p>Invariant, checked when the class loads: a type and its twin have the same fingerprint, so every root in
 * {@link #READERS} can be materialized as its type and viewed as its twin.
 */
public final class FuzzTypes {
    private FuzzTypes() {}

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

    /**
     * The types beyond the papers': the JDK value types, maps (string, enum, int and record keys), sets, a
     * collection and optionals; {@code next} chains them (so maps and sets are shared and nested across objects).
     */
    public record Extras(java.time.Instant instant, java.time.Duration duration, java.time.LocalDate date, java.time.LocalTime time,
                         java.time.LocalDateTime dateTime, java.time.OffsetDateTime offsetDateTime, java.time.ZonedDateTime zoned,
                         java.util.UUID id, java.math.BigInteger big, java.math.BigDecimal dec, Map<String, Leaf> byName,
                         Map<Color, List<Integer>> byColor, Map<Integer, String> byNumber, Map<Leaf, Color> byLeaf,
                         java.util.Set<String> tags, java.util.Set<Leaf> leaves, java.util.Collection<Long> longs,
                         java.util.Optional<Leaf> maybeLeaf, java.util.Optional<String> maybeText, Extras next) {}

    /** {@link Extras} read in place: maps and sets searched in the message, leaves as views. */
    public interface ExtrasV {
        java.time.Instant instant(); java.time.Duration duration(); java.time.LocalDate date(); java.time.LocalTime time();
        java.time.LocalDateTime dateTime(); java.time.OffsetDateTime offsetDateTime(); java.time.ZonedDateTime zoned();
        java.util.UUID id(); java.math.BigInteger big(); java.math.BigDecimal dec(); Map<String, LeafV> byName();
        Map<Color, List<Integer>> byColor(); Map<Integer, String> byNumber(); Map<Leaf, Color> byLeaf();
        java.util.Set<String> tags(); java.util.Set<LeafV> leaves(); java.util.Collection<Long> longs();
        java.util.Optional<LeafV> maybeLeaf(); java.util.Optional<String> maybeText(); ExtrasV next();
    }

    /** Passed by reference ({@link ByReference}): a reference slot, an index into {@link #PARTIES}. */
    public interface Party extends ByReference { String name(); }

    public record Member(String name) implements Party {}

    /** Reference slots in a field, a list, an array and a map's values; {@code next} chains desks. */
    public record Desk(String label, Party party, List<Party> parties, Party[] array, Map<String, Party> byName, Desk next) {}

    public interface DeskV { CharSequence label(); Party party(); List<Party> parties(); Party[] array(); Map<String, Party> byName(); DeskV next(); }

    /**
     * The one table of references every message of the campaign is written and read with: three members, entered by
     * identity. A message without slots ignores it; a mutated slot beyond it is refused by the validator.
     */
    static final Parties PARTIES = new Parties();

    /** A fixed table of references: its writer side finds a member's index, its reader side hands the member out. */
    static final class Parties implements ByReference.Sink, ByReference.Source {
        final List<Member> members = List.of(new Member("ann"), new Member("bob"), new Member("cy"));

        @Override public int enter(Object value, Class<?> declared) {
            for (int i = 0; i < members.size(); i++) if (members.get(i) == value) return i;
            throw new IllegalArgumentException("not a member of the campaign's table: " + value);
        }

        @Override public int size() { return members.size(); }

        @Override public Object resolve(int index, Class<?> declared) { return members.get(index); }
    }

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
                {Extras.class, ExtrasV.class, null}, {Desk.class, DeskV.class, null},
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

    /** True if the wire type a view reads is a record (the materializer can build no cycle of those). */
    static boolean isRecordBacked(Object view) {
        ReadAs how = READERS.get(Structs.fingerprint(view));
        return how != null && how.type().isRecord();
    }
}
