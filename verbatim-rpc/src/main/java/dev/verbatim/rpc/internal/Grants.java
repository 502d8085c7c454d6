package dev.verbatim.rpc.internal;

import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The named exports one connection may call (docs/rpc.md §3, DESIGN §7): those the peer looked up over
 * it. Export ids are node-wide and sequential, so easy to guess; a {@code CALL}, or a reference to a
 * named export coming back, names an id that must be granted here, else it is treated exactly as an id
 * that does not exist. Objects passed by reference need no grant: their ids are per connection
 * ({@link ExportedObjects}), so only what was handed out over this connection is there to call.
 *
 * <p>A grant lasts as long as the connection (an export unexported later is no longer found anyway).
 * Checking is a bit test for ids below {@link #SMALL} (every id of a node with fewer exports ever made):
 * what a call pays for it.
 *
 * <p>Thread-safe: granted under this object's monitor by the thread answering a lookup, the bitset
 * copied on write and published through a volatile field; checked without locking by any thread.
 */
final class Grants {
    /** Ids below this are kept as bits (at most 512 bytes a connection); the rest in a set. */
    static final int SMALL = 4096;

    private volatile long[] small = new long[0];
    private final Set<Integer> large = ConcurrentHashMap.newKeySet();

    /** Lets the peer call export {@code id} from now on. */
    synchronized void grant(int id) {
        if (id >= 0 && id < SMALL) {
            long[] b = small;
            int word = id >>> 6;
            if (word < b.length && (b[word] & 1L << id) != 0) {
                return;
            }
            long[] n = Arrays.copyOf(b, Math.max(b.length, word + 1));
            n[word] |= 1L << id;
            small = n;
        } else {
            large.add(id);
        }
    }

    /** Whether the peer was granted export {@code id}. */
    boolean has(int id) {
        long[] b = small;
        int word = id >>> 6; // a negative id lands far beyond the bits
        if (word < b.length) {
            return (b[word] & 1L << id) != 0;
        }
        return (id < 0 || id >= SMALL) && !large.isEmpty() && large.contains(id);
    }
}
