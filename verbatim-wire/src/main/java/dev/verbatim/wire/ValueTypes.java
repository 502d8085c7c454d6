package dev.verbatim.wire;

import java.lang.foreign.MemorySegment;

import static dev.verbatim.wire.MessageDescriptor.*;

/**
 * The value types of the JDK the format carries as built-ins with fixed struct layouts (docs/wire-format.md §3,
 * "Value types"): {@code java.time}'s {@code Instant}, {@code Duration}, {@code LocalDate}, {@code LocalTime},
 * {@code LocalDateTime}, {@code OffsetDateTime} and {@code ZonedDateTime}, {@code UUID}, {@code BigInteger} and
 * {@code BigDecimal}. Each is a struct shape with a built-in type id (18 to 27, no type-table entry), a one-word
 * canonical description ({@code instant}, ...), a layout computed by the struct rule from its fields, and a
 * {@link #check validation rule} on those fields (nanoseconds, dates, offsets in range; references not null). The
 * Java side (how a value becomes fields and back) is {@link JavaValues}.
 *
 * <p>Immutable after class initialisation (run from {@link Shape}'s); thread-safe.
 */
final class ValueTypes {
    private ValueTypes() {}

    /** Built-in type ids of the value types ({@link MessageDescriptor#T_INSTANT} ...), in the order of {@link #NAMES}. */
    static final int FIRST = T_INSTANT, LAST = T_BIG_DECIMAL;

    /** Canonical descriptions, by {@code id - FIRST}. */
    static final String[] NAMES = {"instant", "duration", "localdate", "localtime", "localdatetime", "offsetdatetime",
            "zoneddatetime", "uuid", "biginteger", "bigdecimal"};

    static final long NANOS_PER_SECOND = 1_000_000_000L;
    static final long NANOS_PER_DAY = 86_400L * NANOS_PER_SECOND;
    /** {@code Instant.MIN} and {@code Instant.MAX} in epoch seconds. */
    static final long MIN_SECOND = -31557014167219200L, MAX_SECOND = 31556889864403199L;
    /** {@code Year.MIN_VALUE}, {@code Year.MAX_VALUE}. */
    static final int MIN_YEAR = -999_999_999, MAX_YEAR = 999_999_999;
    /** {@code ZoneOffset.MIN} and {@code MAX} in seconds. */
    static final int MAX_OFFSET_SECONDS = 18 * 3600;

    /** The shapes by type id (index {@code id - FIRST}), laid out. */
    private static final Shape[] SHAPES = new Shape[LAST - FIRST + 1];

    /** Field offsets every rule reads (-1 where a type lacks the field). */
    private static final int[] NANOS = new int[SHAPES.length], SECONDS = new int[SHAPES.length], DAY = new int[SHAPES.length],
            MONTH = new int[SHAPES.length], YEAR = new int[SHAPES.length], NANO_OF_DAY = new int[SHAPES.length],
            OFFSET = new int[SHAPES.length], REF = new int[SHAPES.length];

