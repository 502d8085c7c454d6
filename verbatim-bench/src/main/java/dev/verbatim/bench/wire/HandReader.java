package dev.verbatim.bench.wire;

import dev.verbatim.bench.fixtures.EventBatch;
import dev.verbatim.bench.fixtures.Profile;
import dev.verbatim.bench.fixtures.Trade;
import dev.verbatim.wire.WireFormatException;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static dev.verbatim.bench.wire.HandSchema.*;
import static dev.verbatim.bench.wire.HandWriter.I32;
import static dev.verbatim.bench.wire.HandWriter.I64;
import static dev.verbatim.bench.wire.HandWriter.U16;

/**
 * The payloads read by hand from Verbatim's wire format: the format's floor for {@code unmarshal} and
 * {@code materialize} beside {@code WireReader} in {@code bench wire} ({@code verbatim-hand},
 * {@code verbatim-hand-materialize}). {@link #check} applies the validation rules of docs/wire-format.md §4 that
 * the payloads' types call on (1-6, 7 for their value types, 8 for the map; there are no reference slots), with
 * the schema known in advance: type-table fingerprints compared with the payloads' own, one walk of the object
 * table, then every struct's references and ordinals, the value types' ranges and the map's key order. The
 * message's object table is copied out (offsets and kinds), as {@code WireReader} does. Then {@code touch} reads
 * every field the suite's view walk reads ({@code Payloads.touchView}: the same sums) straight from the message
 * (Latin-1 strings a word at a time), no view objects; {@code build} makes the heap payload, one heap object per
 * object index (an object referenced twice is built once: the sharing the format keeps).
 *
 * <p>What it leaves out against {@code WireReader}: a message changed after {@link #check} (a shared-memory peer) is
 * not re-checked on read, and map keys' chars are not budgeted (rule 8); both guard against peers that the suite
 * does not have. Not thread-safe.
 */
final class HandReader {
    private final long[] fingerprints = HandSchema.fingerprints();
    private final int[] tableKinds = new int[KINDS];
    private MemorySegment m;
    private int n;
    private long[] offsets = new long[64];
    private int[] kinds = new int[64];
    private byte[] scratch = new byte[64];

    /** Validates {@code message} as a payload whose root is of {@code rootKind}; returns its object count. */
    int check(MemorySegment message, int rootKind) {
        m = message;
        long length = message.byteSize();
        if (length < 8) {
            throw bad(-1, "message shorter than its header", length);
        }
        long h = message.get(I64, 0);
        if ((h & 0xFFFF) != 1) {
            throw bad(0, "unknown version or non-zero flags", h & 0xFFFF);
        }
        int types = (int) (h >>> 16) & 0xFFFF;
        long objects = h >>> 32;
        long tail = length - 8L * types - 8L * objects;
        if (objects > Integer.MAX_VALUE || tail < 8 || (tail & 7) != 0 || objects == 0 && tail != 8) {
            throw bad(0, "object or type count does not fit the message", objects);
        }
        int seen = 0;
        for (int k = 0; k < types; k++) {
            tableKinds[k] = kindOf(message.get(I64, tail + 8L * k), tail + 8L * k);
            if ((seen & 1 << tableKinds[k]) != 0) {
                throw bad(tail + 8L * k, "fingerprint twice in the type table", k);
            }
            seen |= 1 << tableKinds[k];
        }
        n = (int) objects;
        if (offsets.length < n) {
            offsets = new long[n];
            kinds = new int[n];
        }
        walk(tail, types);
        for (int i = 0; i < n; i++) {
            checkObject(i);
        }
        if (n > 0 && kinds[0] != rootKind) {
            throw bad(offsets[0], "root of another type", kinds[0]);
        }
        return n;
    }

    private int kindOf(long fingerprint, long at) {
        for (int k = 0; k < KINDS; k++) {
            if (BUILTIN_IDS[k] == 0 && fingerprints[k] == fingerprint) {
                return k;
            }
        }
        throw bad(at, "unknown type", fingerprint);
    }

