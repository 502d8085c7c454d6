package dev.verbatim.rpc.internal;

import dev.verbatim.rpc.RemoteException;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a proxy calls: an endpoint, a target on the other side (a named export, or an object passed
 * by reference), the interface as this side knows it, and the call timeout. A named export looked up
 * over several connections to one node ({@code group}) spreads its callers' threads over them; an
 * object passed by reference is called over the connection it came by. Thread-safe.
 */
public final class Binding implements Invoker {
    /** The arguments of every call of a method without parameters (generated proxies load it). */
    public static final Object[] NO_ARGS = {};
    final Endpoint endpoint;
    /** For a named export: every connection to its node this binding may call over (endpoint among them), or null. */
    final Endpoint[] group;
    final RemoteInterface remote;
    final int target;
    final boolean toObject;
    /** The flags of its calls: {@link RpcDescriptor#TO_OBJECT}, {@link RpcDescriptor#TO_SHARED} or 0. */
    final int flags;
    final long timeoutNanos;
    /** For an object received by reference: how many references this side holds (released together). */
    final AtomicInteger references;
    /** For a copy made by {@code withTimeout}: the original proxy, kept reachable (its cleaner releases the object). */
    private final Object original;
    volatile boolean released;

    Binding(Endpoint endpoint, RemoteInterface remote, int target, boolean toObject, Duration timeout,
            AtomicInteger references) {
        this(endpoint, null, remote, target, toObject, timeout, references, null);
    }

    Binding(Endpoint[] group, RemoteInterface remote, int target, Duration timeout) {
        this(group[0], group.length > 1 ? group.clone() : null, remote, target, false, timeout, null, null);
    }

    private Binding(Endpoint endpoint, Endpoint[] group, RemoteInterface remote, int target, boolean toObject,
                    Duration timeout, AtomicInteger references, Object original) {
        this.original = original;
        this.endpoint = endpoint;
        this.group = group;
        this.remote = remote;
        this.target = target;
        this.toObject = toObject;
        this.flags = toObject ? RpcDescriptor.TO_OBJECT : 0;
        this.timeoutNanos = timeout.toNanos();
        this.references = references;
    }

    /** A binding of a shared object of the object layer: its node-wide id {@code target} at {@code endpoint}'s peer. */
    private Binding(Endpoint endpoint, RemoteInterface remote, int target, Duration timeout) {
        this.original = null;
        this.endpoint = endpoint;
        this.group = null;
        this.remote = remote;
        this.target = target;
        this.toObject = false;
        this.flags = RpcDescriptor.TO_SHARED;
        this.timeoutNanos = timeout.toNanos();
        this.references = null;
    }

    /**
     * What the object layer calls a shared object through: its node-wide id {@code target} at the node
     * {@code endpoint} leads to, as {@code remote}. Its calls carry {@link RpcDescriptor#TO_SHARED}.
     */
    public static Binding shared(Endpoint endpoint, RemoteInterface remote, int target, Duration timeout) {
        return new Binding(endpoint, remote, target, timeout);
    }

    /** The endpoint this binding calls over (the first of its group). */
    public Endpoint endpoint() {
        return endpoint;
    }

    Binding withTimeout(Duration timeout, Object proxy) {
        return new Binding(endpoint, group, remote, target, toObject, timeout, references, proxy);
    }

    Object original() {
        return original;
    }

    /** Whether this binding calls over {@code e} (so a proxy of it passed over {@code e} is the peer's own). */
    boolean callsOver(Endpoint e) {
        if (endpoint == e) {
            return true;
        }
        if (group != null) {
            for (Endpoint g : group) {
                if (g == e) {
                    return true;
                }
            }
        }
        return false;
    }

    boolean isReleased() {
        return released || original instanceof ProxyObject po && po.verbatimBinding().released;
    }

    @Override
    public Object invoke(int method, Object[] args) throws Throwable {
        if (isReleased()) {
            throw new RemoteException(RemoteException.Reason.NOT_FOUND, this + " was released");
        }
        Endpoint e = group == null ? endpoint : group[(int) (Thread.currentThread().threadId() % group.length)];
        return e.call(this, remote.methods[method], args);
    }

    @Override
    public String toString() {
        return "proxy of " + remote.type.getName() + (toObject ? " (object #" + target + ")"
                : flags == RpcDescriptor.TO_SHARED ? " (shared object #" + target + ")" : " (export #" + target + ")")
                + " over " + endpoint.description() + (group == null ? "" : " and " + (group.length - 1) + " more connections");
    }
}
