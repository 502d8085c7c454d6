package dev.verbatim.wire;

import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

import dev.verbatim.wire.file.WireFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.*;

/**
 * {@code Map<K, V>}, {@code Set<T>}, {@code Collection<T>} and {@code Optional<T>}: round trips through
 * materialization (JDK collections, the sender's iteration order kept) and views (maps and sets read in place, with
 * lookups by key searched in the message), the validator's rules (keys unique and in order, the order a permutation),
 * evolution by field name, and stored files.
 */
class CollectionTypesTest {
    public enum Color { RED, GREEN, BLUE }
    public record Address(String street, String city) {}
    public interface AddressView { CharSequence street(); CharSequence city(); }
    public record Profile(String name, Map<String, String> attrs, Set<String> tags, Collection<Integer> scores,
                          Optional<String> nick, Optional<Address> home, Map<Color, List<Integer>> byColor, Set<UUID> ids,
                          Map<Integer, Address> byNumber, Map<Address, Color> byAddress, LocalDate born) {}
    public interface ProfileView {
        CharSequence name(); Map<String, String> attrs(); Set<String> tags(); Collection<Integer> scores();
        Optional<String> nick(); Optional<AddressView> home(); Map<Color, List<Integer>> byColor(); Set<UUID> ids();
        Map<Integer, AddressView> byNumber(); LocalDate born();
    }

    static final WireWriter W = new WireWriter();
    static final WireReader R = new WireReader();

    static Message roundTrip(Object o) { return R.validate(MemorySegment.ofArray(W.toByteArray(o))); }

    static Profile sample() {
        Map<String, String> attrs = new LinkedHashMap<>(); // an order that is not the keys' order
        for (String k : List.of("zeta", "alpha", "mu", "", "Beta", "\u00e9t\u00e9", "\u4e2d")) attrs.put(k, k.toUpperCase() + "!");
        Set<String> tags = new LinkedHashSet<>(List.of("z", "a", "m"));
        Map<Color, List<Integer>> byColor = new LinkedHashMap<>();
        byColor.put(Color.BLUE, List.of(3));
        byColor.put(Color.RED, List.of(1, 1));
        Map<Integer, Address> byNumber = new LinkedHashMap<>();
        Address shared = new Address("1 Main St", "Springfield");
        byNumber.put(42, shared);
        byNumber.put(-7, new Address("2 Elm St", "Shelbyville"));
        byNumber.put(0, shared);
        Map<Address, Color> byAddress = new LinkedHashMap<>();
        byAddress.put(shared, Color.GREEN);
        byAddress.put(new Address("3 Oak St", "Ogdenville"), null);
        return new Profile("Ada", attrs, tags, List.of(5, 3, 5), Optional.of("ada"), Optional.of(shared), byColor,
                new LinkedHashSet<>(List.of(UUID.randomUUID(), UUID.randomUUID())), byNumber, byAddress, LocalDate.of(1815, 12, 10));
    }

    @Test
    void everyCollectionTypeRoundTripsKeepingTheSendersOrder() {
        Profile p = sample();
        Profile back = roundTrip(p).materialize(Profile.class);
        assertEquals(p, back);
        assertEquals(List.copyOf(p.attrs().keySet()), List.copyOf(back.attrs().keySet()), "iteration order kept");
        assertEquals(List.copyOf(p.tags()), List.copyOf(back.tags()));
        assertEquals(List.copyOf(p.byNumber().keySet()), List.copyOf(back.byNumber().keySet()));
        assertSame(back.home().orElseThrow(), back.byNumber().get(42), "sharing kept through optionals and maps");
        assertSame(back.byNumber().get(0), back.byNumber().get(42));
        Profile empty = new Profile("x", Map.of(), Set.of(), List.of(), Optional.empty(), Optional.empty(), Map.of(), Set.of(),
                Map.of(), Map.of(), null);
        assertEquals(empty, roundTrip(empty).materialize(Profile.class));
    }

    @Test
    void aNullOptionalIsWrittenAsEmpty() {
        Profile p = new Profile("x", null, null, null, null, null, null, null, null, null, null);
        Profile back = roundTrip(p).materialize(Profile.class);
        assertEquals(Optional.empty(), back.nick());
        assertNull(back.attrs());
    }

