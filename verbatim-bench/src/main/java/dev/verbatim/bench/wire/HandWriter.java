package dev.verbatim.bench.wire;

import dev.verbatim.bench.fixtures.EventBatch;
import dev.verbatim.bench.fixtures.Profile;
import dev.verbatim.bench.fixtures.Trade;

import java.lang.foreign.MemorySegment;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static dev.verbatim.bench.wire.HandSchema.*;

/**
 * The payloads written by hand in Verbatim's wire format (docs/wire-format.md): the same bytes {@code WireWriter} writes
 * for a {@link Trade}, a {@link Profile} and an {@link EventBatch} (checked byte for byte by {@code HandCodecTest}),
 * by code that knows each payload's schema: the objects placed in the writer's breadth-first order by straight-line
 * code, each struct's fields stored at their layout's offsets, no queue of objects, no generated writer, no look-up of
 * types, and <b>no identity index</b>: an object referenced twice is written twice (the suite's payloads share
 * nothing, so the bytes are the same). What is left is what the format itself asks of a writer: every object at an
 * 8-aligned offset, its 8-byte object-table entry, strings as objects of their own. It is the format's floor for
 * {@code marshal}, measured beside {@code WireWriter} in {@code bench wire} ({@code verbatim-hand}).
 *
 * <p>Strings are written as {@code WireWriter} writes short ones: their chars a word at a time with the zero padding,
 * checked to fit Latin-1 in the same pass (UTF-16 otherwise). A map's key order is sorted by insertion: fine for the
 * suite's five attributes, quadratic in a map's size. Not thread-safe; the destination must hold the message.
 */
final class HandWriter {
    private final long[] fingerprints = HandSchema.fingerprints();
    private long[] entries = new long[64];
    private int count;
    private long pos;
    private MemorySegment seg;
    /** Message-local type ids by kind (0: not used yet), and the kinds in type-table order. */
    private final int[] typeIds = new int[KINDS];
    private final int[] typeTable = new int[KINDS];
    private int typeCount;
    private int[] order = new int[16];
    /** An event's aligned size. */
    private static final int EVENT_ALIGNED = (SIZES[EVENT] + 7) & ~7;

    /** Writes {@code root} (a suite payload) at {@code dst[0..]}; returns the message length. */
    long write(Object root, MemorySegment dst) {
        if (root == null) {
            throw new IllegalArgumentException("the hand-written codec writes the suite's payloads, never a null root");
        }
        seg = dst;
        count = 0;
        typeCount = 0;
        Arrays.fill(typeIds, 0);
        pos = 8;
        switch (root) {
            case Trade t -> trade(t);
            case Profile p -> profile(p);
            case EventBatch b -> events(b);
            default -> throw new IllegalArgumentException("not a suite payload: " + root.getClass());
        }
        return finish();
    }

    // ---- the payloads, in the writer's breadth-first order --------------------------------

    private void trade(Trade t) {
        int next = 1;
        int exec = t.executedAt() == null ? -1 : next++;
        int order = t.orderId() == null ? -1 : next++;
        int symbol = t.symbol() == null ? -1 : next++;
        int venue = t.venue() == null ? -1 : next++;
        long at = object(TRADE, SIZES[TRADE]);
        seg.set(I64, at + TRADE_ACCOUNT_ID, t.accountId());
        seg.set(I64, at + TRADE_FEE, Double.doubleToRawLongBits(t.fee()));
        seg.set(I64, at + TRADE_PRICE, Double.doubleToRawLongBits(t.price()));
        seg.set(I64, at + TRADE_QUANTITY, t.quantity());
        seg.set(I64, at + TRADE_TRADE_ID, t.tradeId());
        // the 4-byte fields two to a word (the layout's last word: venue, then the padding)
        seg.set(I64, at + TRADE_EXECUTED_AT, (exec & 0xFFFF_FFFFL) | (long) order << 32);
        seg.set(I64, at + TRADE_SIDE, (ordinal(t.side()) & 0xFFFF_FFFFL) | (long) symbol << 32);
        seg.set(I64, at + TRADE_VENUE, venue & 0xFFFF_FFFFL);
        if (exec >= 0) {
            instant(t.executedAt());
        }
        if (order >= 0) {
            uuid(t.orderId());
        }
        string(t.symbol());
        string(t.venue());
    }

