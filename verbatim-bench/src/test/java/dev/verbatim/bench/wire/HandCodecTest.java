package dev.verbatim.bench.wire;

import dev.verbatim.bench.fixtures.EventBatch;
import dev.verbatim.bench.fixtures.Graphs;
import dev.verbatim.bench.fixtures.Payloads;
import dev.verbatim.bench.fixtures.Profile;
import dev.verbatim.bench.fixtures.Trade;
import dev.verbatim.wire.WireFormatException;
import dev.verbatim.wire.WireReader;
import dev.verbatim.wire.WireWriter;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;

import static dev.verbatim.bench.wire.HandSchema.I32;
import static dev.verbatim.bench.wire.HandSchema.I64;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The hand-written codec (the format's floor in {@code bench wire}) is Verbatim's format: it writes the bytes
 * {@code WireWriter} writes, reads what the library reads, and refuses what the library's validator refuses. No
 * timing.
 */
class HandCodecTest {

    /** The suite's payloads and variants with nulls, UTF-16 strings, a shipping address, empty collections. */
    private static List<Object> payloads() {
        Trade t = Payloads.trade();
        Profile p = Payloads.profile();
        Map<String, String> attrs = new LinkedHashMap<>();
        attrs.put("zeta", "Zürich ☃");
        attrs.put("alpha", null);
        attrs.put("mid", "m");
        Profile.Address shipping = new Profile.Address("1 Rue de l'Étoile", "Paris", null, "FR");
        List<EventBatch.Event> events = new ArrayList<>(Payloads.events(3).events());
        events.add(new EventBatch.Event(7, null, "src", null));
        List<EventBatch.Event> gaps = new ArrayList<>(Arrays.asList(null, events.get(0), null, null, events.get(3), null));
        Map<String, String> large = new LinkedHashMap<>(); // past the library's insertion sort of keys (32)
        for (int i = 0; i < 100; i++) {
            large.put("key-" + (i * 37 % 100), i % 9 == 0 ? null : "v" + i);
        }
        Map<String, String> nullKey = new LinkedHashMap<>();
        nullKey.put("b", "1");
        nullKey.put(null, "0");
        nullKey.put("a", null);
        String longLatin1 = "x".repeat(70) + "é", longUtf16 = "ü".repeat(40) + "☃".repeat(30);
        return List.of(t, p, Payloads.events(100), Payloads.events(0),
                new Trade(1, 2, 3, -0.0, Double.NaN, null, null, "Ωmega", null, t.orderId()),
                new Trade(1, 2, 3, 4, 5, Trade.Side.SHORT_SELL, "x", null, Instant.MIN, null),
                new Profile(5, p.person(), List.of(), attrs, LocalDate.of(2024, 2, 29), null, shipping),
                new Profile(6, new Profile.Person(null, "Ł", -1, null), new ArrayList<>(List.of("a", "ä", "☃")),
                        new LinkedHashMap<>(), null, "n", null),
                new EventBatch(events), new EventBatch(gaps), new EventBatch(null),
                new Profile(7, null, null, null, null, longLatin1, new Profile.Address(longUtf16, null, null, null)),
                new Profile(8, new Profile.Person("a", "b", 1, null), new ArrayList<>(Arrays.asList("t", null)), large,
                        null, null, null),
                new Profile(9, new Profile.Person(null, null, 0, new Profile.Address("2 Elm", "Leeds", "LS1", "GB")), null,
                        nullKey, null, null, shipping), // (nothing shared: the hand-written writer keeps no identity)
                new Trade(1, 2, 3, 4, 5, Trade.Side.BUY, longLatin1, longUtf16, Instant.MAX, new UUID(-1, 0)));
    }

    private static MemorySegment library(Object root) {
        byte[] b = new WireWriter().toByteArray(root);
        MemorySegment m = Arena.ofAuto().allocate(b.length, 8);
        MemorySegment.copy(MemorySegment.ofArray(b), 0, m, 0, b.length);
        return m;
    }

    @Test
    void theHandWrittenBytesAreTheLibrarys() throws Exception {
        HandCodec hand = new HandCodec(false);
        for (Object root : payloads()) {
            MemorySegment expected = library(root);
            long size = hand.receive(root);
            assertEquals(expected.byteSize(), size, root.toString());
            assertEquals(-1, expected.mismatch(hand.received()), "first byte that differs, writing " + root);
        }
    }

    @Test
    void theHandReaderReadsWhatTheViewsAndTheMaterializerRead() throws Exception {
        HandCodec read = new HandCodec(false);
        HandCodec materialize = new HandCodec(true);
        for (Object root : List.of(Payloads.trade(), Payloads.profile(), Payloads.events(100), payloads().get(6))) {
            for (HandCodec c : List.of(read, materialize)) {
                c.receive(root);
                MessageKind kind = root instanceof Trade ? MessageKind.TRADE : root instanceof Profile ? MessageKind.PROFILE
                        : MessageKind.EVENTS;
                assertEquals(Graphs.touch(root), c.unmarshal(kind), c.name() + " on " + root);
                assertNull(Graphs.diff(root, c.decode()), c.name() + " on " + root);
            }
        }
        for (Object root : payloads()) { // nulls everywhere: decode builds them all back
            read.receive(root);
            assertNull(Graphs.diff(root, read.decode()), root.toString());
        }
    }

    /**
     * Damages {@code root}'s message with {@code damage}: both the library's validator and the hand reader refuse it,
     * the hand reader under {@code rule} (the library's wording is its own).
     */
    private static void bothRefuse(Object root, String rule, Consumer<MemorySegment> damage) throws Exception {
        bothRefuse(root, rule, damage, -1);
    }

    /** {@link #bothRefuse(Object, String, Consumer)} of the message's first {@code length} bytes (-1: all). */
    private static void bothRefuse(Object root, String rule, Consumer<MemorySegment> damage, long length) throws Exception {
        HandCodec hand = new HandCodec(false);
        hand.receive(root);
        MemorySegment whole = library(root);
        hand.check(whole); // intact: accepted
        MemorySegment m = length < 0 ? whole : whole.asSlice(0, length);
        damage.accept(m);
        assertThrows(WireFormatException.class, () -> new WireReader().validate(m), "the library refuses: " + rule);
        WireFormatException e = assertThrows(WireFormatException.class, () -> hand.check(m), "the hand reader refuses: " + rule);
        assertEquals(rule, e.rule());
    }

    private static long entry(MemorySegment m, int i) {
        long h = m.get(I64, 0);
        return m.byteSize() - 8L * (h >>> 32) + 8L * i;
    }

    private static long offset(MemorySegment m, int i) {
        return m.get(I64, entry(m, i)) & 0xFFFF_FFFFL;
    }

    @Test
    void theHandReaderRefusesWhatTheFormatRefuses() throws Exception {
        Trade t = Payloads.trade(); // objects: 0 trade, 1 instant, 2 uuid, 3 symbol, 4 venue
        bothRefuse(t, "unknown version or non-zero flags", m -> m.set(ValueLayout.JAVA_BYTE, 0, (byte) 2));
        bothRefuse(t, "unknown version or non-zero flags", m -> m.set(ValueLayout.JAVA_BYTE, 1, (byte) 1));
        bothRefuse(t, "object or type count does not fit the message", m -> m.set(I32, 4, 1000));
        bothRefuse(t, "unknown type", m -> m.set(I64, m.byteSize() - 48, 12345L));
        bothRefuse(t, "reference out of range", m -> m.set(I32, 8 + 52, 5));
        bothRefuse(t, "reference to an object of another type", m -> m.set(I32, 8 + 52, 1));
        bothRefuse(t, "enum ordinal out of range", m -> m.set(I32, 8 + 48, 3));
        bothRefuse(t, "instant out of range", m -> m.set(I32, 72 + 8, 1_000_000_000));
        bothRefuse(t, "object not where the previous one ends", m -> m.set(I32, entry(m, 3), 112));
        bothRefuse(t, "invalid type id", m -> m.set(I32, entry(m, 3) + 4, 65));
        bothRefuse(t, "object does not fit", m -> m.set(I32, 112, 9));
        Profile p = Payloads.profile(); // 1 map at 40, 2 date at 104, 5 tags
        bothRefuse(p, "map keys not strictly ascending", m -> m.set(I32, 40 + 4 + 40 + 4, 0));
        bothRefuse(p, "map order index out of range", m -> m.set(I32, 40 + 4 + 40, 5));
        bothRefuse(p, "date out of range", m -> m.set(ValueLayout.JAVA_BYTE, 104 + 5, (byte) 13));
        bothRefuse(p, "date out of range", m -> m.set(ValueLayout.JAVA_BYTE, 104 + 4, (byte) 31)); // 31 April
        bothRefuse(p, "reference to an object of another type", m -> m.set(I32, 8 + 20, 5)); // person: the tags
        EventBatch b = Payloads.events(4); // 1 the list, 2..5 events, 6.. strings
        bothRefuse(b, "reference to an object of another type", m -> m.set(I32, 16 + 4, 6));
        bothRefuse(b, "enum ordinal out of range", m -> m.set(I32, 40 + 24 + 8, -2)); // the second event's kind
        bothRefuse(b, "object not where the previous one ends", m -> m.set(I32, 16, 3)); // a list shorter than its object
        bothRefuse(b, "bytes between the objects and the tables", m -> m.set(I32, offset(m, 13), 3)); // the last string
        bothRefuse(b, "object does not fit", m -> m.set(I32, 16, -1)); // a negative list length
        bothRefuse(t, "instant out of range", m -> m.set(I64, 72, Long.MAX_VALUE));
        bothRefuse(p, "fingerprint twice in the type table", m -> m.set(I64, 480 + 8, m.get(I64, 480)));
        bothRefuse(t, "message shorter than its header", m -> { }, 7);
    }

    @Test
    void theHandMaterializerKeepsTheSharingOfTheLibrarysMessages() throws Exception {
        Profile.Address both = new Profile.Address("1 Main St", "Springfield", "12345", "US");
        String shared = both.city();
        Profile p = new Profile(1, new Profile.Person(shared, "Simpson", 39, both), new ArrayList<>(List.of(shared)),
                new LinkedHashMap<>(Map.of("city", shared)), null, null, both);
        HandCodec hand = new HandCodec(false);
        hand.receive(p);
        Profile back = (Profile) hand.decode(library(p)); // WireWriter writes each shared object once
        assertNull(Graphs.diff(p, back));
        assertSame(back.person().home(), back.shipping());
        assertSame(back.person().firstName(), back.tags().get(0));
        assertSame(back.tags().get(0), back.attributes().get("city"));
        assertSame(back.shipping().city(), back.tags().get(0));
        EventBatch.Event e = new EventBatch.Event(1, EventBatch.Kind.CREATED, shared, shared);
        EventBatch b = new EventBatch(new ArrayList<>(List.of(e, e)));
        hand.receive(b);
        EventBatch events = (EventBatch) hand.decode(library(b));
        assertSame(events.events().get(0), events.events().get(1));
        assertSame(events.events().get(0).source(), events.events().get(0).message());
    }

    @Test
    void aMessageOfAnotherPayloadIsRefused() throws Exception {
        HandCodec hand = new HandCodec(false);
        hand.receive(Payloads.trade());
        WireFormatException e = assertThrows(WireFormatException.class, () -> hand.check(library(Payloads.events(2))));
        assertEquals("root of another type", e.rule());
        MemorySegment nullRoot = library(Payloads.events(1)).asSlice(0, 8); // a valid message: the null root
        nullRoot.set(I64, 0, 1L);
        new WireReader().validate(nullRoot);
        assertEquals("a null root, not a payload", assertThrows(WireFormatException.class, () -> hand.check(nullRoot)).rule());
    }

    @Test
    void onlyThePayloadsAreCarried() {
        HandCodec hand = new HandCodec(false);
        assertThrows(IllegalArgumentException.class, () -> hand.receive(new byte[3]));
        assertThrows(IllegalArgumentException.class, () -> hand.receive(null));
        assertEquals(List.of("verbatim-hand", "verbatim-hand-materialize"),
                List.of(hand.name(), new HandCodec(true).name()));
    }
}