    /** Rules 4 and 6: each object where the previous one ends (8-aligned), of a valid type, fitting before the tables. */
    private void walk(long tail, int types) {
        long table = tail + 8L * types;
        long pos = 8;
        for (int i = 0; i < n; i++) {
            long e = m.get(I64, table + 8L * i);
            int id = (int) (e >>> 32);
            if ((e & 0xFFFF_FFFFL) != pos) {
                throw bad(table + 8L * i, "object not where the previous one ends", e & 0xFFFF_FFFFL);
            }
            int kind = switch (id) {
                case 9 -> STRING;
                case 18 -> INSTANT;
                case 20 -> LOCAL_DATE;
                case 25 -> UUID_KIND;
                default -> {
                    if (id < 64 || id - 64 >= types) {
                        throw bad(table + 8L * i, "invalid type id", id);
                    }
                    yield tableKinds[id - 64];
                }
            };
            long size = SIZES[kind];
            if (size < 0) {
                if (pos + 4 > tail) {
                    throw bad(pos, "object does not fit", i);
                }
                int word = m.get(I32, pos);
                size = switch (kind) {
                    case STRING -> 4 + (long) (word & 0x7FFF_FFFF) * (word < 0 ? 2 : 1);
                    case STRING_MAP -> word < 0 ? -1 : 4 + 12L * word;
                    default -> word < 0 ? -1 : 4 + 4L * word;
                };
            }
            if (size < 0 || pos + size > tail) {
                throw bad(pos, "object does not fit", i);
            }
            offsets[i] = pos;
            kinds[i] = kind;
            pos = (pos + size + 7) & ~7L;
        }
        if (n > 0 && pos != tail) {
            throw bad(pos, "bytes between the objects and the tables", tail - pos);
        }
    }

    /** Rules 5, 7 and 8 for object {@code i}. */
    private void checkObject(int i) {
        long o = offsets[i];
        switch (kinds[i]) {
            case TRADE -> {
                ref(o + 40, INSTANT);
                ref(o + 44, UUID_KIND);
                ordinal(o + 48, SIDES.length);
                ref(o + 52, STRING);
                ref(o + 56, STRING);
            }
            case PROFILE -> {
                ref(o + 8, STRING_MAP);
                ref(o + 12, LOCAL_DATE);
                ref(o + 16, STRING);
                ref(o + 20, PERSON);
                ref(o + 24, ADDRESS);
                ref(o + 28, STRING_LIST);
            }
            case PERSON -> {
                ref(o + 4, STRING);
                ref(o + 8, ADDRESS);
                ref(o + 12, STRING);
            }
            case ADDRESS -> {
                for (int f = 0; f < 16; f += 4) {
                    ref(o + f, STRING);
                }
            }
            case BATCH -> ref(o, EVENT_LIST);
            case EVENT -> {
                ordinal(o + 8, EVENT_KINDS.length);
                ref(o + 12, STRING);
                ref(o + 16, STRING);
            }
            case STRING_LIST, EVENT_LIST -> {
                int len = m.get(I32, o);
                int element = kinds[i] == STRING_LIST ? STRING : EVENT;
                for (int k = 0; k < len; k++) {
                    ref(o + 4 + 4L * k, element);
                }
            }
            case STRING_MAP -> checkMap(o);
            case INSTANT -> {
                long seconds = m.get(I64, o);
                int nanos = m.get(I32, o + 8);
                if (seconds < -31557014167219200L || seconds > 31556889864403199L || nanos < 0 || nanos >= 1_000_000_000) {
                    throw bad(o, "instant out of range", seconds);
                }
            }
            case LOCAL_DATE -> {
                int year = m.get(I32, o);
                int day = m.get(ValueLayout.JAVA_BYTE, o + 4);
                int month = m.get(ValueLayout.JAVA_BYTE, o + 5);
                if (year < -999_999_999 || year > 999_999_999 || month < 1 || month > 12 || day < 1
                        || day > java.time.Month.of(month).length(java.time.Year.isLeap(year))) {
                    throw bad(o, "date out of range", year);
                }
            }
            default -> { } // strings and UUIDs: nothing beyond their length
        }
    }

    /** A map of strings: its keys and values are strings, its order lists the keys strictly ascending. */
    private void checkMap(long o) {
        int len = m.get(I32, o);
        for (int k = 0; k < 2 * len; k++) {
            ref(o + 4 + 4L * k, STRING);
        }
        long order = o + 4 + 8L * len;
        int previous = -2;
        for (int k = 0; k < len; k++) {
            int e = m.get(I32, order + 4L * k);
            if (e < 0 || e >= len) {
                throw bad(order + 4L * k, "map order index out of range", e);
            }
            int key = m.get(I32, o + 4 + 4L * e);
            if (previous != -2 && compare(m.get(I32, o + 4 + 4L * previous), key) >= 0) {
                throw bad(order + 4L * k, "map keys not strictly ascending", e);
            }
            previous = e;
        }
    }

    /** Compares two string objects (or null, -1, first) by their chars, as {@code String.compareTo}. */
    private int compare(int a, int b) {
        if (a < 0 || b < 0) {
            return a < 0 ? (b < 0 ? 0 : -1) : 1;
        }
        int wa = m.get(I32, offsets[a]), wb = m.get(I32, offsets[b]);
        int la = wa & 0x7FFF_FFFF, lb = wb & 0x7FFF_FFFF;
        for (int k = 0, end = Math.min(la, lb); k < end; k++) {
            int d = charAt(offsets[a], wa, k) - charAt(offsets[b], wb, k);
            if (d != 0) {
                return d;
            }
        }
        return la - lb;
    }

