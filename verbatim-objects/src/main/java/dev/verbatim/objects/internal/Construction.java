package dev.verbatim.objects.internal;

import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The classes a base allows others to construct, call static methods of, or copy objects into
 * (docs/objects.md §5), registered by {@code Class} object: a class name from a message is looked up
 * here, never loaded. A constructor or method is named on the wire by its signature,
 * {@code name(t1,t2,...)} with the parameter types' names, which the receiver compares with its own
 * class's members (never resolves).
 *
 * <p>Thread-safe.
 */
final class Construction {
    private final Map<String, Class<?>> allowed = new ConcurrentHashMap<>();

    /** Allows {@code c}: its public constructors, public static methods and copies. */
    void allow(Class<?> c) {
        if (!Modifier.isPublic(c.getModifiers()) || c.isInterface()) {
            throw new IllegalArgumentException(c.getName() + " is not a public class");
        }
        allowed.put(c.getName(), c);
    }

    /**
     * The allowed class named {@code name}.
     *
     * @throws IllegalArgumentException if this base does not allow it (the name is not loaded)
     */
    Class<?> allowedClass(String name, String base) {
        Class<?> c = allowed.get(name);
        if (c == null) {
            throw new IllegalArgumentException(ExceptionsText.clip(name) + " is not allowed to be constructed, called or"
                    + " copied on " + base);
        }
        return c;
    }

    /** The wire name of a constructor or method. */
    static String signature(Executable e) {
        StringBuilder b = new StringBuilder(e instanceof Constructor<?> ? "<init>" : e.getName()).append('(');
        Class<?>[] ps = e.getParameterTypes();
        for (int i = 0; i < ps.length; i++) {
            b.append(i == 0 ? "" : ",").append(ps[i].getName());
        }
        return b.append(')').toString();
    }

    /** The public constructor of {@code c} with wire name {@code signature}. */
    static Constructor<?> constructor(Class<?> c, String signature) {
        for (Constructor<?> k : c.getConstructors()) {
            if (signature(k).equals(signature)) {
                return k;
            }
        }
        throw new IllegalArgumentException(c.getName() + " has no public constructor " + ExceptionsText.clip(signature));
    }

    /** The public static method of {@code c} with wire name {@code signature}. */
    static Method staticMethod(Class<?> c, String signature) {
        for (Method m : c.getMethods()) {
            if (Modifier.isStatic(m.getModifiers()) && signature(m).equals(signature)) {
                return m;
            }
        }
        throw new IllegalArgumentException(c.getName() + " has no public static method " + ExceptionsText.clip(signature));
    }

    /** The one public constructor of {@code c} that takes {@code args}. */
    static Constructor<?> pickConstructor(Class<?> c, Object[] args) {
        List<Constructor<?>> fit = new ArrayList<>();
        for (Constructor<?> k : c.getConstructors()) {
            if (accepts(k, args)) {
                fit.add(k);
            }
        }
        return one(fit, c.getName() + " constructor", args);
    }

    /** The one public static method {@code name} of {@code c} that takes {@code args}. */
    static Method pickStatic(Class<?> c, String name, Object[] args) {
        List<Method> fit = new ArrayList<>();
        for (Method m : c.getMethods()) {
            if (Modifier.isStatic(m.getModifiers()) && m.getName().equals(name) && accepts(m, args)) {
                fit.add(m);
            }
        }
        return one(fit, c.getName() + "." + name, args);
    }

    private static <E extends Executable> E one(List<E> fit, String what, Object[] args) {
        if (fit.size() != 1) {
            throw new IllegalArgumentException((fit.isEmpty() ? "no public " : "more than one public ") + what
                    + " takes " + args.length + " arguments of these types: pick it by its exact parameter types");
        }
        return fit.getFirst();
    }

    private static boolean accepts(Executable e, Object[] args) {
        Class<?>[] ps = e.getParameterTypes();
        if (ps.length != args.length) {
            return false;
        }
        for (int i = 0; i < ps.length; i++) {
            Class<?> p = ps[i].isPrimitive() ? java.lang.invoke.MethodType.methodType(ps[i]).wrap().returnType() : ps[i];
            if (args[i] == null ? ps[i].isPrimitive() : !p.isInstance(args[i])) {
                return false;
            }
        }
        return true;
    }
}
