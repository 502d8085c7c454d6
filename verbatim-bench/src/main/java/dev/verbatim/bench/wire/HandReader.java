package dev.verbatim.bench.wire;

import dev.verbatim.bench.fixtures.EventBatch;
import dev.verbatim.bench.fixtures.Profile;
import dev.verbatim.bench.fixtures.Trade;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static dev.verbatim.bench.wire.HandSchema.*;

/**
 * The payloads read by hand from Verbatim's wire format, for the format's floor beside {@code WireReader} in
 * {@code bench wire} ({@code verbatim-hand}, {@code verbatim-hand-materialize}). {@link #check} validates
 * ({@link HandValidator}); then {@code touch} reads every field the suite's view walk reads
 * ({@code Payloads.touchView}: the same sums, and the same failure on a null it follows) straight from the message
 * (Latin-1 strings a word at a time), no view objects; {@code build} makes the heap payload, one heap object per
 * object index (an object referenced twice is built once: the sharing the format keeps).
 *
 * <p>What it leaves out against {@code WireReader}: a message changed after {@link #check} (a shared-memory peer) is
 * not re-checked on read. Not thread-safe.
 */
final class HandReader {
    private final HandValidator validator = new HandValidator();
    /** The message last checked, and its objects' offsets (the validator's copy of the object table). */
    private MemorySegment m;
    private int n;
    private long[] offsets;
    private byte[] scratch = new byte[64];

    /** Validates {@code message} ({@link HandValidator}) and reads it from now on; returns its object count. */
    int check(MemorySegment message, int rootKind) {
        n = validator.check(message, rootKind);
        m = message;
        offsets = validator.offsets;
        return n;
    }


    // ---- reading every field (the sums of Payloads.touchView) --------------------------------

    /** The offset of the object a reference at {@code at} names, -1 for null. */
    private long target(long at) {
        int r = m.get(I32, at);
        return r < 0 ? -1 : offsets[r];
    }

    /** {@link #target} of a reference the suite's view walk follows without a null check: null fails as it does there. */
    private long required(long at) {
        long o = target(at);
        if (o < 0) {
            throw new NullPointerException("a null reference at offset " + at + ", which the suite's reads follow");
        }
        return o;
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
        long exec = target(o + TRADE_EXECUTED_AT), id = target(o + TRADE_ORDER_ID);
        return m.get(I64, o + TRADE_TRADE_ID) + m.get(I64, o + TRADE_ACCOUNT_ID) + m.get(I64, o + TRADE_QUANTITY)
                + m.get(I64, o + TRADE_PRICE) + m.get(I64, o + TRADE_FEE) + m.get(I32, o + TRADE_SIDE)
                + chars(o + TRADE_SYMBOL) + chars(o + TRADE_VENUE)
                + (exec < 0 ? 0 : m.get(I64, exec + INSTANT_SECONDS) * 31 + m.get(I32, exec + INSTANT_NANOS))
                + (id < 0 ? 0 : m.get(I64, id + UUID_HIGH) ^ m.get(I64, id + UUID_LOW) * 31);
    }

    long touchProfile() {
        long o = offsets[0];
        long person = required(o + PROFILE_PERSON);
        long sum = m.get(I64, o + PROFILE_ID) + chars(person + PERSON_FIRST_NAME) + chars(person + PERSON_LAST_NAME)
                + m.get(I32, person + PERSON_AGE) + touchAddress(target(person + PERSON_HOME));
        long tags = required(o + PROFILE_TAGS);
        long strings = 0;
        for (int k = 0, len = m.get(I32, tags); k < len; k++) {
            strings = strings * 31 + chars(tags + 4 + 4L * k);
        }
        long map = required(o + PROFILE_ATTRIBUTES);
        int len = m.get(I32, map);
        long entries = len;
        for (int k = 0; k < len; k++) {
            entries = entries * 31 + chars(map + 4 + 4L * k) * 7 + chars(map + 4 + 4L * (len + k));
        }
        long date = required(o + PROFILE_JOINED);
        return sum + strings + entries
                + m.get(I32, date + DATE_YEAR) * 400L + m.get(I8, date + DATE_MONTH) * 31L + m.get(I8, date + DATE_DAY)
                + chars(o + PROFILE_NICKNAME) + touchAddress(target(o + PROFILE_SHIPPING));
    }

    private long touchAddress(long a) {
        return a < 0 ? -1 : chars(a + ADDRESS_STREET) + chars(a + ADDRESS_CITY) + chars(a + ADDRESS_POSTCODE)
                + chars(a + ADDRESS_COUNTRY);
    }