    private char charAt(long o, int word, int k) {
        return word < 0 ? m.get(U16, o + 4 + 2L * k) : (char) (m.get(ValueLayout.JAVA_BYTE, o + 4 + k) & 0xFF);
    }

    private void ref(long at, int kind) {
        int r = m.get(I32, at);
        if (r != -1 && (r < 0 || r >= n || kinds[r] != kind)) {
            throw bad(at, r < -1 || r >= n ? "reference out of range" : "reference to an object of another type", r);
        }
    }

    private void ordinal(long at, int constants) {
        int v = m.get(I32, at);
        if (v < -1 || v >= constants) {
            throw bad(at, "enum ordinal out of range", v);
        }
    }

    private static WireFormatException bad(long at, String rule, long value) {
        return new WireFormatException(at, rule, Long.toString(value));
    }

    // ---- reading every field (the sums of Payloads.touchView) --------------------------------

    /** The offset of the object a reference at {@code at} names, -1 for null. */
    private long target(long at) {
        int r = m.get(I32, at);
        return r < 0 ? -1 : offsets[r];
    }

    /**
     * A string's length plus its chars (-1 for null), as {@code Payloads.chars}. Latin-1 chars are summed a word at a
     * time: the string's object (8-aligned, padded to 8) holds every word read, the length word and the padding
     * masked off.
     */
    private long chars(long at) {
        int r = m.get(I32, at);
        if (r < 0) {
            return -1;
        }
        long o = offsets[r];
        int word = m.get(I32, o);
        if (word < 0) {
            return utf16Chars(o, word & 0x7FFF_FFFF);
        }
        long end = o + 4 + word;
        long sum = word;
        for (long p = o; p < end; p += 8) {
            long w = m.get(I64, p);
            if (p == o) {
                w &= 0xFFFF_FFFF_0000_0000L; // the length word
            }
            if (end - p < 8) {
                w &= (1L << ((end - p) << 3)) - 1; // the padding
            }
            sum += byteSum(w);
        }
        return sum;
    }

    private long utf16Chars(long o, int len) {
        long sum = len;
        for (int k = 0; k < len; k++) {
            sum += m.get(U16, o + 4 + 2L * k);
        }
        return sum;
    }

    /** The sum of a word's eight bytes, unsigned. */
    private static long byteSum(long w) {
        w = (w & 0x00FF_00FF_00FF_00FFL) + ((w >>> 8) & 0x00FF_00FF_00FF_00FFL);
        w = (w & 0x0000_FFFF_0000_FFFFL) + ((w >>> 16) & 0x0000_FFFF_0000_FFFFL);
        return (w & 0xFFFF_FFFFL) + (w >>> 32);
    }

    long touchTrade() {
        long o = offsets[0];
        long exec = target(o + 40), id = target(o + 44);
        return m.get(I64, o + 32) + m.get(I64, o) + m.get(I64, o + 24) + m.get(I64, o + 16) + m.get(I64, o + 8)
                + m.get(I32, o + 48) + chars(o + 52) + chars(o + 56)
                + (exec < 0 ? 0 : m.get(I64, exec) * 31 + m.get(I32, exec + 8))
                + (id < 0 ? 0 : m.get(I64, id) ^ m.get(I64, id + 8) * 31);
    }

    long touchProfile() {
        long o = offsets[0];
        long person = target(o + 20);
        long sum = m.get(I64, o) + chars(person + 4) + chars(person + 12) + m.get(I32, person)
                + touchAddress(target(person + 8));
        long tags = target(o + 28);
        long strings = 0;
        for (int k = 0, len = m.get(I32, tags); k < len; k++) {
            strings = strings * 31 + chars(tags + 4 + 4L * k);
        }
        long map = target(o + 8);
        int len = m.get(I32, map);
        long entries = len;
        for (int k = 0; k < len; k++) {
            entries = entries * 31 + chars(map + 4 + 4L * k) * 7 + chars(map + 4 + 4L * (len + k));
        }
        long date = target(o + 12);
        return sum + strings + entries
                + m.get(I32, date) * 400L + m.get(ValueLayout.JAVA_BYTE, date + 5) * 31L + m.get(ValueLayout.JAVA_BYTE, date + 4)
                + chars(o + 16) + touchAddress(target(o + 24));
    }

    private long touchAddress(long a) {
        return a < 0 ? -1 : chars(a + 12) + chars(a) + chars(a + 8) + chars(a + 4);
    }

    long touchEvents() {
        long list = target(offsets[0]);
        long sum = 0;
        for (int k = 0, len = m.get(I32, list); k < len; k++) {
            long e = target(list + 4 + 4L * k);
            sum = sum * 31 + m.get(I64, e) + m.get(I32, e + 8) + chars(e + 16) + chars(e + 12);
        }
        return sum;
    }

