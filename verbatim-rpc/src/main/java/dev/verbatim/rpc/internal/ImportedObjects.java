package dev.verbatim.rpc.internal;

import java.lang.ref.Cleaner;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The import table of one connection (Cap'n Proto's "imports"): proxies of the objects the peer
 * passed to this side by reference, by the peer's object id, so one object arrives as one proxy
 * (while that proxy is reachable).
 *
 * <p>Counting: every arrival of a reference counts one in its proxy's binding
 * ({@link Binding#references}); when the proxy is released ({@code Node.release}) or becomes
 * unreachable (a {@link Cleaner}), the whole count goes back to the peer in one {@code RELEASE}
 * ({@link Releaser}). A reference arriving after its proxy died starts a new <em>generation</em>: a new
 * proxy with its own count, while the old one's cleaner still gives back the old count.
 *
 * <p>Thread-safe.
 */
final class ImportedObjects {
    private static final Cleaner CLEANER = Cleaner.create();

    /** Sends the peer a {@code RELEASE} of {@code count} references to its object {@code id}. */
    @FunctionalInterface
    interface Releaser {
        void release(int id, int count);
    }

    private final Map<Integer, WeakReference<Object>> proxies = new ConcurrentHashMap<>();
    private final Endpoint endpoint;
    private final Releaser releaser;

    /** @param endpoint what the proxies call over (may be null where no call is made, as in a test) */
    ImportedObjects(Endpoint endpoint, Releaser releaser) {
        this.endpoint = endpoint;
        this.releaser = releaser;
    }

    /** The proxy of the peer's object {@code id} as {@code iface}, counting one more reference to it. */
    Object resolve(int id, Class<?> iface) {
        WeakReference<Object> ref = proxies.get(id);
        Object proxy = ref == null ? null : ref.get();
        if (proxy != null && iface.isInstance(proxy)) {
            ((ProxyObject) proxy).verbatimBinding().references.incrementAndGet(); // held: its cleaner cannot run
            return proxy;
        }
        AtomicInteger count = new AtomicInteger(1); // a new generation: an old proxy's cleaner keeps its own count
        Binding b = new Binding(endpoint, RemoteInterface.of(iface), id, true, Duration.ofSeconds(30), count);
        proxy = ProxyFactory.create(b);
        proxies.put(id, new WeakReference<>(proxy));
        CLEANER.register(proxy, () -> release(b));
        return proxy;
    }

    /**
     * Gives back every reference {@code b}'s proxy holds (once). Its entry goes, so that a reference arriving
     * later gets a live proxy: the entry of a proxy that died, or of {@code b}'s own proxy (released while
     * reachable); a newer proxy of the object stays.
     */
    void release(Binding b) {
        if (b.released) {
            return;
        }
        b.released = true;
        int n = b.references.getAndSet(0);
        WeakReference<Object> ref = proxies.get(b.target);
        if (ref != null) {
            Object live = ref.get();
            if (live == null || live instanceof ProxyObject po && po.verbatimBinding() == b) {
                proxies.remove(b.target, ref);
            }
        }
        if (n > 0) {
            releaser.release(b.target, n);
        }
    }

    /** Forgets every proxy (the connection closed: the peer dropped everything of ours). */
    void clear() {
        proxies.clear();
    }
}
