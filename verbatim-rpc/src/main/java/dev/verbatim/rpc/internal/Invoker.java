package dev.verbatim.rpc.internal;

/** What a generated proxy calls: the method's index in its {@link RemoteInterface}, the arguments boxed. */
public interface Invoker {
    Object invoke(int method, Object[] args) throws Throwable;
}
