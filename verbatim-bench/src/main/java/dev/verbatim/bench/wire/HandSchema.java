package dev.verbatim.bench.wire;

import dev.verbatim.bench.fixtures.EventBatch;
import dev.verbatim.bench.fixtures.Profile;
import dev.verbatim.bench.fixtures.Trade;
import dev.verbatim.wire.Schema;

import java.lang.foreign.ValueLayout;
import java.lang.reflect.Type;
import java.nio.ByteOrder;

/**
 * The wire types of the suite's payloads as the hand-written codec ({@link HandWriter}, {@link HandReader}) knows
 * them: a small number per type (its kind), the built-in type id of the strings and value types, the fingerprint of
 * the others (from {@link Schema}, as {@code WireWriter} writes them), each struct's size and field offsets
 * (docs/wire-format.md §3: fields sorted by size, then by name), and the little-endian layouts they are read with.
 */
final class HandSchema {
    private HandSchema() {}

    static final int STRING = 0, INSTANT = 1, UUID_KIND = 2, LOCAL_DATE = 3, TRADE = 4, PROFILE = 5, PERSON = 6,
            ADDRESS = 7, STRING_LIST = 8, STRING_MAP = 9, BATCH = 10, EVENT_LIST = 11, EVENT = 12;
    static final int KINDS = 13;


    /** The size of each fixed-size kind's objects (structs and value types), -1 for strings, lists and maps. */
    static final int[] SIZES = {-1, 12, 16, 6, 60, 32, 16, 16, -1, -1, 4, -1, 20};

    /** The built-in type ids the payloads use (docs/wire-format.md §2, "Type ids"). */
    static final int T_STRING = 9, T_INSTANT = 18, T_LOCAL_DATE = 20, T_UUID = 25;
    /** The first type id naming an entry of the type table. */
    static final int FIRST_TABLE_ID = 64;

    /** The built-in type id of each kind, 0 for the kinds in the type table. */
    static final int[] BUILTIN_IDS = {T_STRING, T_INSTANT, T_UUID, T_LOCAL_DATE, 0, 0, 0, 0, 0, 0, 0, 0, 0};

    // The layouts (the struct rule: 8-byte fields first, then 4-byte ones, each group by name), byte offsets.
    /** {@code Trade}: 60 bytes; {@code executedAt} and {@code orderId} share a word, {@code side} and {@code symbol} too. */
    static final int TRADE_ACCOUNT_ID = 0, TRADE_FEE = 8, TRADE_PRICE = 16, TRADE_QUANTITY = 24, TRADE_TRADE_ID = 32,
            TRADE_EXECUTED_AT = 40, TRADE_ORDER_ID = 44, TRADE_SIDE = 48, TRADE_SYMBOL = 52, TRADE_VENUE = 56;
    /** {@code Profile}: 32 bytes. */
    static final int PROFILE_ID = 0, PROFILE_ATTRIBUTES = 8, PROFILE_JOINED = 12, PROFILE_NICKNAME = 16, PROFILE_PERSON = 20,
            PROFILE_SHIPPING = 24, PROFILE_TAGS = 28;
    /** {@code Person}: 16 bytes. */
    static final int PERSON_AGE = 0, PERSON_FIRST_NAME = 4, PERSON_HOME = 8, PERSON_LAST_NAME = 12;
    /** {@code Address}: 16 bytes, four string references. */
    static final int ADDRESS_CITY = 0, ADDRESS_COUNTRY = 4, ADDRESS_POSTCODE = 8, ADDRESS_STREET = 12;
    /** {@code EventBatch}: 4 bytes, the list's reference. {@code Event}: 20 bytes. */
    static final int BATCH_EVENTS = 0, EVENT_SEQUENCE = 0, EVENT_KIND = 8, EVENT_MESSAGE = 12, EVENT_SOURCE = 16;
    /** The value types: {@code instant} 12 bytes, {@code uuid} 16, {@code localdate} 6. */
    static final int INSTANT_SECONDS = 0, INSTANT_NANOS = 8, UUID_HIGH = 0, UUID_LOW = 8, DATE_YEAR = 0, DATE_DAY = 4,
            DATE_MONTH = 5;

    static final ValueLayout.OfByte I8 = ValueLayout.JAVA_BYTE;
    static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfChar U16 = ValueLayout.JAVA_CHAR_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** The fingerprint of each kind in the type table, 0 for the built-in kinds. */
    static long[] fingerprints() {
        long[] f = new long[KINDS];
        f[TRADE] = Schema.fingerprint(Trade.class);
        f[PROFILE] = Schema.fingerprint(Profile.class);
        f[PERSON] = Schema.fingerprint(Profile.Person.class);
        f[ADDRESS] = Schema.fingerprint(Profile.Address.class);
        f[STRING_LIST] = Schema.fingerprint(component(Profile.class, "tags"));
        f[STRING_MAP] = Schema.fingerprint(component(Profile.class, "attributes"));
        f[BATCH] = Schema.fingerprint(EventBatch.class);
        f[EVENT_LIST] = Schema.fingerprint(component(EventBatch.class, "events"));
        f[EVENT] = Schema.fingerprint(EventBatch.Event.class);
        return f;
    }

    private static Type component(Class<?> record, String name) {
        for (var c : record.getRecordComponents()) {
            if (c.getName().equals(name)) {
                return c.getGenericType();
            }
        }
        throw new IllegalArgumentException(record + " has no component " + name);
    }
}