    @Test
    void mapsAndSetsAreReadInPlaceThroughViews() {
        Profile p = sample();
        ProfileView v = roundTrip(p).view(ProfileView.class);
        Map<String, String> attrs = v.attrs();
        assertEquals(p.attrs().size(), attrs.size());
        for (var e : p.attrs().entrySet()) assertEquals(e.getValue(), attrs.get(e.getKey()), e.getKey());
        assertNull(attrs.get("nope"));
        assertNull(attrs.get(42), "a probe of another type is not a key");
        assertFalse(attrs.containsKey("alph"));
        assertTrue(attrs.containsKey(new StringBuilder("mu")), "any CharSequence finds a string key");
        assertEquals(List.copyOf(p.attrs().keySet()), List.copyOf(attrs.keySet()), "iteration in the sender's order");
        assertEquals(p.attrs(), attrs);
        assertTrue(v.tags().contains("m"));
        assertFalse(v.tags().contains("b"));
        assertEquals(List.of("z", "a", "m"), List.copyOf(v.tags()));
        assertEquals(List.of(5, 3, 5), List.copyOf(v.scores()));
        assertEquals(Optional.of("ada"), v.nick());
        assertEquals("Springfield", v.home().orElseThrow().city().toString());
        assertEquals(List.of(1, 1), v.byColor().get(Color.RED));
        assertNull(v.byColor().get(Color.GREEN));
        assertEquals("2 Elm St", v.byNumber().get(-7).street().toString());
        assertNull(v.byNumber().get(7));
        assertNull(v.byNumber().get(42L), "a Long is not an Integer key");
        assertEquals(p.ids(), v.ids());
        assertTrue(v.ids().contains(p.ids().iterator().next()), "keys without an in-place order are found by equals");
        assertEquals(p.born(), v.born());
    }

    @Test
    void lookupsFindEveryKeyOfLargeMapsOfEachOrderedKind() {
        Map<String, String> strings = new HashMap<>();
        Map<Integer, String> ints = new HashMap<>();
        Map<Double, String> doubles = new LinkedHashMap<>();
        for (int i = 0; i < 500; i++) {
            strings.put(Integer.toString(i * 7919, 36), "s" + i);
            ints.put(i * 7919 - 1_000_000, "i" + i);
        }
        for (double d : new double[] {Double.NaN, 0.0, -0.0, Double.NEGATIVE_INFINITY, 1e300, -1e-300}) doubles.put(d, "d" + d);
        record Maps(Map<String, String> strings, Map<Integer, String> ints, Map<Double, String> doubles) {}
        Message m = roundTrip(new Maps(strings, ints, doubles));
        assertEquals(new Maps(strings, ints, doubles), m.materialize(Maps.class));
        MapsView v = m.view(MapsView.class);
        for (var e : strings.entrySet()) assertEquals(e.getValue(), v.strings().get(e.getKey()));
        for (var e : ints.entrySet()) assertEquals(e.getValue(), v.ints().get(e.getKey()));
        for (var e : doubles.entrySet()) assertEquals(e.getValue(), v.doubles().get(e.getKey()), "" + e.getKey());
        assertNull(v.ints().get(1));
    }

    public interface MapsView { Map<String, String> strings(); Map<Integer, String> ints(); Map<Double, String> doubles(); }

    public record Tags(Set<String> tags) {}
    public record Pairs(Map<String, Integer> m) {}

    /** The map's 4-byte words: [n][keys][values][order], from its object-table entry. */
    private static long keyedAt(Message m, Class<?> shapeOf) {
        for (int i = 0; i < m.objectCount(); i++) {
            if (m.shapeOf(i).isKeyed()) return MessageDescriptor.entryOffset(m.entries[i]);
        }
        throw new AssertionError("no map or set");
    }

    private static void refused(Object value, String rule, java.util.function.BiConsumer<MemorySegment, Long> change) {
        MemorySegment seg = MemorySegment.ofArray(W.toByteArray(value));
        long at = keyedAt(R.validate(seg), null);
        change.accept(seg, at);
        WireFormatException e = assertThrows(WireFormatException.class, () -> R.validate(seg));
        assertTrue(e.getMessage().contains(rule), e.getMessage());
    }

