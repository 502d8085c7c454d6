package dev.verbatim.wire;

import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Structural comparison of object graphs, iterative (no recursion on the depth of the data):
 *
 * <ul>
 *   <li>{@link #assertIsomorphic}: two heap graphs are equal and have the same sharing and cycles. A bijection
 *       between the identities of the two graphs is built as the walk goes; an object met twice on one side
 *       must be met twice, as the same object, on the other.</li>
 *   <li>{@link #assertViewAgrees}: a view graph reads the same values as a heap graph, accessor by accessor,
 *       and resolves shared objects to the same place in the message (views of one object share its offset).</li>
 *   <li>{@link #countObjects}: the number of distinct objects a graph puts on the wire.</li>
 * </ul>
 */
final class GraphIso {
    private GraphIso() {}

    private record Path(Path parent, String step) {
        @Override
        public String toString() {
            List<String> steps = new ArrayList<>();
            for (Path p = this; p != null; p = p.parent) steps.add(p.step);
            java.util.Collections.reverse(steps);
            return String.join("", steps);
        }
    }

    private record Pair(Object expected, Object actual, Path path) {}

    private static final Set<Class<?>> BOXES = Set.of(Boolean.class, Byte.class, Character.class, Short.class, Integer.class,
            Long.class, Float.class, Double.class);

    private static final Map<Class<?>, List<Accessor>> ACCESSORS = new java.util.concurrent.ConcurrentHashMap<>();

    /** A named component of a record or a field of a class. */
    private record Accessor(String name, Method method, Field field) {
        Object get(Object o) {
            try {
                return method != null ? method.invoke(o) : field.get(o);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private static List<Accessor> accessors(Class<?> c) {
        return ACCESSORS.computeIfAbsent(c, k -> {
            List<Accessor> out = new ArrayList<>();
            if (k.isRecord()) {
                for (RecordComponent rc : k.getRecordComponents()) {
                    Method m = rc.getAccessor();
                    m.setAccessible(true);
                    out.add(new Accessor(rc.getName(), m, null));
                }
            } else {
                for (Class<?> s = k; s != null && s != Object.class; s = s.getSuperclass()) {
                    for (Field f : s.getDeclaredFields()) {
                        int mod = f.getModifiers();
                        if (Modifier.isStatic(mod) || Modifier.isTransient(mod) || f.isSynthetic()) continue;
                        f.setAccessible(true);
                        out.add(new Accessor(f.getName(), null, f));
                    }
                }
            }
            out.sort(Comparator.comparing(Accessor::name));
            return List.copyOf(out);
        });
    }

    private static Object valueByName(Object o, String name) {
        for (Accessor a : accessors(o.getClass())) if (a.name.equals(name)) return a.get(o);
        throw new AssertionError(o.getClass().getName() + " has no component " + name);
    }

    private static AssertionError fail(Path p, String what) {
        return new AssertionError("at root" + (p == null ? "" : p) + ": " + what);
    }

    static boolean sameFloat(float a, float b) { return Float.floatToIntBits(a) == Float.floatToIntBits(b); }

    static boolean sameDouble(double a, double b) { return Double.doubleToLongBits(a) == Double.doubleToLongBits(b); }

    /** Equality of boxed values; floating point by bits (NaN equals NaN, 0.0 differs from -0.0). */
    static boolean sameValue(Object a, Object b) {
        if (a instanceof Float x && b instanceof Float y) return sameFloat(x, y);
        if (a instanceof Double x && b instanceof Double y) return sameDouble(x, y);
        return a.equals(b);
    }

    /**
     * Primitive arrays are equal. A {@code boolean[]} that holds bytes other than 0 and 1 (which a raw copy from
     * memory could produce) compares unequal to its normalized self, so it fails here too.
     */
    static boolean samePrimitiveArray(Object a, Object b) {
        return switch (a) {
            case boolean[] x when b instanceof boolean[] y -> {
                boolean[] normalized = new boolean[y.length];
                for (int i = 0; i < y.length; i++) normalized[i] = y[i];
                yield Arrays.equals(x, y) && Arrays.equals(y, normalized);
            }
            case byte[] x when b instanceof byte[] y -> Arrays.equals(x, y);
            case char[] x when b instanceof char[] y -> Arrays.equals(x, y);
            case short[] x when b instanceof short[] y -> Arrays.equals(x, y);
            case int[] x when b instanceof int[] y -> Arrays.equals(x, y);
            case long[] x when b instanceof long[] y -> Arrays.equals(x, y);
            case float[] x when b instanceof float[] y -> Arrays.equals(x, y); // floatToIntBits per element
            case double[] x when b instanceof double[] y -> Arrays.equals(x, y);
            default -> false;
        };
    }

    static boolean isPrimitiveArray(Object o) { return o.getClass().isArray() && o.getClass().getComponentType().isPrimitive(); }

    /** Asserts that {@code actual} is a copy of {@code expected} with the same shape of sharing and cycles. */
    static void assertIsomorphic(Object expected, Object actual) {
        Map<Object, Object> e2a = new IdentityHashMap<>();
        Map<Object, Object> a2e = new IdentityHashMap<>();
        ArrayDeque<Pair> work = new ArrayDeque<>();
        work.push(new Pair(expected, actual, null));
        while (!work.isEmpty()) {
            Pair p = work.pop();
            Object e = p.expected, a = p.actual;
            if (e == null || a == null) {
                if (e != a) throw fail(p.path, "expected " + describe(e) + " but was " + describe(a));
                continue;
            }
            if (e instanceof Enum<?>) {
                if (e != a) throw fail(p.path, "expected enum " + e + " but was " + a);
                continue;
            }
            if (BOXES.contains(e.getClass())) {
                if (e.getClass() != a.getClass() || !sameValue(e, a)) throw fail(p.path, "expected " + e + " but was " + a);
                // The materializer may return a cached box for two distinct originals: check one direction only.
                Object seen = e2a.putIfAbsent(e, a);
                if (seen != null && seen != a) throw fail(p.path, "one box became two objects");
                continue;
            }
            Object seen = e2a.get(e);
            if (seen != null) {
                if (seen != a) throw fail(p.path, "sharing lost: an object met before maps to another copy (" + describe(e) + ")");
                continue;
            }
            Object back = a2e.get(a);
            if (back != null) throw fail(p.path, "sharing invented: two originals became one object (" + describe(a) + ")");
            e2a.put(e, a);
            a2e.put(a, e);
            if (e instanceof String s) {
                if (!(a instanceof String t) || !s.equals(t)) throw fail(p.path, "expected string " + quote(s) + " but was " + describe(a));
            } else if (isPrimitiveArray(e)) {
                if (!samePrimitiveArray(e, a)) throw fail(p.path, "expected " + describe(e) + " but was " + describe(a));
            } else if (e instanceof Object[] ea) {
                if (a.getClass() != e.getClass()) throw fail(p.path, "expected a " + e.getClass().getSimpleName() + " but was " + describe(a));
                Object[] aa = (Object[]) a;
                if (ea.length != aa.length) throw fail(p.path, "array length " + ea.length + " vs " + aa.length);
                for (int i = ea.length - 1; i >= 0; i--) work.push(new Pair(ea[i], aa[i], new Path(p.path, "[" + i + "]")));
            } else if (e instanceof List<?> el) {
                if (!(a instanceof List<?> al)) throw fail(p.path, "expected a list but was " + describe(a));
                if (el.size() != al.size()) throw fail(p.path, "list size " + el.size() + " vs " + al.size());
                for (int i = el.size() - 1; i >= 0; i--) work.push(new Pair(el.get(i), al.get(i), new Path(p.path, "[" + i + "]")));
            } else {
                if (a.getClass() != e.getClass()) throw fail(p.path, "expected a " + e.getClass().getName() + " but was " + describe(a));
                List<Accessor> acc = accessors(e.getClass());
                for (int i = acc.size() - 1; i >= 0; i--) {
                    Accessor x = acc.get(i);
                    Object ev = x.get(e), av = x.get(a);
                    Path sub = new Path(p.path, "." + x.name);
                    Class<?> t = x.method != null ? x.method.getReturnType() : x.field.getType();
                    if (t.isPrimitive()) {
                        if (!sameValue(ev, av)) throw fail(sub, "expected " + ev + " but was " + av);
                    } else {
                        work.push(new Pair(ev, av, sub));
                    }
                }
            }
        }
    }

    /** The number of distinct objects (everything but enums and null) the writer puts in a message for this graph. */
    static int countObjects(Object root) {
        Map<Object, Boolean> seen = new IdentityHashMap<>();
        ArrayDeque<Object> work = new ArrayDeque<>();
        if (root != null) work.push(root);
        while (!work.isEmpty()) {
            Object o = work.pop();
            if (o instanceof Enum<?> || seen.put(o, Boolean.TRUE) != null) continue;
            if (o instanceof String || BOXES.contains(o.getClass()) || isPrimitiveArray(o)) continue;
            if (o instanceof Object[] arr) {
                for (Object x : arr) if (x != null) work.push(x);
            } else if (o instanceof List<?> l) {
                for (Object x : l) if (x != null) work.push(x);
            } else {
                for (Accessor a : accessors(o.getClass())) {
                    Class<?> t = a.method != null ? a.method.getReturnType() : a.field.getType();
                    if (t.isPrimitive()) continue;
                    Object v = a.get(o);
                    if (v != null) work.push(v);
                }
            }
        }
        return seen.size();
    }

    /** The number of non-null references to objects in a graph, counted per reference (a shared object counts twice). */
    static int countReferences(Object root) {
        Map<Object, Boolean> seen = new IdentityHashMap<>();
        ArrayDeque<Object> work = new ArrayDeque<>();
        int refs = 0;
        if (root != null) {
            work.push(root);
            refs++;
        }
        while (!work.isEmpty()) {
            Object o = work.pop();
            if (o instanceof Enum<?> || seen.put(o, Boolean.TRUE) != null) continue;
            if (o instanceof String || BOXES.contains(o.getClass()) || isPrimitiveArray(o)) continue;
            List<Object> children = new ArrayList<>();
            if (o instanceof Object[] arr) children.addAll(Arrays.asList(arr));
            else if (o instanceof List<?> l) children.addAll(l);
            else {
                for (Accessor a : accessors(o.getClass())) {
                    Class<?> t = a.method != null ? a.method.getReturnType() : a.field.getType();
                    if (!t.isPrimitive()) children.add(a.get(o));
                }
            }
            for (Object x : children) {
                if (x == null || x instanceof Enum<?>) continue;
                refs++;
                work.push(x);
            }
        }
        return refs;
    }

    // ---------------------------------------------------------------------------------------------- views

    private record ViewPair(Object expected, Object view, Path path) {}

    /**
     * Asserts that {@code view} (a view of the message {@code expected} was written to) reads every accessor as
     * {@code expected} holds it, and that one original object is always viewed at one offset (and vice versa).
     */
    static void assertViewAgrees(Object expected, Object view) {
        Map<Object, Long> e2off = new IdentityHashMap<>();
        Map<Long, Object> off2e = new HashMap<>();
        ArrayDeque<ViewPair> work = new ArrayDeque<>();
        work.push(new ViewPair(expected, view, null));
        while (!work.isEmpty()) {
            ViewPair p = work.pop();
            Object e = p.expected, v = p.view;
            if (e == null || v == null) {
                if (e != v) throw fail(p.path, "expected " + describe(e) + " but the view read " + describe(v));
                continue;
            }
            if (!(v instanceof ViewBase vb)) {
                compareLeaf(e, v, p.path, work);
                continue;
            }
            long off = vb.offset();
            Long seenOff = e2off.get(e);
            if (seenOff != null) {
                if (seenOff != off) throw fail(p.path, "one object is viewed at offsets " + seenOff + " and " + off);
                continue;
            }
            Object seenE = off2e.get(off);
            if (seenE != null && seenE != e) throw fail(p.path, "two objects are viewed at one offset " + off);
            e2off.put(e, off);
            off2e.put(off, e);
            Class<?> iface = viewInterface(v);
            for (Method m : viewAccessors(iface)) {
                Object ev = valueByName(e, m.getName());
                Object vv;
                try {
                    vv = m.invoke(v);
                } catch (ReflectiveOperationException ex) {
                    throw new AssertionError("at root" + (p.path == null ? "" : p.path) + "." + m.getName() + ": the view threw", ex);
                }
                Path sub = new Path(p.path, "." + m.getName() + "()");
                if (m.getReturnType().isPrimitive()) {
                    if (!sameValue(ev, vv)) throw fail(sub, "expected " + ev + " but the view read " + vv);
                } else {
                    work.push(new ViewPair(ev, vv, sub));
                }
            }
        }
    }

    /** Values a view returns that are not views themselves: copies, array and string views, lists, enums, records. */
    private static void compareLeaf(Object e, Object v, Path path, ArrayDeque<ViewPair> work) {
        if (e instanceof Enum<?>) {
            if (e != v) throw fail(path, "expected enum " + e + " but the view read " + v);
        } else if (BOXES.contains(e.getClass())) {
            if (e.getClass() != v.getClass() || !sameValue(e, v)) throw fail(path, "expected " + e + " but the view read " + v);
        } else if (e instanceof String s) {
            if (v instanceof String t) {
                if (!s.equals(t)) throw fail(path, "expected " + quote(s) + " but the view read " + quote(t));
            } else if (v instanceof CharSequence cs) {
                if (cs.length() != s.length()) throw fail(path, "expected length " + s.length() + " but the view has " + cs.length());
                for (int i = 0; i < s.length(); i++) {
                    if (cs.charAt(i) != s.charAt(i)) throw fail(path, "char " + i + " differs in " + quote(s));
                }
                if (!s.equals(cs.toString())) throw fail(path, "toString() of the char sequence differs from " + quote(s));
                if (!cs.equals(s) || cs.hashCode() != s.hashCode()) throw fail(path, "the char sequence's equals/hashCode differ from String's");
            } else {
                throw fail(path, "expected a string but the view read " + describe(v));
            }
        } else if (isPrimitiveArray(e)) {
            if (v instanceof ArrayView av) compareArrayView(e, av, path);
            else if (!samePrimitiveArray(e, v)) throw fail(path, "expected " + describe(e) + " but the view read " + describe(v));
        } else if (e instanceof Object[] ea) {
            if (!(v instanceof Object[] va)) throw fail(path, "expected an array but the view read " + describe(v));
            if (ea.length != va.length) throw fail(path, "array length " + ea.length + " vs " + va.length);
            for (int i = ea.length - 1; i >= 0; i--) work.push(new ViewPair(ea[i], va[i], new Path(path, "[" + i + "]")));
        } else if (e instanceof List<?> el) {
            if (!(v instanceof List<?> vl)) throw fail(path, "expected a list but the view read " + describe(v));
            if (el.size() != vl.size()) throw fail(path, "list size " + el.size() + " vs " + vl.size());
            for (int i = el.size() - 1; i >= 0; i--) work.push(new ViewPair(el.get(i), vl.get(i), new Path(path, "[" + i + "]")));
        } else {
            // A record (or class) the view materialized, e.g. a sealed case read as its record: a copy of its own.
            try {
                assertIsomorphic(e, v);
            } catch (AssertionError err) {
                throw new AssertionError("at root" + (path == null ? "" : path) + " (materialized by a view): " + err.getMessage(), err);
            }
        }
    }

    private static void compareArrayView(Object e, ArrayView av, Path path) {
        int n = Array.getLength(e);
        if (av.length() != n) throw fail(path, "expected " + n + " elements but the array view has " + av.length());
        Object copy = switch (av) {
            case ArrayView.OfBoolean x -> { boolean[] a = new boolean[n]; for (int i = 0; i < n; i++) a[i] = x.get(i); yield a; }
            case ArrayView.OfByte x -> { byte[] a = new byte[n]; for (int i = 0; i < n; i++) a[i] = x.get(i); yield a; }
            case ArrayView.OfChar x -> { char[] a = new char[n]; for (int i = 0; i < n; i++) a[i] = x.get(i); yield a; }
            case ArrayView.OfShort x -> { short[] a = new short[n]; for (int i = 0; i < n; i++) a[i] = x.get(i); yield a; }
            case ArrayView.OfInt x -> { int[] a = new int[n]; for (int i = 0; i < n; i++) a[i] = x.get(i); yield a; }
            case ArrayView.OfLong x -> { long[] a = new long[n]; for (int i = 0; i < n; i++) a[i] = x.get(i); yield a; }
            case ArrayView.OfFloat x -> { float[] a = new float[n]; for (int i = 0; i < n; i++) a[i] = x.get(i); yield a; }
            case ArrayView.OfDouble x -> { double[] a = new double[n]; for (int i = 0; i < n; i++) a[i] = x.get(i); yield a; }
            default -> throw fail(path, "unknown array view " + av.getClass());
        };
        if (!samePrimitiveArray(e, copy)) throw fail(path, "the array view's elements differ from " + describe(e));
        Object bulk = switch (av) {
            case ArrayView.OfBoolean x -> x.toArray();
            case ArrayView.OfByte x -> x.toArray();
            case ArrayView.OfChar x -> x.toArray();
            case ArrayView.OfShort x -> x.toArray();
            case ArrayView.OfInt x -> x.toArray();
            case ArrayView.OfLong x -> x.toArray();
            case ArrayView.OfFloat x -> x.toArray();
            case ArrayView.OfDouble x -> x.toArray();
            default -> throw fail(path, "unknown array view " + av.getClass());
        };
        if (!samePrimitiveArray(e, bulk)) throw fail(path, "the array view's toArray() differs from " + describe(e));
        long elem = switch (av) {
            case ArrayView.OfBoolean x -> 1;
            case ArrayView.OfByte x -> 1;
            case ArrayView.OfChar x -> 2;
            case ArrayView.OfShort x -> 2;
            case ArrayView.OfInt x -> 4;
            case ArrayView.OfLong x -> 8;
            case ArrayView.OfFloat x -> 4;
            default -> 8;
        };
        if (av.segment().byteSize() != n * elem) throw fail(path, "the array view's segment has " + av.segment().byteSize() + " bytes");
        if (!av.segment().isReadOnly()) throw fail(path, "the array view's segment is writable");
    }

    /** The accessor interface a generated view class implements. */
    static Class<?> viewInterface(Object view) {
        Class<?>[] is = view.getClass().getInterfaces();
        if (is.length != 1) throw new AssertionError("a view class implements " + Arrays.toString(is));
        return is[0];
    }

    private static final Map<Class<?>, List<Method>> VIEW_ACCESSORS = new java.util.concurrent.ConcurrentHashMap<>();

    static List<Method> viewAccessors(Class<?> iface) {
        return VIEW_ACCESSORS.computeIfAbsent(iface, k -> {
            List<Method> out = new ArrayList<>();
            for (Method m : k.getMethods()) {
                if (Modifier.isStatic(m.getModifiers()) || !Modifier.isAbstract(m.getModifiers()) || m.getParameterCount() != 0) continue;
                if (m.getName().equals("hashCode") || m.getName().equals("toString")) continue;
                out.add(m);
            }
            out.sort(Comparator.comparing(Method::getName));
            return List.copyOf(out);
        });
    }

    static String describe(Object o) {
        if (o == null) return "null";
        if (o instanceof String s) return quote(s);
        if (o.getClass().isArray()) {
            int n = Array.getLength(o);
            return o.getClass().getComponentType().getSimpleName() + "[" + n + "]";
        }
        if (o instanceof List<?> l) return "List(" + l.size() + ")";
        return o.getClass().getSimpleName() + (BOXES.contains(o.getClass()) ? "(" + o + ")" : "");
    }

    static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < Math.min(s.length(), 40); i++) {
            char c = s.charAt(i);
            if (c >= 0x20 && c < 0x7F) b.append(c);
            else b.append(String.format("\\u%04x", (int) c));
        }
        return b.append(s.length() > 40 ? "...\"" : "\"").toString();
    }
}
