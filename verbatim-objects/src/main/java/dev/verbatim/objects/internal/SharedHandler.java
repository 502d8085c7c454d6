package dev.verbatim.objects.internal;

import dev.verbatim.rpc.RemoteException;
import dev.verbatim.rpc.internal.Binding;
import dev.verbatim.rpc.internal.RemoteInterface;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * What a proxy of another base's object does when called: {@code equals} is identity and {@code hashCode}
 * the identity hash (one proxy per object per base, so identity is the object's), and every method of a
 * shared interface is an RPC call ({@code TO_SHARED}) to the object's id at its owner, over the connection
 * to the owner (made on the first call: forwarding a reference costs the owner nothing until then).
 *
 * <p>When the connection to the owner is lost, the owner is looked for again at its addresses: if it is
 * gone (nothing answers, or another incarnation does), the call fails with
 * {@code RemoteException.Reason.GONE} at once, and so does every later call; if the same incarnation
 * answers, a call that was never sent is sent once more over the new connection, and one that may have run
 * fails as RPC said.
 */
final class SharedHandler implements InvocationHandler {
    /** Where each method of a proxy class goes: the index of its interface in the proxy, and its RPC method index. */
    private record Route(int type, int method) {}

    private static final ClassValue<Map<Method, Route>> ROUTES = new ClassValue<>() {
        @Override
        protected Map<Method, Route> computeValue(Class<?> proxyClass) {
            Map<Method, Route> m = new HashMap<>();
            Class<?>[] types = proxyClass.getInterfaces();
            for (int t = types.length - 1; t >= 0; t--) { // the first interface wins a method two declare
                for (RemoteInterface.MethodInfo mi : RemoteInterface.of(types[t]).methods) {
                    m.put(mi.method, new Route(t, mi.index));
                }
            }
            return m;
        }
    };

    final Held held;
    private final ObjectSpace space;

    SharedHandler(Held held, ObjectSpace space) {
        this.held = held;
        this.space = space;
    }

    /** Whether a class is a dynamic proxy class ({@link Proxy#isProxyClass}, a look-up in the JDK's tables): once per class. */
    private static final ClassValue<Boolean> PROXY_CLASSES = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> c) {
            return Proxy.isProxyClass(c);
        }
    };

    /** The handler of {@code o}, if it is a proxy of another base's object; else null. */
    static SharedHandler of(Object o) {
        if (o != null && PROXY_CLASSES.get(o.getClass()) && Proxy.getInvocationHandler(o) instanceof SharedHandler h) {
            return h;
        }
        return null;
    }

    /** The hold behind {@code o}, if it is a proxy of another base's object; else null. */
    static Held heldBy(Object o) {
        SharedHandler h = of(o);
        return h == null ? null : h.held;
    }

    /** The space of the base holding {@code o}, if it is a proxy; else null. */
    static ObjectSpace spaceOf(Object o) {
        SharedHandler h = of(o);
        return h == null ? null : h.space;
    }

    ObjectSpace space() {
        return space;
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        if (method.getDeclaringClass() == Object.class) {
            return switch (method.getName()) {
                case "equals" -> proxy == args[0];
                case "hashCode" -> System.identityHashCode(proxy);
                default -> held.toString();
            };
        }
        Route r = route(proxy.getClass(), method);
        Object[] a = args == null ? Binding.NO_ARGS : args;
        space.weights().refillArguments(a);
        held.check();
        Binding b = binding(r.type, false);
        try {
            return b.invoke(r.method, a);
        } catch (RemoteException e) {
            if (b.endpoint().isOpen() || e.reason() != RemoteException.Reason.NOT_SENT
                    && e.reason() != RemoteException.Reason.CONNECTION) {
                throw e;
            }
            Binding again;
            try {
                again = binding(r.type, true); // the connection to the owner is lost: is the owner?
            } catch (RemoteException gone) {
                gone.addSuppressed(e);
                throw gone; // GONE (if the call was sent, it may have run before the owner died)
            }
            if (e.reason() != RemoteException.Reason.NOT_SENT) {
                throw e; // the owner lives on: a call that may have run is not repeated
            }
            return again.invoke(r.method, a); // never sent: once more, over the new connection
        }
    }

    private static Route route(Class<?> proxyClass, Method m) {
        Map<Method, Route> routes = ROUTES.get(proxyClass);
        Route r = routes.get(m);
        if (r == null) { // declared by a superinterface as another Method object: match by name and parameters
            for (Map.Entry<Method, Route> e : routes.entrySet()) {
                Method k = e.getKey();
                if (k.getName().equals(m.getName()) && Arrays.equals(k.getParameterTypes(), m.getParameterTypes())) {
                    return e.getValue();
                }
            }
            throw new IllegalStateException("no route for " + m);
        }
        return r;
    }

    /** The binding of interface {@code t}, over an open connection to the owner (checked to be the same base). */
    private Binding binding(int t, boolean renew) {
        Binding b = held.binding(t);
        if (b != null && !renew && b.endpoint().isOpen()) {
            return b;
        }
        b = Binding.shared(space.peers().endpoint(held.owner, held.addresses), RemoteInterface.of(held.types[t]), held.id,
                space.options().timeout());
        held.binding(t, b);
        return b;
    }
}
