package dev.verbatim.objects.internal;

import java.lang.foreign.MemorySegment;
import java.lang.ref.Cleaner;
import java.lang.ref.WeakReference;
import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.Map;

/**
 * The other bases' objects this base holds (docs/objects.md §3, §4): one proxy per object (held weakly),
 * so two references to one object are {@code ==} here. Every arriving reference that is read adds its weight
 * to the proxy's {@link Held}; when the proxy becomes unreachable (a {@link Cleaner}) or is released, its weight
 * goes home. A reference arriving after its proxy died or was released starts a new proxy with its own
 * hold, while the old hold gives back its own weight. A reference of a message dropped unread adds to a live
 * hold, or goes home and makes no proxy ({@link #absorb}).
 *
 * <p>Thread-safe (this object's monitor guards the table).
 */
final class HeldObjects {
    private static final Cleaner CLEANER = Cleaner.create();

    private record Key(long owner, int id) {}

    /** A proxy, weakly, and its hold (so that finding the hold needs no look-up of the proxy's handler). */
    private static final class Entry extends WeakReference<Object> {
        final Held held;

        Entry(Object proxy, Held held) {
            super(proxy);
            this.held = held;
        }
    }

    private final Map<Key, Entry> proxies = new HashMap<>();
    /**
     * The entry {@link #entry} found or made last (written under this object's monitor; cleared when that entry goes
     * or is replaced): most arrivals name the object the one before named. {@link #strings} and {@link #again} read it
     * without the monitor (its hold's fields are final): {@link #strings} as a hint, {@link #again} as its entry.
     */
    private volatile Entry last;
    private final ObjectSpace space;

    HeldObjects(ObjectSpace space) {
        this.space = space;
    }

    /**
     * The proxy of the object {@code r} names (another base's), as {@code declared}, with {@code r}'s weight
     * added to what this base holds of it, counted as received from base {@code peer} (a hold that passes
     * {@link Held#HIGH_WATER} sends its excess home). Under the ledger's monitor.
     *
     * @throws IllegalArgumentException if the proxy this base has does not implement {@code declared}, or the
     *         weight overflows
     */
    Object resolve(Reference r, Class<?> declared, long peer) {
        synchronized (this) {
            Entry ref = entry(r.owner(), r.id());
            Object p = ref == null ? null : ref.get();
            if (p != null) {
                if (!declared.isInstance(p)) {
                    throw new IllegalArgumentException("a reference to " + ref.held + " as "
                            + declared.getName() + ", which it does not implement");
                }
                if (space.weights().takeIn(ref.held, r.weight(), peer)) { // (false: released, a new proxy is made)
                    return p;
                }
            }
            Class<?>[] types = SharedTypes.resolve(r.interfaces(), declared, space.loader());
            Held h = new Held(r, types, space.weights().exhausted(), space.ledger());
            ClassLoader loader = types[0].getClassLoader();
            try {
                p = Proxy.newProxyInstance(loader == null ? space.loader() : loader, types, new SharedHandler(h, space));
            } catch (RuntimeException | Error e) {
                h.takeAll(); // (counted out of the base's exhausted holds; nothing was entered or counted yet)
                throw e;
            }
            Key k = new Key(r.owner(), r.id());
            Entry e = new Entry(p, h);
            proxies.put(k, e);
            last = e;
            CLEANER.register(p, () -> drop(k, h));
            space.weights().arrived(h, peer, r.weight(), h.excess()); // (counted once the hold is entered, as an added one is)
            return p;
        }
    }

    /**
     * Takes in the weight of reference {@code r}, from base {@code peer}, read as no type (its message is dropped
     * unread): added to this base's hold of the object if it has a live one, else counted as received and sent straight
     * home, with no proxy made (one made now would offer no interface, and, entered, it is what every later reference
     * to the object would resolve to). Under the ledger's monitor.
     *
     * @throws IllegalArgumentException if the weight overflows the hold's
     */
    void absorb(Reference r, long peer) {
        synchronized (this) {
            Entry ref = entry(r.owner(), r.id());
            if (ref != null && ref.get() != null && space.weights().takeIn(ref.held, r.weight(), peer)) {
                return; // (false: released, its entry not removed yet: no hold to add to)
            }
        }
        space.weights().passHome(new Held(r, new Class<?>[0], space.weights().exhausted(), space.ledger()), peer); // never entered
    }

