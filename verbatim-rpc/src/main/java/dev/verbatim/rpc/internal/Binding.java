package dev.verbatim.rpc.internal;

import dev.verbatim.rpc.RemoteException;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a proxy calls: an endpoint, a target on the other side (a named export, or an object passed
 * by reference), the interface as this side knows it, and the call timeout. Thread-safe.
 */
public final class Binding implements Invoker {
    final Endpoint endpoint;
    final RemoteInterface remote;
    final int target;
    final boolean toObject;
    final long timeoutNanos;
    /** For an object received by reference: how many references this side holds (released together). */
    final AtomicInteger references;
    /** For a copy made by {@code withTimeout}: the original proxy, kept reachable (its cleaner releases the object). */
    private final Object original;
    volatile boolean released;

    Binding(Endpoint endpoint, RemoteInterface remote, int target, boolean toObject, Duration timeout,
            AtomicInteger references) {
        this(endpoint, remote, target, toObject, timeout, references, null);
    }

    private Binding(Endpoint endpoint, RemoteInterface remote, int target, boolean toObject, Duration timeout,
                    AtomicInteger references, Object original) {
        this.original = original;
        this.endpoint = endpoint;
        this.remote = remote;
        this.target = target;
        this.toObject = toObject;
        this.timeoutNanos = timeout.toNanos();
        this.references = references;
    }

    Binding withTimeout(Duration timeout, Object proxy) {
        return new Binding(endpoint, remote, target, toObject, timeout, references, proxy);
    }

    Object original() {
        return original;
    }

    boolean isReleased() {
        return released || original instanceof ProxyObject po && po.verbatimBinding().released;
    }

    @Override
    public Object invoke(int method, Object[] args) throws Throwable {
        if (isReleased()) {
            throw new RemoteException(RemoteException.Reason.NOT_FOUND, this + " was released");
        }
        return endpoint.call(this, remote.methods[method], args);
    }

    @Override
    public String toString() {
        return "proxy of " + remote.type.getName() + (toObject ? " (object #" + target + ")" : " (export #" + target + ")")
                + " over " + endpoint.description();
    }
}
