package dev.verbatim.rpc.internal;

/** Implemented by every generated proxy: the binding it calls through. */
public interface ProxyObject {
    Binding verbatimBinding();
}
