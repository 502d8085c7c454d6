package dev.verbatim.fuzz;

import dev.verbatim.wire.Schema;
import dev.verbatim.wire.WireSchemaException;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * What the graph oracle needs to know about the objects of a graph, heap or view: which values are boxes, which
 * are views, the named components of a struct (record components, fields of a class, accessors of a view
 * interface, always sorted by name, so a record and its view twin list the same names in the same order), and
 * the wire fingerprint of a struct's type.
 *
 * <p>A view is an instance of a class the wire module generated (a hidden class implementing one accessor
 * interface); its identity is the offset of its object in its message, which its {@code toString()} names as
 * {@code "(offset N)"} (the wire module's only public word on it).
 *
 * <p>Thread-safe: the caches are {@link ClassValue}s.
 */
final class Structs {
    private Structs() {}

    static final Set<Class<?>> BOXES = Set.of(Boolean.class, Byte.class, Character.class, Short.class, Integer.class,
            Long.class, Float.class, Double.class);

    /** One named component of a struct: a record accessor, a field of a class, or an accessor of a view interface. */
    record Component(String name, Method method, Field field) {
        Class<?> type() { return method != null ? method.getReturnType() : field.getType(); }

        /** The component's value in {@code o}; an exception the accessor throws is rethrown as it is. */
        Object get(Object o) {
            try {
                return method != null ? method.invoke(o) : field.get(o);
            } catch (java.lang.reflect.InvocationTargetException e) {
                if (e.getCause() instanceof RuntimeException r) throw r;
                if (e.getCause() instanceof Error r) throw r;
                throw new IllegalStateException(e.getCause());
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    static boolean isBox(Object o) { return BOXES.contains(o.getClass()); }

    /** True for a view of a struct: an instance of a class the wire module generated at run time. */
    static boolean isView(Object o) { return o != null && HIDDEN.get(o.getClass()); }

    private static final ClassValue<Boolean> HIDDEN = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> c) { return c.isHidden(); }
    };

    static boolean isPrimitiveArray(Object o) { return o.getClass().isArray() && o.getClass().getComponentType().isPrimitive(); }

    /** A record or a class of the graph's own (not a JDK value, array, list, enum or char sequence). */
    static boolean isHeapStruct(Object o) {
        return !(o instanceof Enum<?>) && !(o instanceof CharSequence) && !(o instanceof List<?>) && !o.getClass().isArray()
                && !isBox(o) && !isView(o) && !(o instanceof dev.verbatim.wire.ArrayView);
    }

    /** The offset of the object a view reads, from its {@code toString()}'s {@code "(offset N)"}. */
    static long viewOffset(Object view) {
        String s = view.toString();
        int i = s.lastIndexOf("(offset ");
        int j = s.indexOf(')', i);
        if (i < 0 || j < 0) throw new IllegalStateException("cannot tell which object a view reads: " + s);
        return Long.parseLong(s.substring(i + 8, j));
    }

    /** The accessor interface a generated view class implements. */
    static Class<?> viewInterface(Object view) {
        Class<?>[] is = view.getClass().getInterfaces();
        if (is.length != 1) throw new IllegalStateException("a view class implements " + Arrays.toString(is));
        return is[0];
    }

    /** The components of a struct, heap or view, sorted by name. */
    static List<Component> components(Object struct) {
        return COMPONENTS.get(isView(struct) ? viewInterface(struct) : struct.getClass());
    }

    /** The component called {@code name} of {@code struct}'s type, or null. */
    static Component component(Object struct, String name) {
        for (Component c : components(struct)) if (c.name().equals(name)) return c;
        return null;
    }

    /** The wire fingerprint of a struct's type (a view's: of its interface), or 0 when it is not a wire type. */
    static long fingerprint(Object struct) {
        return FINGERPRINTS.get(isView(struct) ? viewInterface(struct) : struct.getClass());
    }

    /** The simple name of a struct's type (a view's: of its interface). */
    static String typeName(Object struct) {
        return (isView(struct) ? viewInterface(struct) : struct.getClass()).getSimpleName();
    }

    private static final ClassValue<Long> FINGERPRINTS = new ClassValue<>() {
        @Override
        protected Long computeValue(Class<?> c) {
            try {
                return Schema.fingerprint(c);
            } catch (WireSchemaException e) {
                return 0L;
            }
        }
    };

    private static final ClassValue<List<Component>> COMPONENTS = new ClassValue<>() {
        @Override
        protected List<Component> computeValue(Class<?> c) {
            List<Component> out = new ArrayList<>();
            if (c.isInterface()) {
                for (Method m : c.getMethods()) {
                    if (Modifier.isStatic(m.getModifiers()) || !Modifier.isAbstract(m.getModifiers()) || m.getParameterCount() != 0) continue;
                    if (m.getName().equals("hashCode") || m.getName().equals("toString")) continue;
                    m.trySetAccessible(); // a public interface nested in a class the oracle cannot see
                    out.add(new Component(m.getName(), m, null));
                }
            } else if (c.isRecord()) {
                for (RecordComponent rc : c.getRecordComponents()) {
                    Method m = rc.getAccessor();
                    m.setAccessible(true);
                    out.add(new Component(rc.getName(), m, null));
                }
            } else {
                for (Class<?> s = c; s != null && s != Object.class; s = s.getSuperclass()) {
                    for (Field f : s.getDeclaredFields()) {
                        int mod = f.getModifiers();
                        if (Modifier.isStatic(mod) || Modifier.isTransient(mod) || f.isSynthetic()) continue;
                        f.setAccessible(true);
                        out.add(new Component(f.getName(), null, f));
                    }
                }
            }
            out.sort(Comparator.comparing(Component::name));
            return List.copyOf(out);
        }
    };
}
