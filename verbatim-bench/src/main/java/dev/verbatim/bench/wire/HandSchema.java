package dev.verbatim.bench.wire;

import dev.verbatim.bench.fixtures.EventBatch;
import dev.verbatim.bench.fixtures.Profile;
import dev.verbatim.bench.fixtures.Trade;
import dev.verbatim.wire.Schema;

import java.lang.reflect.Type;

/**
 * The wire types of the suite's payloads as the hand-written codec ({@link HandWriter}, {@link HandReader}) knows
 * them: a small number per type (its kind), the built-in type id of the strings and value types, the fingerprint of
 * the others (from {@link Schema}, as {@code WireWriter} writes them), and each struct's size (docs/wire-format.md
 * §3: fields sorted by size, then by name).
 */
final class HandSchema {
    private HandSchema() {}

    static final int STRING = 0, INSTANT = 1, UUID_KIND = 2, LOCAL_DATE = 3, TRADE = 4, PROFILE = 5, PERSON = 6,
            ADDRESS = 7, STRING_LIST = 8, STRING_MAP = 9, BATCH = 10, EVENT_LIST = 11, EVENT = 12;
    static final int KINDS = 13;

    /** The built-in type id of each kind, 0 for the kinds in the type table. */
    static final int[] BUILTIN_IDS = {9, 18, 25, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0};

    /** The size of each fixed-size kind's objects (structs and value types), -1 for strings, lists and maps. */
    static final int[] SIZES = {-1, 12, 16, 6, 60, 32, 16, 16, -1, -1, 4, -1, 20};

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
