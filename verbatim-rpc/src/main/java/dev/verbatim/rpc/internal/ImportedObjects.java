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
 * proxy with its own count, while the old one's cleaner still gives back the old count. So does a
 * reference arriving while its proxy is being released (issue 16 §4): a release sets the count to
 * {@link #RELEASED} in one step, and an arrival counts in a proxy only by a compare-and-set from a live
 * count; whichever comes first, each reference is given back exactly once and no arrival gets a released
 * proxy.
 *
 * <p>Thread-safe.
 */
final class ImportedObjects {
    private static final Cleaner CLEANER = Cleaner.create();
    /** A binding's count once its references were given back: no arrival counts in it any more. */
    static final int RELEASED = -1;

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
        if (proxy != null && iface.isInstance(proxy) && hold(((ProxyObject) proxy).verbatimBinding())) {
            return proxy; // held (reachable): its cleaner cannot run, and it was not being released
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
        int n = b.references.getAndSet(RELEASED); // the one step a concurrent arrival (hold) sees, or not
        if (n == RELEASED) {
            return;
        }
        b.released = true;
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

    /**
     * Counts one more reference in {@code b}, unless it is being released (or was): then the arriving
     * reference needs a new proxy. A release and an arrival of the same object race (a reader thread
     * resolves a reference while another thread releases the proxy): the count is where they meet, in one
     * atomic step each, so the arrival never gets back a proxy whose references were given back.
     */
    private static boolean hold(Binding b) {
        AtomicInteger count = b.references;
        for (int n = count.get(); n != RELEASED; n = count.get()) {
            if (count.compareAndSet(n, n + 1)) {
                return true;
            }
        }
        return false;
    }

    /** Forgets every proxy (the connection closed: the peer dropped everything of ours). */
    void clear() {
        proxies.clear();
    }
}