    long touchEvents() {
        long list = required(offsets[0] + BATCH_EVENTS);
        long sum = 0;
        for (int k = 0, len = m.get(I32, list); k < len; k++) {
            long e = required(list + 4 + 4L * k);
            sum = sum * 31 + m.get(I64, e + EVENT_SEQUENCE) + m.get(I32, e + EVENT_KIND) + chars(e + EVENT_SOURCE)
                    + chars(e + EVENT_MESSAGE);
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
            MemorySegment.copy(m, I8, o + 4, scratch, 0, len);
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
        long exec = target(o + TRADE_EXECUTED_AT), id = target(o + TRADE_ORDER_ID);
        return new Trade(m.get(I64, o + TRADE_TRADE_ID), m.get(I64, o + TRADE_ACCOUNT_ID), m.get(I64, o + TRADE_QUANTITY),
                Double.longBitsToDouble(m.get(I64, o + TRADE_PRICE)), Double.longBitsToDouble(m.get(I64, o + TRADE_FEE)),
                constant(SIDES, m.get(I32, o + TRADE_SIDE)), string(o + TRADE_SYMBOL), string(o + TRADE_VENUE),
                exec < 0 ? null : Instant.ofEpochSecond(m.get(I64, exec + INSTANT_SECONDS), m.get(I32, exec + INSTANT_NANOS)),
                id < 0 ? null : new UUID(m.get(I64, id + UUID_HIGH), m.get(I64, id + UUID_LOW)));
    }

    Profile buildProfile() {
        beginBuild();
        long o = offsets[0];
        long at = target(o + PROFILE_PERSON);
        Profile.Person person = at < 0 ? null : new Profile.Person(string(at + PERSON_FIRST_NAME),
                string(at + PERSON_LAST_NAME), m.get(I32, at + PERSON_AGE), buildAddress(at + PERSON_HOME));
        long tags = target(o + PROFILE_TAGS);
        List<String> tagList = null;
        if (tags >= 0) {
            int len = m.get(I32, tags);
            tagList = new ArrayList<>(len);
            for (int k = 0; k < len; k++) {
                tagList.add(string(tags + 4 + 4L * k));
            }
        }
        long map = target(o + PROFILE_ATTRIBUTES);
        Map<String, String> attributes = null;
        if (map >= 0) {
            int len = m.get(I32, map);
            attributes = new LinkedHashMap<>(2 * len);
            for (int k = 0; k < len; k++) {
                attributes.put(string(map + 4 + 4L * k), string(map + 4 + 4L * (len + k)));
            }
        }
        long date = target(o + PROFILE_JOINED);
        LocalDate joined = date < 0 ? null : LocalDate.of(m.get(I32, date + DATE_YEAR), m.get(I8, date + DATE_MONTH),
                m.get(I8, date + DATE_DAY));
        return new Profile(m.get(I64, o + PROFILE_ID), person, tagList, attributes, joined, string(o + PROFILE_NICKNAME),
                buildAddress(o + PROFILE_SHIPPING));
    }

    /** The address a reference at {@code at} names (one object per index), null for null. */
    private Profile.Address buildAddress(long at) {
        int r = m.get(I32, at);
        if (r < 0) {
            return null;
        }
        if (memo[r] == null) {
            long a = offsets[r];
            memo[r] = new Profile.Address(string(a + ADDRESS_STREET), string(a + ADDRESS_CITY), string(a + ADDRESS_POSTCODE),
                    string(a + ADDRESS_COUNTRY));
        }
        return (Profile.Address) memo[r];
    }

    EventBatch buildEvents() {
        beginBuild();
        long list = target(offsets[0] + BATCH_EVENTS);
        if (list < 0) {
            return new EventBatch(null);
        }
        int len = m.get(I32, list);
        List<EventBatch.Event> events = new ArrayList<>(len);
        for (int k = 0; k < len; k++) {
            int r = m.get(I32, list + 4 + 4L * k);
            if (r >= 0 && memo[r] == null) {
                long e = offsets[r];
                memo[r] = new EventBatch.Event(m.get(I64, e + EVENT_SEQUENCE), constant(EVENT_KINDS, m.get(I32, e + EVENT_KIND)),
                        string(e + EVENT_SOURCE), string(e + EVENT_MESSAGE));
            }
            events.add(r < 0 ? null : (EventBatch.Event) memo[r]);
        }
        return new EventBatch(events);
    }
}
