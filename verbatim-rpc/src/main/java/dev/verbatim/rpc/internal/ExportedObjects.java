package dev.verbatim.rpc.internal;

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
 * <p>Thread-safe (one lock, this object's monitor).
 */
final class ExportedObjects {
    /** An object passed by reference from this side, and how many references the peer holds. */
    record Entry(int id, Object impl, RemoteInterface remote, AtomicInteger references) {}

    private final Map<Integer, Entry> byId = new HashMap<>();
    private final Map<Object, Map<Class<?>, Entry>> byIdentity = new IdentityHashMap<>();
    private int lastId;
    /** Run (under the lock) when an object enters the table: the peer may call it from now on. */
    private final Runnable onFirstExport;

    ExportedObjects(Runnable onFirstExport) {
        this.onFirstExport = onFirstExport;
    }

    /** Counts one more reference of the peer to {@code impl} as {@code iface}, exporting it if needed; its id. */
    synchronized int export(Object impl, Class<?> iface) {
        Map<Class<?>, Entry> byIface = byIdentity.computeIfAbsent(impl, o -> new HashMap<>());
        Entry e = byIface.get(iface);
        if (e == null) {
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

    /** The peer gave back {@code count} references to object {@code id}; at zero it is forgotten. */
    synchronized void release(int id, long count) {
        Entry e = byId.get(id);
        if (e != null && e.references.addAndGet((int) -count) <= 0) {
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