    // ---- building the heap payload ----------------------------------------------------------

    /**
     * The objects built so far, by object index: a second reference to an object gets the same heap object (the
     * sharing the format keeps, which any reader building heap objects must restore). Cleared per message.
     */
    private Object[] memo = new Object[64];

    private void beginBuild() {
        if (memo.length < n) {
            memo = new Object[n];
        } else {
            java.util.Arrays.fill(memo, 0, n, null);
        }
    }

    private String string(long at) {
        int r = m.get(I32, at);
        if (r < 0) {
            return null;
        }
        if (memo[r] != null) {
            return (String) memo[r];
        }
        long o = offsets[r];
        int word = m.get(I32, o);
        int len = word & 0x7FFF_FFFF;
        String s;
        if (word < 0) {
            char[] c = new char[len];
            MemorySegment.copy(m, U16, o + 4, c, 0, len);
            s = new String(c);
        } else {
            if (scratch.length < len) {
                scratch = new byte[Math.max(len, 2 * scratch.length)];
            }
            MemorySegment.copy(m, ValueLayout.JAVA_BYTE, o + 4, scratch, 0, len);
            s = new String(scratch, 0, len, StandardCharsets.ISO_8859_1);
        }
        memo[r] = s;
        return s;
    }

    private static <E extends Enum<E>> E constant(E[] values, int ordinal) {
        return ordinal < 0 ? null : values[ordinal];
    }

    private static final Trade.Side[] SIDES = Trade.Side.values();
    private static final EventBatch.Kind[] EVENT_KINDS = EventBatch.Kind.values();

    Trade buildTrade() {
        beginBuild();
        long o = offsets[0];
        int exec = m.get(I32, o + 40), id = m.get(I32, o + 44);
        return new Trade(m.get(I64, o + 32), m.get(I64, o), m.get(I64, o + 24),
                Double.longBitsToDouble(m.get(I64, o + 16)), Double.longBitsToDouble(m.get(I64, o + 8)),
                constant(SIDES, m.get(I32, o + 48)), string(o + 52), string(o + 56),
                exec < 0 ? null : Instant.ofEpochSecond(m.get(I64, offsets[exec]), m.get(I32, offsets[exec] + 8)),
                id < 0 ? null : new UUID(m.get(I64, offsets[id]), m.get(I64, offsets[id] + 8)));
    }

    Profile buildProfile() {
        beginBuild();
        long o = offsets[0];
        int p = m.get(I32, o + 20);
        Profile.Person person = null;
        if (p >= 0) {
            long at = offsets[p];
            person = new Profile.Person(string(at + 4), string(at + 12), m.get(I32, at), buildAddress(at + 8));
        }
        long tags = target(o + 28);
        List<String> tagList = null;
        if (tags >= 0) {
            int len = m.get(I32, tags);
            tagList = new ArrayList<>(len);
            for (int k = 0; k < len; k++) {
                tagList.add(string(tags + 4 + 4L * k));
            }
        }
        long map = target(o + 8);
        Map<String, String> attributes = null;
        if (map >= 0) {
            int len = m.get(I32, map);
            attributes = new LinkedHashMap<>(2 * len);
            for (int k = 0; k < len; k++) {
                attributes.put(string(map + 4 + 4L * k), string(map + 4 + 4L * (len + k)));
            }
        }
        long date = target(o + 12);
        LocalDate joined = date < 0 ? null : LocalDate.of(m.get(I32, date), m.get(ValueLayout.JAVA_BYTE, date + 5),
                m.get(ValueLayout.JAVA_BYTE, date + 4));
        return new Profile(m.get(I64, o), person, tagList, attributes, joined, string(o + 16), buildAddress(o + 24));
    }

    /** The address a reference at {@code at} names (one object per index), null for null. */
    private Profile.Address buildAddress(long at) {
        int r = m.get(I32, at);
        if (r < 0) {
            return null;
        }
        if (memo[r] == null) {
            long a = offsets[r];
            memo[r] = new Profile.Address(string(a + 12), string(a), string(a + 8), string(a + 4));
        }
        return (Profile.Address) memo[r];
    }

    EventBatch buildEvents() {
        beginBuild();
        long list = target(offsets[0]);
        if (list < 0) {
            return new EventBatch(null);
        }
        int len = m.get(I32, list);
        List<EventBatch.Event> events = new ArrayList<>(len);
        for (int k = 0; k < len; k++) {
            int r = m.get(I32, list + 4 + 4L * k);
            if (r >= 0 && memo[r] == null) {
                long e = offsets[r];
                memo[r] = new EventBatch.Event(m.get(I64, e), constant(EVENT_KINDS, m.get(I32, e + 8)), string(e + 16),
                        string(e + 12));
            }
            events.add(r < 0 ? null : (EventBatch.Event) memo[r]);
        }
        return new EventBatch(events);
    }
}