    private void profile(Profile p) {
        int next = 1;
        Map<String, String> attrs = p.attributes();
        int attributes = attrs == null ? -1 : next++;
        int joined = p.joined() == null ? -1 : next++;
        int nickname = p.nickname() == null ? -1 : next++;
        Profile.Person person = p.person();
        int personAt = person == null ? -1 : next++;
        int shipping = p.shipping() == null ? -1 : next++;
        int tags = p.tags() == null ? -1 : next++;
        long at = object(PROFILE, SIZES[PROFILE]);
        seg.set(I64, at + PROFILE_ID, p.profileId());
        seg.set(I64, at + PROFILE_ATTRIBUTES, (attributes & 0xFFFF_FFFFL) | (long) joined << 32);
        seg.set(I64, at + PROFILE_NICKNAME, (nickname & 0xFFFF_FFFFL) | (long) personAt << 32);
        seg.set(I64, at + PROFILE_SHIPPING, (shipping & 0xFFFF_FFFFL) | (long) tags << 32);
        // Level 1: the objects the profile references, each numbering what it references.
        if (attrs != null) {
            next = map(attrs, next);
        }
        if (joined >= 0) {
            localDate(p.joined());
        }
        string(p.nickname());
        int home = -1;
        if (person != null) {
            int first = person.firstName() == null ? -1 : next++;
            home = person.home() == null ? -1 : next++;
            int last = person.lastName() == null ? -1 : next++;
            long o = object(PERSON, SIZES[PERSON]);
            seg.set(I64, o + PERSON_AGE, (person.age() & 0xFFFF_FFFFL) | (long) first << 32);
            seg.set(I64, o + PERSON_HOME, (home & 0xFFFF_FFFFL) | (long) last << 32);
        }
        if (shipping >= 0) {
            next = address(p.shipping(), next);
        }
        if (tags >= 0) {
            next = stringList(p.tags(), next);
        }
        // Level 2: the map's strings, the person's, the shipping address's and the tags.
        if (attrs != null) {
            for (String k : attrs.keySet()) {
                string(k);
            }
            for (String v : attrs.values()) {
                string(v);
            }
        }
        if (person != null) {
            string(person.firstName());
            if (home >= 0) {
                next = address(person.home(), next);
            }
            string(person.lastName());
        }
        if (shipping >= 0) {
            addressStrings(p.shipping());
        }
        if (tags >= 0) {
            for (String s : p.tags()) {
                string(s);
            }
        }
        // Level 3: the home address's strings.
        if (home >= 0) {
            addressStrings(person.home());
        }
    }

    private void events(EventBatch b) {
        List<EventBatch.Event> events = b.events();
        long at = object(BATCH, SIZES[BATCH]);
        seg.set(I64, at + BATCH_EVENTS, events == null ? 0xFFFF_FFFFL : 1);
        if (events == null) {
            return;
        }
        int n = events.size();
        long list = object(EVENT_LIST, 4 + 4L * n);
        MemorySegment s = seg;
        s.set(I32, list, n);
        int next = 2; // a null event takes no index: the events after it are numbered on
        for (int i = 0; i < n; i++) {
            s.set(I32, list + 4 + 4L * i, events.get(i) == null ? -1 : next++);
        }
        // The events, then their strings: straight-line stores, the entries kept in locals.
        if (entries.length < count + 3 * n) {
            entries = Arrays.copyOf(entries, count + 3 * n);
        }
        long[] e = entries;
        int k = count;
        long p = pos;
        long event = 0; // the events' type id, taken at the first (a type-table entry only if one is written)
        for (int i = 0; i < n; i++) {
            EventBatch.Event x = events.get(i);
            if (x == null) {
                continue;
            }
            int message = x.message() == null ? -1 : next++;
            int source = x.source() == null ? -1 : next++;
            if (event == 0) {
                event = (long) typeId(EVENT) << 32;
            }
            e[k++] = event | p;
            s.set(I64, p + EVENT_SEQUENCE, x.sequence());
            s.set(I64, p + EVENT_KIND, (ordinal(x.kind()) & 0xFFFF_FFFFL) | (long) message << 32);
            s.set(I64, p + EVENT_SOURCE, source & 0xFFFF_FFFFL);
            p += EVENT_ALIGNED;
        }
        long string = (long) BUILTIN_IDS[STRING] << 32;
        for (int i = 0; i < n; i++) {
            EventBatch.Event x = events.get(i);
            if (x == null) {
                continue;
            }
            if (x.message() != null) {
                e[k++] = string | p;
                p = string(x.message(), s, p);
            }
            if (x.source() != null) {
                e[k++] = string | p;
                p = string(x.source(), s, p);
            }
        }
        count = k;
        pos = p;
    }

    // ---- objects ------------------------------------------------------------------------

    /** A map of strings: its keys, its values, the key order; returns the next free index. */
    private int map(Map<String, String> m, int next) {
        int n = m.size();
        long at = object(STRING_MAP, 4 + 12L * n);
        seg.set(I32, at, n);
        String[] keys = m.keySet().toArray(new String[0]);
        int i = 0;
        for (String k : keys) {
            seg.set(I32, at + 4 + 4L * i++, k == null ? -1 : next++);
        }
        for (String v : m.values()) {
            seg.set(I32, at + 4 + 4L * i++, v == null ? -1 : next++);
        }
        if (order.length < n) {
            order = new int[n];
        }
        for (int j = 0; j < n; j++) { // insertion sort of the key indices, nulls first
            int k = j;
            while (k > 0 && less(keys[j], keys[order[k - 1]])) {
                order[k] = order[k - 1];
                k--;
            }
            order[k] = j;
        }
        MemorySegment.copy(order, 0, seg, I32, at + 4 + 8L * n, n);
        return next;
    }

