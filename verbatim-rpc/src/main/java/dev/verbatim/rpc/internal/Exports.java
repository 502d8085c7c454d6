package dev.verbatim.rpc.internal;

import dev.verbatim.rpc.ExportOptions;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** A node's named exports: name to export, export id to export. Thread-safe. */
public final class Exports {
    /** One named export; the implementation can be swapped (rebind) without clients rebinding. */
    public static final class Export {
        public final int id;
        public final String name;
        public final ExportOptions options;
        /** The interface and implementation, swapped together by a rebind. */
        volatile Bound bound;

        Export(int id, String name, RemoteInterface remote, Object impl, ExportOptions options) {
            this.id = id;
            this.name = name;
            this.bound = new Bound(remote, impl);
            this.options = options;
        }
    }

    /** An interface and the object that implements it. */
    record Bound(RemoteInterface remote, Object impl) {
    }

    private final Map<String, Export> byName = new ConcurrentHashMap<>();
    private final Map<Integer, Export> byId = new ConcurrentHashMap<>();
    /** The first {@link #SMALL} ids, for a lookup per call with no hashing or boxing: copied on write. */
    private volatile Export[] small = new Export[0];
    private static final int SMALL = 256;
    private final AtomicInteger ids = new AtomicInteger();

    public void export(String name, Class<?> iface, Object impl, ExportOptions options) {
        RemoteInterface ri = RemoteInterface.of(iface);
        if (!iface.isInstance(impl)) {
            throw new IllegalArgumentException(impl.getClass().getName() + " does not implement " + iface.getName());
        }
        Export e = new Export(ids.incrementAndGet(), name, ri, impl, options);
        if (byName.putIfAbsent(name, e) != null) {
            throw new IllegalStateException("something is already exported as '" + name + "' (use rebind)");
        }
        byId.put(e.id, e);
        setSmall(e.id, e);
    }

    private synchronized void setSmall(int id, Export e) {
        if (id < SMALL) {
            Export[] t = java.util.Arrays.copyOf(small, Math.max(small.length, id + 1));
            t[id] = e;
            small = t;
        }
    }

    /**
     * Swaps the implementation under {@code name}, and upgrades the interface when {@code iface}
     * extends the one exported (J-RPC §3.3): bound clients keep calling, with no rebinding.
     */
    public void rebind(String name, Class<?> iface, Object impl) {
        Export e = byName.get(name);
        if (e == null) {
            throw new IllegalStateException("nothing is exported as '" + name + "'");
        }
        if (!e.bound.remote().type.isAssignableFrom(iface)) {
            throw new IllegalArgumentException(iface.getName() + " does not extend " + e.bound.remote().type.getName()
                    + ", the interface exported as '" + name + "': clients bound to it would break");
        }
        if (!iface.isInstance(impl)) {
            throw new IllegalArgumentException(impl.getClass().getName() + " does not implement " + iface.getName());
        }
        e.bound = new Bound(RemoteInterface.of(iface), impl);
    }

    public boolean unexport(String name) {
        Export e = byName.remove(name);
        if (e != null) {
            byId.remove(e.id);
            setSmall(e.id, null);
        }
        return e != null;
    }

    /** The interface exported under {@code name}, or null. */
    public Class<?> interfaceOf(String name) {
        Export e = byName.get(name);
        return e == null ? null : e.bound.remote().type;
    }

    Export byName(String name) {
        return byName.get(name);
    }

    Export byId(int id) {
        Export[] t = small;
        if (id >= 0 && id < t.length) {
            return t[id];
        }
        return id < SMALL ? null : byId.get(id);
    }
}
