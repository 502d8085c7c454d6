package dev.verbatim.wire;

/**
 * The Java type a {@link WireWriter} writes an object as (docs/wire-format.md §3, §5): a root by its class, the interface
 * of its view, or the type the caller names; a referenced object by the type its slot declares and its own class (the
 * variant of a sealed hierarchy, a record's or final class's own type where it implements a declared accessor
 * interface of the same structure), refused with the reason when it does not fit the declaration. These are rules
 * about classes and the cached {@link Schema}, the same for every writer and every message, so they are pure functions
 * here, apart from the writer's traversal: the writer asks only where an object's class is not exactly the declared
 * type (an exact record, final class, string, box or array needs no look) and remembers the last root's answer.
 */
final class WrittenTypes {
    private WrittenTypes() {}

    /** The Java type of a root written as class {@code as}: anything but a reference slot's interface (not an object). */
    static JType rootAs(Class<?> as) {
        JType t = Schema.of(as);
        if (t.jkind == JType.REF) throw new WireSchemaException("a " + as.getName() + " is passed by reference: it cannot be a message root");
        return t;
    }

    /** The type a root object is written as: its class, or the interface of a view. */
    static JType rootType(Object root) {
        if (root instanceof ViewBase v) return v.viewType();
        if (root instanceof ArrayView) {
            for (Class<?> i : root.getClass().getInterfaces()) {
                if (i.getEnclosingClass() == ArrayView.class) return Schema.of(i);
            }
        }
        JType t = Schema.of(root.getClass());
        if (t.jkind == JType.ENUM || t.jkind == JType.PRIM || t.jkind == JType.REF) {
            throw new WireSchemaException("a " + root.getClass().getName() + " cannot be a message root: wrap it in a record");
        }
        return t;
    }

    /** The Java type to write {@code value} as, where a reference of type {@code declared} holds it. */
    static JType actualType(Object value, JType declared) {
        Class<?> c = value.getClass();
        switch (declared.jkind) {
            case JType.RECORD, JType.CLASS -> {
                if (c == declared.raw || declared.factory != null && declared.raw.isInstance(value)) return declared;
                throw new IllegalArgumentException("a reference declared " + declared.raw.getName() + " holds a "
                        + c.getName() + ": only sealed hierarchies are polymorphic on the wire");
            }
            case JType.IFACE -> {
                if (declared.raw.isInstance(value)) {
                    JType own = ownType(c);
                    return own != null && own.shape == declared.shape ? own : declared;
                }
            }
            case JType.SEALED -> {
                for (JType v : declared.variants) {
                    if (v.raw.isInstance(value)) {
                        if (v.jkind == JType.IFACE) {
                            JType own = ownType(c);
                            if (own != null && own.shape == v.shape) return own;
                        }
                        return v;
                    }
                }
            }
            case JType.STRING -> { if (value instanceof String) return declared; }
            case JType.CHARSEQ -> { if (value instanceof CharSequence) return declared; }
            case JType.BOXED, JType.PRIM_ARRAY -> { if (c == declared.raw) return declared; }
            case JType.ARRAY_VIEW -> { if (declared.raw.isInstance(value)) return declared; }
            case JType.REF_ARRAY -> { if (value instanceof Object[] && declared.raw.isInstance(value)) return declared; }
            case JType.LIST, JType.SET, JType.MAP -> { if (declared.raw.isInstance(value)) return declared; }
            default -> { }
        }
        throw new IllegalArgumentException("a reference declared " + declared + " holds a " + c.getName());
    }

    /** A class's own record or class type, or null: a hidden or synthetic class (a lambda, a proxy), or one the wire cannot carry. */
    private static JType ownType(Class<?> c) {
        if (c.isHidden() || c.isInterface() || c.isArray() || c.isSynthetic()) return null;
        try {
            JType t = Schema.of(c);
            return (t.jkind == JType.RECORD || t.jkind == JType.CLASS) ? t : null;
        } catch (WireSchemaException e) {
            return null;
        }
    }
}