    /**
     * The proxy of the object whose entry was found or made last, with the weight of the reference in {@code payload},
     * from base {@code peer}, added, if the reference names that object exactly as its hold's strings encode it
     * ({@link ReferenceDescriptor#weightIfSame}), its proxy is alive and unreleased and implements {@code declared},
     * {@code peer} sent it in a form that carries no addresses to check if it is the owner (a {@code SENDER} one; the
     * general path checks a named one's) and was not declared dead; else
     * null, and nothing is done: {@link #resolve} reads it. What {@link #resolve} would do with that reference, without
     * its look-up, its {@link Reference} or this object's monitor: the entry found last is its object's (an entry is
     * replaced only when its proxy died or its hold was released, and then this finds no proxy, or {@link Held#add}
     * refuses), and a hold being released takes its weight under the ledger's monitor, as this adds it
     * ({@link HoldWeights#takeIn}). Most arrivals name the object the one before named (a reference passed again and
     * again).
     */
    Object again(MemorySegment payload, Class<?> declared, long peer) {
        Entry e = last;
        if (e == null) {
            return null;
        }
        Held h = e.held;
        long w = ReferenceDescriptor.weightIfSame(payload, h.owner, h.id, h.strings, h.declares(declared), h.owner == peer);
        Object p = w < 0 ? null : e.get();
        return p != null && declared.isInstance(p) && space.weights().takeIn(h, w, peer) ? p : null;
    }

    /**
     * The hold behind {@code proxy} if it is the proxy whose entry was found or made last (a proxy this base passes on
     * and on), else null: what its handler holds ({@link SharedHandler#of}, a look-up in the JDK's proxy tables), read
     * without it.
     */
    Held lastHeld(Object proxy) {
        Entry e = last;
        return e != null && proxy != null && e.get() == proxy ? e.held : null;
    }

    /** The entry of object {@code id} of {@code owner}, or null. Under this object's monitor. */
    private Entry entry(long owner, int id) {
        Entry e = last;
        if (e != null && e.held.owner == owner && e.held.id == id) {
            return e;
        }
        e = proxies.get(new Key(owner, id));
        if (e != null) {
            last = e;
        }
        return e;
    }

    /**
     * The strings of the hold this base has of object {@code id} of {@code owner}, or null: what a reference to it
     * arriving again most likely carries ({@link ReferenceDescriptor#decode(java.lang.foreign.MemorySegment,
     * ReferenceDescriptor.Strings, Class)}).
     */
    ReferenceDescriptor.Strings strings(long owner, int id) {
        // (only a hint: strings that are not the arriving bytes are not used, and a hold's strings are its object's
        // whether or not its proxy is still there, so the entry found last is read without the monitor)
        Entry ref = last;
        if (ref == null || ref.held.owner != owner || ref.held.id != id) {
            synchronized (this) {
                ref = entry(owner, id);
            }
        }
        return ref == null ? null : ref.held.strings;
    }

    /** Releases {@code h} (its proxy was released, or died): its entry goes if it is still the one, its weight home. */
    void drop(Object proxy) {
        Held h = SharedHandler.heldBy(proxy);
        drop(new Key(h.owner, h.id), h);
    }

    private void drop(Key k, Held h) {
        long w = space.weights().takeAll(h);
        synchronized (this) {
            Entry ref = proxies.get(k);
            if (ref != null && (ref.get() == null || ref.held == h)) {
                proxies.remove(k);
                if (last == ref) {
                    last = null;
                }
            }
        }
        if (w > 0) {
            space.weights().giveBack(h, w);
        }
    }

    /** How many other bases' objects this base holds proxies of (live or not yet cleaned). */
    synchronized int size() {
        return proxies.size();
    }
}
