package dev.verbatim.wire;

import java.lang.foreign.MemorySegment;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The JDK value types (java.time, UUID, BigInteger, BigDecimal) round-trip through the writer, the validator,
 * materialization and views, as fields, list elements and roots; they travel as built-in structs (no type-table entry);
 * the validator enforces their ranges; and a value changed after validation is a {@link WireFormatException}.
 */
class ValueTypesTest {
    public record Everything(Instant instant, Duration duration, LocalDate date, LocalTime time, LocalDateTime dateTime,
                             OffsetDateTime offsetDateTime, ZonedDateTime zoned, UUID id, BigInteger big, BigDecimal money,
                             List<Instant> instants) {}

    public interface EverythingView {
        Instant instant(); Duration duration(); LocalDate date(); LocalTime time(); LocalDateTime dateTime();
        OffsetDateTime offsetDateTime(); ZonedDateTime zoned(); UUID id(); BigInteger big(); BigDecimal money();
        List<Instant> instants();
    }

    static final WireWriter W = new WireWriter();
    static final WireReader R = new WireReader();

    static Everything sample() {
        return new Everything(Instant.ofEpochSecond(1_764_000_000L, 123_456_789), Duration.ofSeconds(-5, 250),
                LocalDate.of(2024, 2, 29), LocalTime.of(23, 59, 59, 999_999_999), LocalDateTime.of(-44, 3, 15, 12, 0),
                OffsetDateTime.of(2026, 11, 25, 16, 40, 0, 0, ZoneOffset.ofHoursMinutes(-9, -30)),
                ZonedDateTime.of(2026, 3, 29, 2, 30, 0, 0, ZoneId.of("Europe/Paris")), UUID.randomUUID(),
                new BigInteger("-123456789012345678901234567890"), new BigDecimal("-0.000000000000000000012345"),
                List.of(Instant.MIN, Instant.MAX, Instant.EPOCH));
    }

    static Message roundTrip(Object o) { return R.validate(MemorySegment.ofArray(W.toByteArray(o))); }

    @Test
    void everyValueTypeRoundTripsThroughMaterializationAndViews() {
        Everything e = sample();
        Message m = roundTrip(e);
        assertEquals(e, m.materialize(Everything.class));
        EverythingView v = m.view(EverythingView.class);
        assertEquals(e.instant(), v.instant());
        assertEquals(e.duration(), v.duration());
        assertEquals(e.date(), v.date());
        assertEquals(e.time(), v.time());
        assertEquals(e.dateTime(), v.dateTime());
        assertEquals(e.offsetDateTime(), v.offsetDateTime());
        assertEquals(e.zoned(), v.zoned());
        assertEquals(e.id(), v.id());
        assertEquals(e.big(), v.big());
        assertEquals(e.money(), v.money());
        assertEquals(e.instants(), v.instants());
    }

    @Test
    void edgeValuesRoundTrip() {
        for (BigInteger b : List.of(BigInteger.ZERO, BigInteger.ONE, BigInteger.ONE.negate(), BigInteger.TWO.pow(1000).negate())) {
            assertEquals(b, roundTrip(new Everything(null, null, null, null, null, null, null, null, b, new BigDecimal(b, -7), List.of()))
                    .materialize(Everything.class).big());
        }
        Everything nulls = new Everything(null, null, null, null, null, null, null, null, null, null, null);
        assertEquals(nulls, roundTrip(nulls).materialize(Everything.class));
        assertEquals(LocalDate.MIN, roundTrip(new Everything(null, null, LocalDate.MIN, null, null, null, null, null, null, null, null))
                .materialize(Everything.class).date());
        assertEquals(Instant.MAX, roundTrip(Instant.MAX).materialize(Instant.class), "a value type as the root");
        ZonedDateTime z = ZonedDateTime.of(2026, 10, 25, 2, 30, 0, 0, ZoneId.of("Europe/Paris")).withLaterOffsetAtOverlap();
        assertEquals(z, roundTrip(new Everything(null, null, null, null, null, null, z, null, null, null, null)).materialize(Everything.class).zoned(),
                "the later of two offsets at an overlap is kept");
    }

    @Test
    void valueTypesAreBuiltInsWithoutTypeTableEntries() {
        byte[] b = W.toByteArray(UUID.randomUUID());
        assertEquals(0, MemorySegment.ofArray(b).get(MessageDescriptor.I16, MessageDescriptor.TYPE_COUNT_OFFSET));
        assertEquals(MessageDescriptor.T_UUID, MessageDescriptor.entryType(MemorySegment.ofArray(b).get(MessageDescriptor.I64, 8 + 16)));
        assertEquals(8 + 16 + 8, b.length, "header, two longs, one table entry");
        assertEquals("uuid", Schema.describe(UUID.class));
        assertEquals("struct{at:instant;id:uuid;price:bigdecimal}", Schema.describe(Trade.class));
    }

    public record Trade(Instant at, UUID id, BigDecimal price) {}

    /** Breaks one field of the only value in a message and expects the validator to refuse it with this rule. */
    private static void refused(Object value, String field, long bad, int size, String rule) {
        MemorySegment seg = MemorySegment.ofArray(W.toByteArray(value));
        R.validate(seg);
        Shape s = Schema.of(value.getClass()).shape;
        long at = MessageDescriptor.HEADER_LENGTH + s.field(field).offset;
        switch (size) {
            case 1 -> seg.set(MessageDescriptor.I8, at, (byte) bad);
            case 4 -> seg.set(MessageDescriptor.I32, at, (int) bad);
            default -> seg.set(MessageDescriptor.I64, at, bad);
        }
        WireFormatException e = assertThrows(WireFormatException.class, () -> R.validate(seg), field + " = " + bad);
        assertTrue(e.getMessage().contains(rule), e.getMessage());
    }