    private static boolean less(String a, String b) {
        return a == null ? b != null : b != null && a.compareTo(b) < 0;
    }

    private int address(Profile.Address a, int next) {
        int city = a.city() == null ? -1 : next++;
        int country = a.country() == null ? -1 : next++;
        int postcode = a.postcode() == null ? -1 : next++;
        int street = a.street() == null ? -1 : next++;
        long o = object(ADDRESS, SIZES[ADDRESS]);
        seg.set(I64, o + ADDRESS_CITY, (city & 0xFFFF_FFFFL) | (long) country << 32);
        seg.set(I64, o + ADDRESS_POSTCODE, (postcode & 0xFFFF_FFFFL) | (long) street << 32);
        return next;
    }

    private void addressStrings(Profile.Address a) {
        string(a.city());
        string(a.country());
        string(a.postcode());
        string(a.street());
    }

    private int stringList(List<String> l, int next) {
        int n = l.size();
        long at = object(STRING_LIST, 4 + 4L * n);
        seg.set(I32, at, n);
        int i = 0;
        for (String s : l) {
            seg.set(I32, at + 4 + 4L * i++, s == null ? -1 : next++);
        }
        return next;
    }

    private void instant(Instant t) {
        long at = object(INSTANT, SIZES[INSTANT]);
        seg.set(I64, at + INSTANT_SECONDS, t.getEpochSecond());
        seg.set(I64, at + INSTANT_NANOS, t.getNano() & 0xFFFF_FFFFL);
    }

    private void uuid(UUID u) {
        long at = object(UUID_KIND, SIZES[UUID_KIND]);
        seg.set(I64, at + UUID_HIGH, u.getMostSignificantBits());
        seg.set(I64, at + UUID_LOW, u.getLeastSignificantBits());
    }

    private void localDate(LocalDate d) {
        long at = object(LOCAL_DATE, SIZES[LOCAL_DATE]);
        seg.set(I64, at + DATE_YEAR, (d.getYear() & 0xFFFF_FFFFL) | (long) d.getDayOfMonth() << (8 * DATE_DAY)
                | (long) d.getMonthValue() << (8 * DATE_MONTH));
    }

    /** A string object, if {@code s} is not null. */
    private void string(String s) {
        if (s != null) {
            entry(STRING);
            pos = string(s, seg, pos);
        }
    }

    /** Writes string {@code s} at {@code at}, its chars a word at a time with the padding; returns where it ends. */
    private static long string(String s, MemorySegment seg, long at) {
        int n = s.length();
        long w = n;
        int wide = 0;
        int j = 4; // the byte of the object the next char goes to
        for (int i = 0; i < n; i++, j++) {
            char c = s.charAt(i);
            wide |= c;
            w |= (long) (c & 0xFF) << ((j & 7) << 3);
            if ((j & 7) == 7) {
                seg.set(I64, at + j - 7, w);
                w = 0;
            }
        }
        if (wide <= 0xFF) {
            if ((j & 7) != 0) {
                seg.set(I64, at + (j & ~7), w);
            }
            return at + ((4 + n + 7) & ~7L);
        }
        long size = 4 + 2L * n; // a char beyond Latin-1: UTF-16, over the words written
        long end = at + ((size + 7) & ~7L);
        seg.set(I64, end - 8, 0);
        seg.set(I32, at, n | 0x8000_0000);
        for (int i = 0; i < n; i++) {
            seg.set(U16, at + 4 + 2L * i, s.charAt(i));
        }
        return end;
    }

    // ---- framing ------------------------------------------------------------------------

    /** Places an object of {@code size} bytes of kind {@code kind}: its entry, its zeroed last word; its offset. */
    private long object(int kind, long size) {
        long at = pos;
        entry(kind);
        long end = at + ((size + 7) & ~7L);
        seg.set(I64, end - 8, 0); // the padding (and the last field, stored over it)
        pos = end;
        return at;
    }

    private void entry(int kind) {
        if (count == entries.length) {
            entries = Arrays.copyOf(entries, count * 2);
        }
        entries[count++] = (long) typeId(kind) << 32 | pos;
    }

    private int typeId(int kind) {
        int builtin = BUILTIN_IDS[kind];
        if (builtin != 0) {
            return builtin;
        }
        int id = typeIds[kind];
        if (id == 0) {
            typeTable[typeCount] = kind;
            id = FIRST_TABLE_ID + typeCount++;
            typeIds[kind] = id;
        }
        return id;
    }

    private long finish() {
        for (int k = 0; k < typeCount; k++) {
            seg.set(I64, pos + 8L * k, fingerprints[typeTable[k]]);
        }
        long table = pos + 8L * typeCount;
        MemorySegment.copy(entries, 0, seg, I64, table, count);
        seg.set(I64, 0, 1 | (long) typeCount << 16 | (long) count << 32);
        return table + 8L * count;
    }

    private static int ordinal(Enum<?> e) {
        return e == null ? -1 : e.ordinal();
    }
}