    @Test
    void theValidatorRequiresUniqueKeysInOrderAndAPermutation() {
        Set<String> abc = new LinkedHashSet<>(List.of("b", "a", "c"));
        // elements at +4, +8, +12 ("b", "a", "c"), the order at +16: 1 0 2
        refused(new Tags(abc), "not unique and in order", (s, at) -> s.set(MessageDescriptor.I32, at + 8, s.get(MessageDescriptor.I32, at + 4)));
        refused(new Tags(abc), "not unique and in order", (s, at) -> {
            s.set(MessageDescriptor.I32, at + 16, 0);
            s.set(MessageDescriptor.I32, at + 20, 1);
        });
        refused(new Tags(abc), "not unique and in order", (s, at) -> s.set(MessageDescriptor.I32, at + 20, 1));
        refused(new Tags(abc), "not a permutation", (s, at) -> s.set(MessageDescriptor.I32, at + 20, 3));
        refused(new Tags(abc), "negative map or set length", (s, at) -> s.set(MessageDescriptor.I32, at, -1));
        refused(new Tags(abc), "map or set overruns the tables", (s, at) -> s.set(MessageDescriptor.I32, at, 1 << 20));
        Map<String, Integer> m = new LinkedHashMap<>();
        m.put("y", 1);
        m.put("x", 2);
        refused(new Pairs(m), "reference to an object of the wrong type", (s, at) -> s.set(MessageDescriptor.I32, at + 12, 0));
        refused(new Pairs(m), "not unique and in order", (s, at) -> s.set(MessageDescriptor.I32, at + 4, s.get(MessageDescriptor.I32, at + 8)));
        Set<String> two = new LinkedHashSet<>(List.of("q", "p"));
        Message ok = roundTrip(new Tags(two));
        assertEquals(two, ok.materialize(Tags.class).tags());
    }

    public record Point(int x, int y) {}
    public record Places(Map<Point, String> names) {}

    @Test
    void keysDistinctOnTheWireButEqualByEqualsAreRefusedWhenMaterialized() {
        Map<Point, String> names = new LinkedHashMap<>();
        names.put(new Point(1, 2), "a");
        names.put(new Point(1, 3), "b");
        MemorySegment seg = MemorySegment.ofArray(W.toByteArray(new Places(names)));
        Message before = R.validate(seg);
        int second = -1;
        for (int i = 0; i < before.objectCount(); i++) if (before.shapeOf(i) == Schema.of(Point.class).shape) second = i;
        seg.set(MessageDescriptor.I32, MessageDescriptor.entryOffset(before.entries[second]) + Schema.of(Point.class).shape.field("y").offset, 2);
        Message m = R.validate(seg); // two Point objects: distinct keys by the wire's order (object index)
        WireFormatException e = assertThrows(WireFormatException.class, () -> m.materialize(Places.class));
        assertTrue(e.getMessage().contains("not unique"), e.getMessage());
    }

    /** A mutable class key whose hash depends on fields the materializer sets after creating it. */
    public static final class Key {
        String id;
        Key() {}
        Key(String id) { this.id = id; }
        @Override public boolean equals(Object o) { return o instanceof Key k && Objects.equals(id, k.id); }
        @Override public int hashCode() { return Objects.hashCode(id); }
    }
    public record Keyed(Map<Key, Integer> m, Set<Key> s) {}

    @Test
    void classKeysAreHashedOnceFilled() {
        Map<Key, Integer> m = new LinkedHashMap<>();
        for (int i = 0; i < 20; i++) m.put(new Key("k" + i), i);
        Keyed back = roundTrip(new Keyed(m, new LinkedHashSet<>(m.keySet()))).materialize(Keyed.class);
        for (int i = 0; i < 20; i++) {
            assertEquals(i, back.m().get(new Key("k" + i)));
            assertTrue(back.s().contains(new Key("k" + i)));
        }
    }

    public record ProfileV1(String name, Map<String, String> attrs) {}
    public record ProfileV2(String name, Map<String, String> attrs, Set<String> tags, Optional<String> nick) {}
    public interface ProfileV2View { CharSequence name(); Optional<String> nick(); Set<String> tags(); }

    @Test
    void fieldsOfTheNewTypesEvolveByName() {
        Map<String, String> attrs = Map.of("k", "v");
        ProfileV2 v2 = roundTrip(new ProfileV1("n", attrs)).materialize(ProfileV2.class);
        assertEquals(new ProfileV2("n", attrs, null, Optional.empty()), v2, "an added Optional reads as empty");
        ProfileV2View view = roundTrip(new ProfileV1("n", attrs)).view(ProfileV2View.class);
        assertEquals(Optional.empty(), view.nick());
        assertNull(view.tags());
        assertEquals(new ProfileV1("n", attrs), roundTrip(new ProfileV2("n", attrs, Set.of("t"), Optional.of("x"))).materialize(ProfileV1.class));
    }

    @Test
    void descriptionsAndFingerprints() {
        assertEquals("struct{attrs:map(string,string);name:string}", Schema.describe(ProfileV1.class));
        assertEquals("struct{attrs:map(string,string);name:string;nick:optional(string);tags:set(string)}", Schema.describe(ProfileV2.class));
        assertEquals(Schema.fingerprint(ProfileV1.class), Schema.fingerprint(ProfileV1View.class), "a record and its view agree");
        TypeDictionary d = new TypeDictionary();
        d.learnAll(TypeDictionary.describe(Profile.class));
        assertThrows(WireFormatException.class, () -> d.learn("struct{a:list(optional(string))}"));
        assertThrows(WireFormatException.class, () -> d.learn("struct{a:map(i32,string)}"));
        assertThrows(WireSchemaException.class, () -> Schema.describe(BadOptional.class));
    }