    @Test
    void theValidatorEnforcesEachValueTypesRanges() {
        refused(Instant.EPOCH, "nanos", 1_000_000_000, 4, "nanoseconds not in [0, 10^9)");
        refused(Instant.EPOCH, "nanos", -1, 4, "nanoseconds");
        refused(Instant.EPOCH, "seconds", ValueTypes.MAX_SECOND + 1, 8, "epoch second outside Instant's range");
        refused(Duration.ZERO, "nanos", -1, 4, "nanoseconds");
        refused(LocalDate.of(2023, 2, 28), "day", 29, 1, "day not in the month");
        refused(LocalDate.of(2023, 2, 28), "day", 0, 1, "day not in the month");
        refused(LocalDate.of(2023, 2, 28), "month", 13, 1, "month not in 1..12");
        refused(LocalDate.of(2023, 2, 28), "year", 1_000_000_000, 4, "year out of range");
        refused(LocalTime.NOON, "nanoOfDay", ValueTypes.NANOS_PER_DAY, 8, "nanosecond of the day out of range");
        refused(LocalDateTime.of(2000, 1, 31, 0, 0), "month", 4, 1, "day not in the month");
        refused(OffsetDateTime.of(2000, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC), "offsetSeconds", 18 * 3600 + 1, 4, "zone offset");
        refused(new BigDecimal("1.5"), "unscaled", -1, 4, "null where a value is required");
        refused(BigInteger.TEN, "bytes", -1, 4, "null where a value is required");
    }

    /** The same rules hold through the generic validator, which validates the shapes learned from a peer. */
    @Test
    void theGenericValidatorKeepsTheSameRules() {
        StructValidator[] saved = new StructValidator[MessageDescriptor.T_BIG_DECIMAL + 1];
        try {
            for (int id = MessageDescriptor.T_INSTANT; id <= MessageDescriptor.T_BIG_DECIMAL; id++) {
                Shape s = ValueTypes.shape(id);
                saved[id] = s.validator;
                s.validator = new GenericStructValidator(s, true);
            }
            theValidatorEnforcesEachValueTypesRanges();
            aZoneIdMustBeWellFormed();
            Everything e = sample();
            assertEquals(e, roundTrip(e).materialize(Everything.class));
        } finally {
            for (int id = MessageDescriptor.T_INSTANT; id <= MessageDescriptor.T_BIG_DECIMAL; id++) ValueTypes.shape(id).validator = saved[id];
        }
    }

    @Test
    void aZoneIdMustBeWellFormed() {
        for (String good : List.of("Z", "UTC", "GMT+01:00", "UT-5", "+05:30", "-0800", "Europe/Paris", "America/Argentina/Buenos_Aires",
                "Etc/GMT+5", "SystemV/EST5")) {
            assertTrue(ValueTypes.wellFormedZone(good), good);
        }
        for (String bad : List.of("", "9ab", "Europe/Par is", "UTC+", "+123:45:67:89", "a".repeat(65), "Europe/\u00e9")) {
            assertFalse(ValueTypes.wellFormedZone(bad), bad);
        }
        ZonedDateTime z = ZonedDateTime.of(2026, 1, 1, 0, 0, 0, 0, ZoneId.of("Asia/Tokyo"));
        MemorySegment seg = MemorySegment.ofArray(W.toByteArray(z));
        Message m = R.validate(seg);
        long zone = MessageDescriptor.entryOffset(m.entries[1]);
        assertEquals(10, seg.get(MessageDescriptor.I32, zone));
        seg.set(MessageDescriptor.I8, zone + 4 + 5, (byte) ' '); // "Asia/ okyo"
        WireFormatException e = assertThrows(WireFormatException.class, () -> R.validate(seg));
        assertTrue(e.getMessage().contains("zone id not well-formed"), e.getMessage());
        seg.set(MessageDescriptor.I8, zone + 4 + 5, (byte) 'X'); // "Asia/Xokyo": well-formed, unknown here
        Message unknown = R.validate(seg);
        assertThrows(WireSchemaException.class, () -> unknown.materialize(ZonedDateTime.class));
    }

    @Test
    void aValueChangedAfterValidationIsAFormatError() {
        MemorySegment seg = MemorySegment.ofArray(W.toByteArray(sample()));
        Message m = R.validate(seg);
        EverythingView v = m.view(EverythingView.class);
        int date = -1;
        for (int i = 0; i < m.objectCount(); i++) if (MessageDescriptor.entryType(m.entries[i]) == MessageDescriptor.T_LOCAL_DATE) date = i;
        long at = MessageDescriptor.entryOffset(m.entries[date]) + ValueTypes.shape(MessageDescriptor.T_LOCAL_DATE).field("month").offset;
        seg.set(MessageDescriptor.I8, at, (byte) 0);
        assertThrows(WireFormatException.class, v::date);
        assertThrows(WireFormatException.class, () -> m.materialize(Everything.class));
        assertEquals(sample().duration(), v.duration(), "the other values still read");
    }

    @Test
    void descriptionsNamingValueTypesAreLearned() {
        TypeDictionary d = new TypeDictionary();
        for (String desc : TypeDictionary.describe(Everything.class)) d.learn(desc);
        assertTrue(Schema.describe(Everything.class).contains("instants:list(instant)"), Schema.describe(Everything.class));
    }
}
