package dev.verbatim.rpc.internal;

import dev.verbatim.rpc.RemoteException;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * An RPC interface analysed once: its methods in a stable order, each with an identity derived from
 * its name and the structural descriptions of its parameters and result (so two processes agree
 * without sharing anything but the interface, and a record parameter matches an accessor-interface
 * parameter of the same structure), and how each value crosses.
 */
public final class RemoteInterface {
    private static final ClassValue<RemoteInterface> CACHE = new ClassValue<>() {
        @Override
        protected RemoteInterface computeValue(Class<?> type) {
            return new RemoteInterface(type);
        }
    };

    public final Class<?> type;
    public final MethodInfo[] methods;
    private final Map<Long, MethodInfo> byId = new HashMap<>();

    /** One method. */
    public static final class MethodInfo {
        public final int index;
        public final Method method;
        public final long id;
        public final String signature;
        public final ValueKind[] params;
        public final ValueKind result;
        public final boolean async;
        /** Whether an argument is read in place (a view or a segment): the message must outlive decoding. */
        public final boolean inPlace;
        /** The bytes the graph arguments of the last call took (racy by design: a hint for the next claim). */
        int graphBytes;
        /** Whether every parameter is a primitive (the arguments are written straight, with no plan). */
        public final boolean primitivesOnly;
        /** The number of values of a {@code REPLY} to it: 0 for a {@code void} result, else 1 (a reply is checked against it). */
        final int replyValues;

        MethodInfo(int index, Method method, long id, String signature, ValueKind[] params, ValueKind result, boolean async) {
            this.index = index;
            this.method = method;
            this.id = id;
            this.signature = signature;
            this.params = params;
            this.result = result;
            this.async = async;
            boolean any = false;
            for (ValueKind k : params) {
                any |= k.tag() == ValueKind.Tag.VIEW || k.tag() == ValueKind.Tag.SEGMENT;
            }
            this.inPlace = any;
            boolean prims = true;
            for (ValueKind k : params) {
                prims &= k.primitive();
            }
            this.primitivesOnly = prims;
            this.replyValues = result.tag() == ValueKind.Tag.VOID ? 0 : 1;
        }

        @Override
        public String toString() {
            return signature;
        }
    }

    private volatile Stubs.Stub stub;

    /** The server stub of this interface, generated on first use. */
    Stubs.Stub stub() {
        Stubs.Stub s = stub;
        if (s == null) {
            s = Stubs.of(type);
            stub = s;
        }
        return s;
    }

    public static RemoteInterface of(Class<?> type) {
        if (!type.isInterface()) {
            throw new IllegalArgumentException(type.getName() + " is not an interface: RPC exports and looks up interfaces");
        }
        return CACHE.get(type);
    }

    private RemoteInterface(Class<?> type) {
        this.type = type;
        if (!Modifier.isPublic(type.getModifiers())) {
            throw new IllegalArgumentException("RPC interface " + type.getName() + " must be public");
        }
        List<Method> ms = new ArrayList<>();
        for (Method m : type.getMethods()) {
            if (!m.isDefault() && !Modifier.isStatic(m.getModifiers()) && m.getDeclaringClass() != Object.class) {
                ms.add(m);
            }
        }
        ms.sort(Comparator.comparing(Method::getName).thenComparing(m -> Arrays.toString(m.getParameterTypes())));
        List<MethodInfo> infos = new ArrayList<>();
        for (Method m : ms) {
            Type[] ps = m.getGenericParameterTypes();
            ValueKind[] kinds = new ValueKind[ps.length];
            StringBuilder sig = new StringBuilder(m.getName()).append('(');
            for (int i = 0; i < ps.length; i++) {
                kinds[i] = ValueKind.of(ps[i], m);
                if (kinds[i].tag() == ValueKind.Tag.VOID) {
                    throw ValueKind.unsupported(m, ps[i], "Void parameter");
                }
                sig.append(i == 0 ? "" : ",").append(kinds[i].description());
            }
            Type r = m.getGenericReturnType();
            boolean async = false;
            if (r instanceof ParameterizedType p && p.getRawType() == CompletableFuture.class) {
                async = true;
                r = p.getActualTypeArguments()[0];
            } else if (r == CompletableFuture.class) {
                throw ValueKind.unsupported(m, r, "give CompletableFuture a type argument");
            }
            ValueKind result = ValueKind.of(r, m);
            if (result.tag() == ValueKind.Tag.VIEW) {
                throw ValueKind.unsupported(m, r, "a result is passed by copy: return a record, not an accessor interface");
            }
            // a MemorySegment result arrives as a heap segment holding a copy: it outlives the reply (docs/rpc.md §7)
            sig.append(')').append(result.description());
            infos.add(new MethodInfo(infos.size(), m, id(sig.toString()), sig.toString(), kinds, result, async));
        }
        this.methods = infos.toArray(new MethodInfo[0]);
        for (MethodInfo mi : methods) {
            MethodInfo clash = byId.put(mi.id, mi);
            if (clash != null) {
                throw new RemoteException(RemoteException.Reason.ARGUMENT, type.getName() + ": " + clash.method
                        + " and " + mi.method + " cannot be told apart on the wire (same name and structure; a byte[]"
                        + " and a MemorySegment are the same parameter)");
            }
        }
    }

    public MethodInfo byId(long id) {
        if (methods.length <= 32) { // no boxing on the call path for ordinary interfaces
            for (MethodInfo m : methods) {
                if (m.id == id) {
                    return m;
                }
            }
            return null;
        }
        return byId.get(id);
    }

    /** The first 8 bytes of SHA-256 of the signature, little-endian. */
    static long id(String signature) {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(signature.getBytes(StandardCharsets.UTF_8));
            long v = 0;
            for (int i = 7; i >= 0; i--) {
                v = (v << 8) | (h[i] & 0xFF);
            }
            return v;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The method identities, for the lookup handshake. */
    public long[] ids() {
        long[] a = new long[methods.length];
        for (int i = 0; i < a.length; i++) {
            a[i] = methods[i].id;
        }
        return a;
    }
}
