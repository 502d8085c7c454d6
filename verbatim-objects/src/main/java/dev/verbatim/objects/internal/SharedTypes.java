package dev.verbatim.objects.internal;

import dev.verbatim.objects.Shared;
import dev.verbatim.rpc.RemoteException;
import dev.verbatim.rpc.internal.RemoteInterface;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Which interfaces a shared object offers, and what a name on the wire may resolve to (docs/objects.md §1).
 *
 * <ul>
 *   <li>An object offers every public interface of its class (and superclasses) that extends
 *       {@link Shared}; its proxies implement exactly those. One that offers none cannot be shared.</li>
 *   <li>A name from a message is resolved with {@code Class.forName(name, false, loader)}: loaded if the
 *       loader can find it, never initialised, and accepted only if it is a public interface extending
 *       {@code Shared}; any other name is ignored (the proxy does not offer it). No class named in a
 *       message is ever instantiated.</li>
 *   <li>A shared interface whose methods pass, by copy, a value holding a shared object in a field (a
 *       record component, a class field, an array's elements) is refused, naming the field: a reference
 *       nested in a copied value has no wire form yet.</li>
 * </ul>
 *
 * Thread-safe (results are cached per class).
 */
final class SharedTypes {
    private SharedTypes() {}

    /** The shared interfaces an object offers, their names and their RPC analyses. */
    record Offer(Class<?>[] interfaces, List<String> names, RemoteInterface[] remotes) {}

    private static final ClassValue<Object> OFFERS = new ClassValue<>() {
        @Override
        protected Object computeValue(Class<?> c) {
            try {
                return offerOf(c);
            } catch (RuntimeException e) {
                return e;
            }
        }
    };

    /**
     * What an object of class {@code c} offers.
     *
     * @throws RemoteException {@code ARGUMENT} if it offers no shared interface, or one of them passes a
     *         shared object nested in a copied value
     */
    static Offer offer(Class<?> c) {
        Object o = OFFERS.get(c);
        if (o instanceof RuntimeException e) {
            throw e;
        }
        return (Offer) o;
    }

    private static Offer offerOf(Class<?> c) {
        Set<Class<?>> found = new LinkedHashSet<>();
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            collect(k, found);
        }
        if (found.isEmpty()) {
            throw new RemoteException(RemoteException.Reason.ARGUMENT, c.getName()
                    + " implements no public interface extending " + Shared.class.getName() + ": it cannot be shared");
        }
        Class<?>[] interfaces = found.toArray(Class<?>[]::new);
        RemoteInterface[] remotes = new RemoteInterface[interfaces.length];
        List<String> names = new ArrayList<>();
        for (int i = 0; i < interfaces.length; i++) {
            checkNoNestedShared(interfaces[i]);
            remotes[i] = RemoteInterface.of(interfaces[i]);
            names.add(interfaces[i].getName());
        }
        return new Offer(interfaces, List.copyOf(names), remotes);
    }

    private static void collect(Class<?> k, Set<Class<?>> found) {
        for (Class<?> i : k.getInterfaces()) {
            if (i != Shared.class && Shared.class.isAssignableFrom(i) && Modifier.isPublic(i.getModifiers())) {
                found.add(i);
            }
            collect(i, found);
        }
    }

    /**
     * The interfaces a proxy of a reference naming {@code names}, arriving where {@code declared} is
     * declared, implements: the names that resolve (as the class comment says), and {@code declared}
     * unless one of them extends it. The result's first element's loader defines the proxy class.
     */
    static Class<?>[] resolve(List<String> names, Class<?> declared, ClassLoader loader) {
        Set<Class<?>> out = new LinkedHashSet<>();
        for (String n : names) {
            Class<?> c;
            try {
                c = Class.forName(n, false, loader);
            } catch (ClassNotFoundException | LinkageError e) {
                continue; // not known here: the proxy does not offer it
            }
            if (c.isInterface() && c != Shared.class && Shared.class.isAssignableFrom(c) && Modifier.isPublic(c.getModifiers())) {
                out.add(c);
            }
        }
        boolean covered = false;
        for (Class<?> c : out) {
            covered |= declared.isAssignableFrom(c);
        }
        if (!covered) {
            out.add(declared);
        }
        return out.toArray(Class<?>[]::new);
    }

    /** Refuses an interface that passes a shared object inside a copied value (see the class comment). */
    static void checkNoNestedShared(Class<?> iface) {
        Set<Class<?>> seen = new LinkedHashSet<>();
        for (Method m : iface.getMethods()) {
            if (Modifier.isStatic(m.getModifiers())) {
                continue;
            }
            for (Class<?> p : m.getParameterTypes()) {
                checkCopied(p, iface.getSimpleName() + "." + m.getName(), seen);
            }
            checkCopied(m.getReturnType(), iface.getSimpleName() + "." + m.getName(), seen);
        }
    }

    /** Refuses {@code type}, passed by copy at {@code where}, if a field of it (transitively) holds a shared object. */
    static void checkCopied(Class<?> type, String where, Set<Class<?>> seen) {
        if (type.isInterface() || type.isPrimitive()) {
            return; // passed by reference (shared, or RPC's Remote), or an accessor view: nothing nested
        }
        nested(type, where, seen);
    }

    private static void nested(Class<?> type, String where, Set<Class<?>> seen) {
        if (type.isArray()) {
            Class<?> e = type.getComponentType();
            if (Shared.class.isAssignableFrom(e)) {
                throw refused(where, "an array of " + e.getName());
            }
            nested(e, where, seen);
            return;
        }
        if (type.isPrimitive() || type.isEnum() || type.getName().startsWith("java.") || !seen.add(type)) {
            return;
        }
        if (type.isRecord()) {
            for (RecordComponent rc : type.getRecordComponents()) {
                field(rc.getType(), type.getName() + "." + rc.getName(), seen);
            }
            return;
        }
        for (Class<?> k = type; k != null && k != Object.class; k = k.getSuperclass()) {
            for (Field f : k.getDeclaredFields()) {
                if (!Modifier.isStatic(f.getModifiers()) && !Modifier.isTransient(f.getModifiers())) {
                    field(f.getType(), k.getName() + "." + f.getName(), seen);
                }
            }
        }
    }

    private static void field(Class<?> t, String field, Set<Class<?>> seen) {
        if (Shared.class.isAssignableFrom(t)) {
            throw refused(field, t.getName());
        }
        nested(t, field, seen);
    }

    private static RemoteException refused(String field, String what) {
        return new RemoteException(RemoteException.Reason.ARGUMENT, field + " holds a shared object (" + what
                + ") inside a value passed by copy: a reference nested in a copied value is not supported yet;"
                + " pass the shared object as a parameter or result of its own");
    }
}
