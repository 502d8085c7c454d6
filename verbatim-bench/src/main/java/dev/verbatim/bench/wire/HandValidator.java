package dev.verbatim.bench.wire;

import dev.verbatim.bench.fixtures.EventBatch;
import dev.verbatim.bench.fixtures.Trade;
import dev.verbatim.wire.WireFormatException;

import java.lang.foreign.MemorySegment;

import static dev.verbatim.bench.wire.HandSchema.*;

/**
 * The validation of the hand-written codec ({@link HandReader}): the rules of docs/wire-format.md §4 that the suite's
 * payload types call on, with the schema known in advance. Rule 1 (version, flags; not the reader's size limit), 2
 * (the counts fit the message; not the reader's count limits), 3 (every fingerprint one of the payloads' types, none
 * twice), 4 and 6 (one walk of the object table: each object where the previous one ends, of a valid type, fitting
 * before the tables, nothing between the last and the tables), 5 (every struct's references and ordinals, every
 * list's elements), 7 (the value types' ranges) and 8 (a map's keys and values, its order a permutation listing the
 * keys strictly ascending; not its budget of chars). There are no reference slots (rule 9). The root must be of the
 * payload's type. Refusals are {@link WireFormatException}s with the rule's short name. The object table is copied out
 * ({@link #offsets}, {@link #kinds}), as {@code WireReader} copies it. Only the suite's built-in types (strings,
 * {@code Instant}, {@code LocalDate}, {@code UUID}) are known: stricter than the format. Not thread-safe.
 */
final class HandValidator {
    private final long[] fingerprints = HandSchema.fingerprints();
    private final int[] tableKinds = new int[KINDS];
    private static final int SIDES = Trade.Side.values().length;
    private static final int EVENT_KINDS = EventBatch.Kind.values().length;
    private MemorySegment m;
    /** The objects of the message last checked: their count, offsets and kinds. */
    int n;
    long[] offsets = new long[64];
    int[] kinds = new int[64];

    /**
     * Validates {@code message} as a payload whose root is of {@code rootKind}; returns its object count. A null root
     * (an 8-byte message) is refused: the suite's payloads are never null.
     */
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
        if (n == 0) {
            throw bad(0, "a null root, not a payload", 0);
        }
        if (kinds[0] != rootKind) {
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
                case T_STRING -> STRING;
                case T_INSTANT -> INSTANT;
                case T_LOCAL_DATE -> LOCAL_DATE;
                case T_UUID -> UUID_KIND;
                default -> {
                    if (id < FIRST_TABLE_ID || id - FIRST_TABLE_ID >= types) {
                        throw bad(table + 8L * i, "invalid type id", id);
                    }
                    yield tableKinds[id - FIRST_TABLE_ID];
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
                ref(o + TRADE_EXECUTED_AT, INSTANT);
                ref(o + TRADE_ORDER_ID, UUID_KIND);
                ordinal(o + TRADE_SIDE, SIDES);
                ref(o + TRADE_SYMBOL, STRING);
                ref(o + TRADE_VENUE, STRING);
            }
            case PROFILE -> {
                ref(o + PROFILE_ATTRIBUTES, STRING_MAP);
                ref(o + PROFILE_JOINED, LOCAL_DATE);
                ref(o + PROFILE_NICKNAME, STRING);
                ref(o + PROFILE_PERSON, PERSON);
                ref(o + PROFILE_SHIPPING, ADDRESS);
                ref(o + PROFILE_TAGS, STRING_LIST);
            }
            case PERSON -> {
                ref(o + PERSON_FIRST_NAME, STRING);
                ref(o + PERSON_HOME, ADDRESS);
                ref(o + PERSON_LAST_NAME, STRING);
            }
            case ADDRESS -> {
                for (int f : new int[] {ADDRESS_CITY, ADDRESS_COUNTRY, ADDRESS_POSTCODE, ADDRESS_STREET}) {
                    ref(o + f, STRING);
                }
            }
            case BATCH -> ref(o + BATCH_EVENTS, EVENT_LIST);
            case EVENT -> {
                ordinal(o + EVENT_KIND, EVENT_KINDS);
                ref(o + EVENT_MESSAGE, STRING);
                ref(o + EVENT_SOURCE, STRING);
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
                long seconds = m.get(I64, o + INSTANT_SECONDS);
                int nanos = m.get(I32, o + INSTANT_NANOS);
                if (seconds < -31557014167219200L || seconds > 31556889864403199L || nanos < 0 || nanos >= 1_000_000_000) {
                    throw bad(o, "instant out of range", seconds);
                }
            }
            case LOCAL_DATE -> {
                int year = m.get(I32, o + DATE_YEAR);
                int day = m.get(I8, o + DATE_DAY);
                int month = m.get(I8, o + DATE_MONTH);
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
        return word < 0 ? m.get(U16, o + 4 + 2L * k) : (char) (m.get(I8, o + 4 + k) & 0xFF);
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

}