    /** Makes the value shapes and puts them in {@code builtins} (by type id); called once from {@link Shape}'s initialisation. */
    static void define(Shape[] builtins) {
        Shape i32 = Shape.PRIMS[Shape.I32], i64 = Shape.PRIMS[Shape.I64], i8 = Shape.PRIMS[Shape.I8];
        Shape bytes = Shape.PRIM_ARRAYS[Shape.I8];
        define(T_INSTANT, f("nanos", i32), f("seconds", i64));
        define(T_DURATION, f("nanos", i32), f("seconds", i64));
        define(T_LOCAL_DATE, f("day", i8), f("month", i8), f("year", i32));
        define(T_LOCAL_TIME, f("nanoOfDay", i64));
        define(T_LOCAL_DATE_TIME, f("day", i8), f("month", i8), f("nanoOfDay", i64), f("year", i32));
        define(T_OFFSET_DATE_TIME, f("day", i8), f("month", i8), f("nanoOfDay", i64), f("offsetSeconds", i32), f("year", i32));
        define(T_ZONED_DATE_TIME, f("day", i8), f("month", i8), f("nanoOfDay", i64), f("offsetSeconds", i32), f("year", i32),
                f("zone", Shape.STRING_SHAPE));
        define(T_UUID, f("high", i64), f("low", i64));
        define(T_BIG_INTEGER, f("bytes", bytes));
        define(T_BIG_DECIMAL, f("scale", i32), f("unscaled", bytes));
        for (int k = 0; k < SHAPES.length; k++) {
            Shape s = SHAPES[k];
            NANOS[k] = offset(s, "nanos");
            SECONDS[k] = offset(s, "seconds");
            DAY[k] = offset(s, "day");
            MONTH[k] = offset(s, "month");
            YEAR[k] = offset(s, "year");
            NANO_OF_DAY[k] = offset(s, "nanoOfDay");
            OFFSET[k] = offset(s, "offsetSeconds");
            REF[k] = s.refOffsets.length == 1 ? s.refOffsets[0] : -1;
            builtins[s.builtinId] = s;
        }
    }

    private static Shape.Field f(String name, Shape type) { return new Shape.Field(name, type); }

    private static void define(int id, Shape.Field... fields) {
        Shape s = new Shape(Shape.STRUCT);
        s.fields = fields; // given in name order
        s.canonical = NAMES[id - FIRST];
        s.builtinId = id;
        s.freeze();
        s.fingerprint = Fingerprints.of(s.canonical);
        s.local = true;
        SHAPES[id - FIRST] = s;
    }

    private static int offset(Shape s, String name) {
        Shape.Field f = s.field(name);
        return f == null ? -1 : f.offset;
    }

    /** The value shape of type id {@code id}. */
    static Shape shape(int id) { return SHAPES[id - FIRST]; }

    /** Whether {@code s} is one of the value shapes. */
    static boolean isValue(Shape s) { return s.builtinId >= FIRST && s.builtinId <= LAST; }

    /**
     * The validation rule of value shape {@code s} on the object at {@code at} (which fits before the tables): its
     * fields in the ranges of the Java type, its references not null (their targets' types are checked as every
     * struct's, before this), a zoned date-time's zone id {@link #wellFormedZone well-formed}. A failure is a
     * {@link WireFormatException} naming the field's offset.
     *
     * <p>The zone id is a string object the walk may not have reached yet: it is read here only if its entry and
     * length lie inside the objects (else the walk rejects the message when it gets there).
     */
    static void check(Shape s, MemorySegment m, long at, long[] entries, long tail) {
        int k = s.builtinId - FIRST;
        if (NANOS[k] >= 0) {
            int n = m.get(I32, at + NANOS[k]);
            if (n < 0 || n >= NANOS_PER_SECOND) throw bad(at + NANOS[k], s, "nanoseconds not in [0, 10^9)", n);
        }
        if (s.builtinId == T_INSTANT) {
            long sec = m.get(I64, at + SECONDS[k]);
            if (sec < MIN_SECOND || sec > MAX_SECOND) throw bad(at + SECONDS[k], s, "epoch second outside Instant's range", sec);
        }
        if (YEAR[k] >= 0) {
            int y = m.get(I32, at + YEAR[k]);
            int mo = m.get(I8, at + MONTH[k]);
            int d = m.get(I8, at + DAY[k]);
            if (y < MIN_YEAR || y > MAX_YEAR) throw bad(at + YEAR[k], s, "year out of range", y);
            if (mo < 1 || mo > 12) throw bad(at + MONTH[k], s, "month not in 1..12", mo);
            if (d < 1 || d > monthLength(y, mo)) throw bad(at + DAY[k], s, "day not in the month", d);
        }
        if (NANO_OF_DAY[k] >= 0) {
            long n = m.get(I64, at + NANO_OF_DAY[k]);
            if (n < 0 || n >= NANOS_PER_DAY) throw bad(at + NANO_OF_DAY[k], s, "nanosecond of the day out of range", n);
        }
        if (OFFSET[k] >= 0) {
            int o = m.get(I32, at + OFFSET[k]);
            if (o < -MAX_OFFSET_SECONDS || o > MAX_OFFSET_SECONDS) throw bad(at + OFFSET[k], s, "zone offset not within 18 hours", o);
        }
        if (REF[k] >= 0) {
            int r = m.get(I32, at + REF[k]);
            if (r == NULL_REF) throw bad(at + REF[k], s, "null where a value is required", -1);
            if (s.builtinId == T_ZONED_DATE_TIME) checkZone(s, m, at + REF[k], entries[r], tail);
        }
    }

