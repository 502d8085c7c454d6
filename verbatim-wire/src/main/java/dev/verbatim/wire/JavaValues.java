package dev.verbatim.wire;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.zone.ZoneRulesException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The Java side of the {@link ValueTypes}: each value class is a struct type ({@link JType#RECORD} with a
 * {@link JType#factory}) whose fields are read by the static getters below and which is built by the static factory
 * named after the wire type, taking the fields in name order. So the generated writers, materializers and views
 * treat a {@code LocalDate} like a record of three fields, with no code of their own for value types.
 *
 * <p>A factory builds from fields the validator checked, but read again from memory a peer may have changed since:
 * a value out of range is then a {@link WireFormatException} ("message changed after validation"), never a
 * {@code DateTimeException}. A zone id the validator found well-formed that this JVM's time-zone rules do not know is
 * a {@link WireSchemaException} (the two ends' rules differ).
 *
 * <p>Stateless; thread-safe.
 */
final class JavaValues {
    private JavaValues() {}

    /** The value classes, by {@code type id - ValueTypes.FIRST}. */
    static final Class<?>[] CLASSES = {Instant.class, Duration.class, LocalDate.class, LocalTime.class, LocalDateTime.class,
            OffsetDateTime.class, ZonedDateTime.class, UUID.class, BigInteger.class, BigDecimal.class};

    /** The struct type of value class {@code c}, its fields bound to the getters {@code <name>_<field>} of this class. */
    static JType javaType(int id, JType[] fieldTypes) {
        Class<?> c = CLASSES[id - ValueTypes.FIRST];
        Shape s = ValueTypes.shape(id);
        JType t = new JType(JType.RECORD, c);
        t.shape = s;
        String name = s.canonical;
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        try {
            List<Class<?>> params = new ArrayList<>();
            t.fields = new JType.JField[s.fields.length];
            for (int i = 0; i < s.fields.length; i++) {
                Shape.Field f = s.fields[i];
                JType ft = fieldTypes[i];
                JType.JField jf = new JType.JField(f.name, ft, c.getName() + "." + f.name);
                Method getter = JavaValues.class.getDeclaredMethod(name + "_" + f.name, c);
                Class<?> rt = ft.jkind == JType.PRIM ? ft.raw : Object.class;
                jf.getter = lookup.unreflect(getter).asType(MethodType.methodType(rt, Object.class));
                jf.componentIndex = i;
                t.fields[i] = jf;
                params.add(rt);
            }
            Method factory = null;
            for (Method m : JavaValues.class.getDeclaredMethods()) {
                if (m.getName().equals(name) && Modifier.isStatic(m.getModifiers())) factory = m;
            }
            t.factory = lookup.unreflect(factory).asType(MethodType.methodType(Object.class, params));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("the adapters of " + c.getName(), e);
        }
        return t;
    }

    private static WireFormatException changed(String what) { return Message.changed(-1, what); }

    // ------------------------------------------------------------------ instant, duration

    static int instant_nanos(Instant v) { return v.getNano(); }

    static long instant_seconds(Instant v) { return v.getEpochSecond(); }

    static Object instant(int nanos, long seconds) {
        if (nanos < 0 || nanos >= ValueTypes.NANOS_PER_SECOND || seconds < ValueTypes.MIN_SECOND || seconds > ValueTypes.MAX_SECOND) {
            throw changed("instant out of range");
        }
        return Instant.ofEpochSecond(seconds, nanos);
    }

    static int duration_nanos(Duration v) { return v.getNano(); }

    static long duration_seconds(Duration v) { return v.getSeconds(); }

    static Object duration(int nanos, long seconds) {
        if (nanos < 0 || nanos >= ValueTypes.NANOS_PER_SECOND) throw changed("duration nanoseconds out of range");
        return Duration.ofSeconds(seconds, nanos);
    }

    // ------------------------------------------------------------------ dates and times

    static byte localdate_day(LocalDate v) { return (byte) v.getDayOfMonth(); }

    static byte localdate_month(LocalDate v) { return (byte) v.getMonthValue(); }

    static int localdate_year(LocalDate v) { return v.getYear(); }

    static Object localdate(byte day, byte month, int year) { return date(day, month, year); }

    private static LocalDate date(int day, int month, int year) {
        if (year < ValueTypes.MIN_YEAR || year > ValueTypes.MAX_YEAR || month < 1 || month > 12 || day < 1
                || day > ValueTypes.monthLength(year, month)) {
            throw changed("date out of range");
        }
        return LocalDate.of(year, month, day);
    }

    static long localtime_nanoOfDay(LocalTime v) { return v.toNanoOfDay(); }

    static Object localtime(long nanoOfDay) { return time(nanoOfDay); }

    private static LocalTime time(long nanoOfDay) {
        if (nanoOfDay < 0 || nanoOfDay >= ValueTypes.NANOS_PER_DAY) throw changed("time of day out of range");
        return LocalTime.ofNanoOfDay(nanoOfDay);
    }

    static byte localdatetime_day(LocalDateTime v) { return (byte) v.getDayOfMonth(); }

    static byte localdatetime_month(LocalDateTime v) { return (byte) v.getMonthValue(); }

    static long localdatetime_nanoOfDay(LocalDateTime v) { return v.toLocalTime().toNanoOfDay(); }

    static int localdatetime_year(LocalDateTime v) { return v.getYear(); }

    static Object localdatetime(byte day, byte month, long nanoOfDay, int year) {
        return LocalDateTime.of(date(day, month, year), time(nanoOfDay));
    }

    static byte offsetdatetime_day(OffsetDateTime v) { return (byte) v.getDayOfMonth(); }

    static byte offsetdatetime_month(OffsetDateTime v) { return (byte) v.getMonthValue(); }

    static long offsetdatetime_nanoOfDay(OffsetDateTime v) { return v.toLocalTime().toNanoOfDay(); }

    static int offsetdatetime_offsetSeconds(OffsetDateTime v) { return v.getOffset().getTotalSeconds(); }

    static int offsetdatetime_year(OffsetDateTime v) { return v.getYear(); }

    static Object offsetdatetime(byte day, byte month, long nanoOfDay, int offsetSeconds, int year) {
        return OffsetDateTime.of(LocalDateTime.of(date(day, month, year), time(nanoOfDay)), offset(offsetSeconds));
    }

    private static ZoneOffset offset(int seconds) {
        if (seconds < -ValueTypes.MAX_OFFSET_SECONDS || seconds > ValueTypes.MAX_OFFSET_SECONDS) throw changed("zone offset out of range");
        return ZoneOffset.ofTotalSeconds(seconds);
    }

    static byte zoneddatetime_day(ZonedDateTime v) { return (byte) v.getDayOfMonth(); }

    static byte zoneddatetime_month(ZonedDateTime v) { return (byte) v.getMonthValue(); }

    static long zoneddatetime_nanoOfDay(ZonedDateTime v) { return v.toLocalTime().toNanoOfDay(); }

    static int zoneddatetime_offsetSeconds(ZonedDateTime v) { return v.getOffset().getTotalSeconds(); }

    static int zoneddatetime_year(ZonedDateTime v) { return v.getYear(); }

    static String zoneddatetime_zone(ZonedDateTime v) { return v.getZone().getId(); }

    /**
     * The instant the sender meant (its local date-time at its offset), in the zone named: if this JVM's rules for
     * the zone agree with the sender's, the same local date-time and offset.
     */
    static Object zoneddatetime(byte day, byte month, long nanoOfDay, int offsetSeconds, int year, Object zone) {
        LocalDateTime local = LocalDateTime.of(date(day, month, year), time(nanoOfDay));
        ZoneOffset offset = offset(offsetSeconds);
        String id = (String) zone;
        if (id == null || !ValueTypes.wellFormedZone(id)) throw changed("zone id not well-formed");
        ZoneId z;
        try {
            z = ZoneId.of(id);
        } catch (ZoneRulesException e) {
            throw new WireSchemaException("the zone " + id + " of a ZonedDateTime is not known to this JVM's time-zone rules", e);
        } catch (DateTimeException e) {
            throw changed("zone id not well-formed");
        }
        return ZonedDateTime.ofInstant(local, offset, z);
    }

    // ------------------------------------------------------------------ uuid, big numbers

    static long uuid_high(UUID v) { return v.getMostSignificantBits(); }

    static long uuid_low(UUID v) { return v.getLeastSignificantBits(); }

    static Object uuid(long high, long low) { return new UUID(high, low); }

    /** Two's complement, big-endian, fewest bytes ({@code BigInteger.toByteArray}); zero is one zero byte. */
    static Object biginteger_bytes(BigInteger v) { return v.toByteArray(); }

    static Object biginteger(Object bytes) { return integer(bytes); }

    private static BigInteger integer(Object bytes) {
        byte[] b = (byte[]) bytes;
        if (b == null) throw changed("big integer without bytes");
        return b.length == 0 ? BigInteger.ZERO : new BigInteger(b);
    }

    static int bigdecimal_scale(BigDecimal v) { return v.scale(); }

    static Object bigdecimal_unscaled(BigDecimal v) { return v.unscaledValue().toByteArray(); }

    static Object bigdecimal(int scale, Object unscaled) { return new BigDecimal(integer(unscaled), scale); }
}