    public interface ProfileV1View { Map<String, String> attrs(); CharSequence name(); }

    public interface Roots { Map<String, Integer> map(); Set<UUID> set(); List<Address> list(); Optional<String> opt(); }

    static java.lang.reflect.Type rootType(String accessor) throws Exception { return Roots.class.getMethod(accessor).getGenericReturnType(); }

    @Test
    void aGenericTypeIsARoot() throws Exception {
        Map<String, Integer> m = new LinkedHashMap<>();
        m.put("b", 2);
        m.put("a", 1);
        java.lang.reflect.Type mt = rootType("map");
        byte[] b = new byte[(int) W.sizeOf(m, mt)];
        W.write(m, mt, MemorySegment.ofArray(b), 0);
        Message msg = R.validate(MemorySegment.ofArray(b));
        assertEquals(m, msg.materialize(mt));
        assertEquals(List.of("b", "a"), List.copyOf(((Map<?, ?>) msg.materialize(mt)).keySet()));
        assertEquals(2, ((Map<?, ?>) msg.view(mt)).get("b"));
        assertEquals("map(string,box(i32))", Schema.describe(mt));
        Set<UUID> ids = new LinkedHashSet<>(List.of(UUID.randomUUID(), UUID.randomUUID()));
        java.lang.reflect.Type st = rootType("set");
        byte[] b2 = new byte[(int) W.sizeOf(ids, st)];
        W.write(ids, st, MemorySegment.ofArray(b2), 0);
        assertEquals(ids, R.validate(MemorySegment.ofArray(b2)).materialize(st));
        List<Address> as = List.of(new Address("s", "c"));
        java.lang.reflect.Type lt = rootType("list");
        byte[] b3 = new byte[(int) W.sizeOf(as, lt)];
        W.write(as, lt, MemorySegment.ofArray(b3), 0);
        assertEquals(as, R.validate(MemorySegment.ofArray(b3)).materialize(lt));
        assertThrows(WireSchemaException.class, () -> W.sizeOf(Optional.of("x"), rootType("opt")));
    }

    public record BadOptional(List<Optional<String>> xs) {}
    public record SetOfLists(Set<List<String>> xs) {}
    public record Tree(String name, Set<Tree> kids) {}
    public record Holder(List<String> items) {}
    public record ByHolder(Map<Holder, String> m) {}
    public record Fine(Map<Point, String> a, Set<UUID> b, Map<Address, Color> c, Set<int[]> d) {}

    @Test
    void keysMustHashInTimeTheirTypeBounds() {
        // a set of sets sharing their elements hashes in time exponential in its depth: refused by type
        for (Class<?> c : List.of(SetOfLists.class, Tree.class, ByHolder.class)) {
            WireSchemaException e = assertThrows(WireSchemaException.class, () -> Schema.describe(c), c.getSimpleName());
            assertTrue(e.getMessage().contains("must hash in time bounded"), e.getMessage());
        }
        Schema.describe(Fine.class);
    }

    public record ManyMaps(List<Map<String, Integer>> maps) {}

    @Test
    void stringKeysCostAtMostABudgetToCheck() {
        String p = "x".repeat(4000);
        Map<String, Integer> one = new LinkedHashMap<>();
        one.put(p + "b", 1);
        one.put(p + "a", 2);
        List<Map<String, Integer>> maps = new ArrayList<>();
        for (int i = 0; i < 2000; i++) maps.add(new LinkedHashMap<>(one)); // 2000 maps, the same two key strings
        byte[] b = W.toByteArray(new ManyMaps(maps));
        WireFormatException e = assertThrows(WireFormatException.class, () -> R.validate(MemorySegment.ofArray(b)));
        assertTrue(e.getMessage().contains("cost more to compare"), e.getMessage());
        assertEquals(maps.subList(0, 20), roundTrip(new ManyMaps(maps.subList(0, 20))).materialize(ManyMaps.class).maps());
    }

    @Test
    void theNewTypesAreStoredInFiles(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("profile.vrbt");
        Profile p = sample();
        WireFile.write(f, p);
        try (WireFile file = WireFile.open(f)) {
            assertEquals(p, file.materialize(Profile.class));
            assertEquals("ZETA!", file.view(ProfileView.class).attrs().get("zeta"));
        }
        assertTrue(Files.size(f) > 0);
    }
}