    private static void checkZone(Shape s, MemorySegment m, long refAt, long entry, long tail) {
        long o = Integer.toUnsignedLong(entryOffset(entry));
        if (o < HEADER_LENGTH || o + STRING_DATA_OFFSET > tail) return;
        int h = m.get(I32, o + STRING_LENGTH_OFFSET);
        long n = h & ~STRING_UTF16_BIT;
        long bytes = (h & STRING_UTF16_BIT) != 0 ? 2 * n : n;
        if (o + STRING_DATA_OFFSET + bytes > tail) return;
        if (n > 64 || !wellFormedZone(new StringView(m, o + STRING_DATA_OFFSET, h))) {
            throw new WireFormatException(refAt, "zone id not well-formed", "a string of " + n + " chars");
        }
    }

    /** Days in month {@code month} (1..12) of {@code year} (proleptic Gregorian, as {@code java.time}). */
    static int monthLength(int year, int month) {
        return switch (month) {
            case 2 -> (year & 3) == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28;
            case 4, 6, 9, 11 -> 30;
            default -> 31;
        };
    }

    private static WireFormatException bad(long at, Shape s, String rule, long value) {
        return new WireFormatException(at, rule, s.canonical + " field value " + value);
    }

    /**
     * Whether {@code id} is well-formed as a zone id ({@code ZoneId.of}'s syntax: {@code Z}, an offset such as
     * {@code +01:00}, a prefix {@code UTC}, {@code GMT} or {@code UT} with or without an offset, or a region id of a
     * letter then letters, digits and {@code ~/._+-}), at most 64 chars. Whether a region is known is the reading
     * JVM's concern, not the format's.
     */
    static boolean wellFormedZone(CharSequence id) {
        int n = id.length();
        if (n == 0 || n > 64) return false;
        char c0 = id.charAt(0);
        if (c0 == '+' || c0 == '-') return wellFormedOffset(id, 0);
        for (String p : new String[] {"UTC", "GMT", "UT"}) {
            if (startsWith(id, p) && (n == p.length() || id.charAt(p.length()) == '+' || id.charAt(p.length()) == '-')) {
                return n == p.length() || wellFormedOffset(id, p.length());
            }
        }
        if (n == 1) return c0 == 'Z' || isLetter(c0);
        if (!isLetter(c0)) return false;
        for (int i = 1; i < n; i++) {
            char c = id.charAt(i);
            if (!isLetter(c) && !(c >= '0' && c <= '9') && "~/._+-".indexOf(c) < 0) return false;
        }
        return true;
    }

    private static boolean startsWith(CharSequence s, String p) {
        if (s.length() < p.length()) return false;
        for (int i = 0; i < p.length(); i++) if (s.charAt(i) != p.charAt(i)) return false;
        return true;
    }

    /** {@code [+-]h}, {@code hh}, {@code hh:mm}, {@code hhmm}, {@code hh:mm:ss}, {@code hhmmss} from {@code from}. */
    private static boolean wellFormedOffset(CharSequence s, int from) {
        int digits = 0, colons = 0;
        for (int i = from + 1; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c >= '0' && c <= '9') digits++;
            else if (c == ':') colons++;
            else return false;
        }
        return digits >= 1 && digits <= 6 && colons <= 2 && s.length() - from <= 9;
    }

    private static boolean isLetter(char c) { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'; }
}
