package dev.verbatim.wire;

import java.util.Arrays;
import java.util.Map;
import java.util.Set;

/**
 * The maps and sets of one materialization whose keys (and values) are read but not inserted yet. Keys are inserted
 * only once every object is filled ({@link #insertAll}): a key's {@code hashCode} may depend on fields that are set
 * later (a class is filled after it is created), so the {@link Materializer} defers them here.
 *
 * <p>Not thread-safe: one per materializer.
 */
final class PendingKeys {
    /** (collection, keys, values or null for a set) at {@code 3j .. 3j + 2}. */
    private Object[] pending;
    private int count;

    /** Remembers the keys (and, for a map, the values: else null) to put into {@code target}. */
    void add(Object target, Object[] keys, Object[] values) {
        if (pending == null) pending = new Object[12];
        else if (3 * count == pending.length) pending = Arrays.copyOf(pending, 2 * pending.length);
        pending[3 * count] = target;
        pending[3 * count + 1] = keys;
        pending[3 * count + 2] = values;
        count++;
    }

    /**
     * Inserts the keys of every map and set remembered, the ones added last first (a map held by a key of another map
     * is then complete before that key is hashed). Keys the validator found distinct but {@code equals} finds equal
     * (two distinct objects of one value) are refused.
     */
    @SuppressWarnings("unchecked")
    void insertAll() {
        for (int j = count - 1; j >= 0; j--) {
            Object[] ks = (Object[]) pending[3 * j + 1], vs = (Object[]) pending[3 * j + 2];
            if (vs != null) {
                Map<Object, Object> map = (Map<Object, Object>) pending[3 * j];
                for (int k = 0; k < ks.length; k++) map.put(ks[k], vs[k]);
                if (map.size() != ks.length) throw notUnique(ks.length - map.size());
            } else {
                Set<Object> set = (Set<Object>) pending[3 * j];
                for (Object k : ks) set.add(k);
                if (set.size() != ks.length) throw notUnique(ks.length - set.size());
            }
        }
        count = 0;
    }

    private static WireFormatException notUnique(int duplicates) {
        return new WireFormatException(-1, "map keys or set elements not unique", duplicates + " equal to another by equals");
    }
}
