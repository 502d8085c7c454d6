package dev.verbatim.objects.internal;

import dev.verbatim.rpc.internal.NodeExtension;

import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The objects of this base that other bases may hold (docs/objects.md §3): each with its node-wide id
 * and the weight <em>outstanding</em>, handed out in references and not yet come back. Weighted
 * reference counting: every reference this base sends of one of its objects carries a fresh grant,
 * added here; a reference that comes home (as an argument or result, or to give its weight back) brings
 * its weight, subtracted here; at zero no other base can hold the object, and it is forgotten (held here
 * strongly until then). Forwarding between other bases splits weights and costs this base nothing.
 *
 * <p>Invariants: {@code outstanding > 0} for every entry; it never exceeds {@code 2^63 - 1} (a grant that
 * would is refused); a weight coming back never exceeds it (such a return is forged: refused, and the
 * caller drops the connection it came by); ids are never reused within an incarnation.
 *
 * <p>Thread-safe (this object's monitor).
 */
final class OwnedObjects {
    /** One object others may hold. */
    static final class Entry {
        final int id;
        final Object impl;
        final SharedTypes.Offer offer;
        /** What a call to it finds (made once: the call path allocates nothing for it). */
        final NodeExtension.Target target;
        long outstanding;
        /** A census counted it: the outstanding weight is an upper bound, no longer the exact count. */
        boolean estimated;

        Entry(int id, Object impl, SharedTypes.Offer offer, boolean virtualThreads) {
            this.id = id;
            this.impl = impl;
            this.offer = offer;
            this.target = new NodeExtension.Target(impl, offer.remotes(), virtualThreads);
        }
    }

    /** Written under this object's monitor; read without it by {@link #target} (every call to one of these objects). */
    private final Map<Integer, Entry> byId = new ConcurrentHashMap<>();
    private final Map<Object, Entry> byIdentity = new IdentityHashMap<>();
    private int lastId;

    /**
     * Hands out {@code grant} more weight of {@code impl}, entering it (with a new id) if nobody holds it.
     *
     * @throws IllegalStateException if the weight outstanding would pass 2^63 - 1
     */
    synchronized Entry grant(Object impl, SharedTypes.Offer offer, long grant, boolean virtualThreads) {
        Entry e = byIdentity.get(impl);
        if (e == null) {
            if (lastId == -1) {
                throw new IllegalStateException("this base handed out 2^32 - 1 object ids: restart it");
            }
            e = new Entry(++lastId, impl, offer, virtualThreads);
            byIdentity.put(impl, e);
            byId.put(e.id, e);
        }
        add(e, grant);
        return e;
    }

    /**
     * Hands out {@code grant} more weight of {@code impl} (a holder ran out).
     *
     * @throws IllegalArgumentException if no other base holds it
     */
    synchronized long grantMore(Object impl, long grant) {
        Entry e = byIdentity.get(impl);
        if (e == null) {
            throw new IllegalArgumentException("more weight of an object no other base holds");
        }
        add(e, grant);
        return grant;
    }

    private static void add(Entry e, long grant) {
        if (e.outstanding > Long.MAX_VALUE - grant) {
            throw new IllegalStateException("object #" + e.id + " has " + e.outstanding + " weight outstanding: no more"
                    + " can be handed out until some comes back");
        }
        e.outstanding += grant;
    }

    /**
     * {@code weight} of object {@code id} came home; the object. At zero outstanding it is forgotten.
     *
     * @throws IllegalArgumentException if no other base holds object {@code id}, or the weight exceeds what is
     *         outstanding (forged either way)
     */
    synchronized Object credit(int id, long weight) {
        Entry e = byId.get(id);
        if (e == null) {
            throw new IllegalArgumentException("a reference to object #" + id + ", which this base never handed out"
                    + " or was given back in full");
        }
        if (weight > e.outstanding) {
            throw new IllegalArgumentException("a reference to object #" + id + " bringing back weight " + weight
                    + ", more than the " + e.outstanding + " outstanding");
        }
        e.outstanding -= weight;
        if (e.outstanding == 0) {
            byId.remove(id);
            byIdentity.remove(e.impl);
        }
        return e.impl;
    }

    /** The id of {@code impl}, which other bases hold. */
    synchronized int idOf(Object impl) {
        return byIdentity.get(impl).id;
    }

    /** Each object's id and the weight outstanding: {@code [id, outstanding]...}. */
    synchronized long[] outstandingById() {
        long[] out = new long[2 * byId.size()];
        int at = 0;
        for (Entry e : byId.values()) {
            out[at++] = Integer.toUnsignedLong(e.id);
            out[at++] = e.outstanding;
        }
        return out;
    }

    /**
     * A census found at most {@code bound} of object {@code id} can still be held: the outstanding weight is
     * lowered to it (never raised); at zero the object is forgotten.
     *
     * @return whether the object was forgotten
     */
    synchronized boolean bound(int id, long bound) {
        Entry e = byId.get(id);
        if (e == null) {
            return false;
        }
        e.estimated = true;
        if (bound >= e.outstanding) {
            return false;
        }
        e.outstanding = Math.max(0, bound);
        if (e.outstanding == 0) {
            byId.remove(id);
            byIdentity.remove(e.impl);
            return true;
        }
        return false;
    }

    /** How many objects' counts are a census's estimate. */
    synchronized int estimated() {
        int n = 0;
        for (Entry e : byId.values()) {
            if (e.estimated) {
                n++;
            }
        }
        return n;
    }

    /** The entry of object {@code id}, or null. */
    synchronized Entry get(int id) {
        return byId.get(id);
    }

    /**
     * The target of object {@code id} for a call, or null: without the monitor (an entry's target is final, and the
     * map publishes it), which every call to one of these objects took before (~2% of a base's samples in a walk).
     */
    NodeExtension.Target target(int id) {
        Entry e = byId.get(id);
        return e == null ? null : e.target;
    }

    /** The weight of {@code impl} outstanding (0 if no other base holds it). */
    synchronized long outstanding(Object impl) {
        Entry e = byIdentity.get(impl);
        return e == null ? 0 : e.outstanding;
    }

    /** How many objects other bases may hold. */
    synchronized int size() {
        return byId.size();
    }
}
