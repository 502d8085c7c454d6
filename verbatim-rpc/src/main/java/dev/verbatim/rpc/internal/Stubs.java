package dev.verbatim.rpc.internal;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * The server side of an interface: one method handle per method, made once, that calls the
 * implementation with the arguments spread from an array (no reflection per call).
 */
final class Stubs {
    private Stubs() {}

    private static final MethodType GENERIC = MethodType.methodType(Object.class, Object.class, Object[].class);

    private static final ClassValue<MethodHandle[]> HANDLES = new ClassValue<>() {
        @Override
        protected MethodHandle[] computeValue(Class<?> iface) {
            RemoteInterface ri = RemoteInterface.of(iface);
            MethodHandle[] hs = new MethodHandle[ri.methods.length];
            for (RemoteInterface.MethodInfo mi : ri.methods) {
                try {
                    MethodHandle h = MethodHandles.publicLookup().unreflect(mi.method);
                    hs[mi.index] = h.asSpreader(Object[].class, mi.params.length).asType(GENERIC);
                } catch (IllegalAccessException e) {
                    throw new IllegalArgumentException("cannot call " + mi.method + ": " + e.getMessage(), e);
                }
            }
            return hs;
        }
    };

    static Object invoke(RemoteInterface ri, int method, Object impl, Object[] args) throws Throwable {
        return HANDLES.get(ri.type)[method].invokeExact(impl, args);
    }
}
