package dev.verbatim.rpc.internal;

import dev.verbatim.rpc.RemoteException;

import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The export table of one connection (Cap'n Proto's "exports"): the objects this side passed to the
 * peer by reference, by object id, each with the number of references the peer holds (docs/rpc.md §3).
 *
 * <p>An object is exported once per (object identity, interface): passing the same object as the same
 * interface again reuses its id and counts one more reference. The peer's {@code RELEASE} subtracts
 * what it gives back; at zero the entry is forgotten (a later pass gets a new id). Everything is
 * forgotten when the connection closes ({@link #clear}). Ids are never reused on a connection.
 * Named exports are not here: they are node-wide ({@link Exports}).
 *
 * <p>Bounded (issue 16 §4): at most {@link #limit} objects at once (default {@link #MAX_OBJECTS}, or the
 * system property {@value #LIMIT_PROPERTY} when the connection opens); one more is refused with
 * {@code OVERLOADED} until the peer releases some. A release must give back at least one reference and
 * at most what the peer holds, of an object it holds: anything else is refused (the peer broke the
 * protocol), so a peer can neither raise a count nor free what another reference still needs.
 *
 * <p>Thread-safe (one lock, this object's monitor).
 */
final class ExportedObjects {
    /** The default limit of objects passed by reference that one connection's peer may hold at once. */
    static final int MAX_OBJECTS = 65_536;
    /** The system property that sets another limit (read as each connection opens). */
    static final String LIMIT_PROPERTY = "verbatim.rpc.maxObjects";
    /** An object passed by reference from this side, and how many references the peer holds. */
    record Entry(int id, Object impl, RemoteInterface remote, AtomicInteger references) {}

    private final Map<Integer, Entry> byId = new HashMap<>();
    private final Map<Object, Map<Class<?>, Entry>> byIdentity = new IdentityHashMap<>();
    private int lastId;
    /** Run (under the lock) when an object enters the table: the peer may call it from now on. */
    private final Runnable onFirstExport;
    /** The most objects the table holds at once. */
    private final int limit;

    /** A table of the default limit, or the one {@value #LIMIT_PROPERTY} sets. */
    ExportedObjects(Runnable onFirstExport) {
        this(onFirstExport, Integer.getInteger(LIMIT_PROPERTY, MAX_OBJECTS));
    }

    ExportedObjects(Runnable onFirstExport, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("a limit of objects passed by reference must be at least 1, not " + limit);
        }
        this.onFirstExport = onFirstExport;
        this.limit = limit;
    }

    /**
     * Counts one more reference of the peer to {@code impl} as {@code iface}, exporting it if needed; its id.
     *
     * @throws RemoteException {@code OVERLOADED} if it would be one object more than the limit
     */
    synchronized int export(Object impl, Class<?> iface) {
        Map<Class<?>, Entry> byIface = byIdentity.get(impl);
        Entry e = byIface == null ? null : byIface.get(iface);
        if (e == null) {
            if (byId.size() >= limit) {
                throw new RemoteException(RemoteException.Reason.OVERLOADED, "the peer holds " + limit
                        + " objects passed by reference over this connection, the most it may (" + LIMIT_PROPERTY
                        + "): it must release some before more are passed");
            }
            if (byIface == null) {
                byIface = new HashMap<>();
                byIdentity.put(impl, byIface);
            }
            e = new Entry(++lastId, impl, RemoteInterface.of(iface), new AtomicInteger());
            byIface.put(iface, e);
            byId.put(e.id, e);
            onFirstExport.run();
        }
        e.references.incrementAndGet();
        return e.id;
    }

    /** The object exported as {@code id}, or null if there is none (never exported, or released). */
    synchronized Entry get(int id) {
        return byId.get(id);
    }

    /**
     * The peer gave back {@code count} references to object {@code id}; at zero it is forgotten.
     *
     * @throws IllegalArgumentException (nothing changed) if {@code count} is below 1 or above the references
     *         the peer holds, or it holds no object {@code id}: a protocol error
     */
    synchronized void release(int id, long count) {
        Entry e = byId.get(id);
        int held = e == null ? 0 : e.references.get();
        if (count < 1 || count > held) {
            throw new IllegalArgumentException("a release of " + count + " references to object #" + id + ", of which it holds "
                    + held);
        }
        if (e.references.addAndGet((int) -count) == 0) {
            byId.remove(id);
            Map<Class<?>, Entry> byIface = byIdentity.get(e.impl);
            if (byIface != null) {
                byIface.values().remove(e);
                if (byIface.isEmpty()) {
                    byIdentity.remove(e.impl);
                }
            }
        }
    }

    /**
     * Takes back one reference counted for a message that was never sent (its encoding failed): the peer
     * never learnt of it. Nothing if the table no longer has the object (the connection closed).
     */
    synchronized void unsent(int id) {
        Entry e = byId.get(id);
        if (e != null) {
            release(id, 1);
        }
    }

    /** How many objects the peer still holds references to. */
    synchronized int size() {
        return byId.size();
    }

    /** Forgets everything (the connection closed). */
    synchronized void clear() {
        byId.clear();
        byIdentity.clear();
    }
}
