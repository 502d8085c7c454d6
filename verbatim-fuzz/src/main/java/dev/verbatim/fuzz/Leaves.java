package dev.verbatim.fuzz;

import dev.verbatim.wire.ArrayView;

import java.lang.reflect.Array;
import java.util.List;

/**
 * The values at the leaves of a graph, read and checked for the graph oracle: a string or a {@link CharSequence}
 * view becomes its text, a primitive array or an {@link ArrayView} its elements. Reading a leaf checks what it
 * must agree with by itself, whatever it is compared with:
 *
 * <ul>
 *   <li>a {@code CharSequence} view: {@code toString()} has its {@code length()} and its {@code charAt(i)}, and
 *       it {@code equals} that string with the same {@code hashCode};</li>
 *   <li>an {@code ArrayView}: {@code get(i)} and {@code toArray()} read the same elements, and {@code segment()}
 *       is exactly its elements, read-only;</li>
 *   <li>a {@code boolean[]} holds no byte other than 0 and 1 (a raw copy from memory could put one there).</li>
 * </ul>
 *
 * <p>Values compare by their bits: floating point by raw bits (NaN payloads count, 0.0 differs from -0.0).
 * Stateless.
 */
final class Leaves {
    private Leaves() {}

    /** Equality of boxed values; floating point by raw bits. */
    static boolean sameValue(Object a, Object b) {
        if (a instanceof Float x && b instanceof Float y) return Float.floatToRawIntBits(x) == Float.floatToRawIntBits(y);
        if (a instanceof Double x && b instanceof Double y) return Double.doubleToRawLongBits(x) == Double.doubleToRawLongBits(y);
        return a.equals(b);
    }

    /** The text of a string or of a char sequence view, checked against itself. */
    static String text(CharSequence cs, GraphOracle.Path path) {
        if (cs instanceof String s) return s;
        int n = cs.length();
        String s = cs.toString();
        if (s.length() != n) throw GraphOracle.mismatch(path, "a char sequence of length " + n + " has a toString() of " + s.length());
        for (int i = 0; i < n; i++) {
            if (s.charAt(i) != cs.charAt(i)) {
                throw GraphOracle.mismatch(path, "char " + i + " of a char sequence differs from its toString(): "
                        + Integer.toHexString(cs.charAt(i)) + " vs " + Integer.toHexString(s.charAt(i)));
            }
        }
        if (!cs.equals(s) || cs.hashCode() != s.hashCode()) {
            throw GraphOracle.mismatch(path, "the char sequence's equals/hashCode differ from String's for " + quote(s));
        }
        return s;
    }

    /** The elements of a primitive array or an array view, checked against themselves. */
    static Object elements(Object array, GraphOracle.Path path) {
        if (array instanceof ArrayView av) return arrayView(av, path);
        if (array instanceof boolean[] x) {
            boolean[] normal = new boolean[x.length];
            for (int i = 0; i < x.length; i++) normal[i] = x[i];
            if (!java.util.Arrays.equals(x, normal)) throw GraphOracle.mismatch(path, "a boolean[] holds a value other than false and true");
        }
        return array;
    }

    private static Object arrayView(ArrayView av, GraphOracle.Path path) {
        int n = av.length();
        Object one = switch (av) {
            case ArrayView.OfBoolean x -> { boolean[] a = new boolean[n]; for (int i = 0; i < n; i++) a[i] = x.get(i); yield a; }
            case ArrayView.OfByte x -> { byte[] a = new byte[n]; for (int i = 0; i < n; i++) a[i] = x.get(i); yield a; }
            case ArrayView.OfChar x -> { char[] a = new char[n]; for (int i = 0; i < n; i++) a[i] = x.get(i); yield a; }
            case ArrayView.OfShort x -> { short[] a = new short[n]; for (int i = 0; i < n; i++) a[i] = x.get(i); yield a; }
            case ArrayView.OfInt x -> { int[] a = new int[n]; for (int i = 0; i < n; i++) a[i] = x.get(i); yield a; }
            case ArrayView.OfLong x -> { long[] a = new long[n]; for (int i = 0; i < n; i++) a[i] = x.get(i); yield a; }
            case ArrayView.OfFloat x -> { float[] a = new float[n]; for (int i = 0; i < n; i++) a[i] = x.get(i); yield a; }
            case ArrayView.OfDouble x -> { double[] a = new double[n]; for (int i = 0; i < n; i++) a[i] = x.get(i); yield a; }
            default -> throw GraphOracle.mismatch(path, "an unknown array view " + av.getClass());
        };
        Object bulk = switch (av) {
            case ArrayView.OfBoolean x -> x.toArray();
            case ArrayView.OfByte x -> x.toArray();
            case ArrayView.OfChar x -> x.toArray();
            case ArrayView.OfShort x -> x.toArray();
            case ArrayView.OfInt x -> x.toArray();
            case ArrayView.OfLong x -> x.toArray();
            case ArrayView.OfFloat x -> x.toArray();
            case ArrayView.OfDouble x -> x.toArray();
            default -> throw GraphOracle.mismatch(path, "an unknown array view " + av.getClass());
        };
        elements(bulk, path);
        if (!sameElements(one, bulk)) throw GraphOracle.mismatch(path, "an array view's toArray() differs from its get(i)");
        long size = (long) n * switch (av) {
            case ArrayView.OfBoolean x -> 1;
            case ArrayView.OfByte x -> 1;
            case ArrayView.OfChar x -> 2;
            case ArrayView.OfShort x -> 2;
            case ArrayView.OfInt x -> 4;
            case ArrayView.OfFloat x -> 4;
            default -> 8;
        };
        if (av.segment().byteSize() != size || !av.segment().isReadOnly()) {
            throw GraphOracle.mismatch(path, "an array view's segment is not its " + n + " elements, read-only: " + av.segment());
        }
        return bulk;
    }

    /** Two primitive arrays of the same kind with the same elements (floating point by raw bits). */
    static boolean sameElements(Object a, Object b) {
        return switch (a) {
            case boolean[] x when b instanceof boolean[] y -> java.util.Arrays.equals(x, y);
            case byte[] x when b instanceof byte[] y -> java.util.Arrays.equals(x, y);
            case char[] x when b instanceof char[] y -> java.util.Arrays.equals(x, y);
            case short[] x when b instanceof short[] y -> java.util.Arrays.equals(x, y);
            case int[] x when b instanceof int[] y -> java.util.Arrays.equals(x, y);
            case long[] x when b instanceof long[] y -> java.util.Arrays.equals(x, y);
            case float[] x when b instanceof float[] y -> {
                if (x.length != y.length) yield false;
                for (int i = 0; i < x.length; i++) if (Float.floatToRawIntBits(x[i]) != Float.floatToRawIntBits(y[i])) yield false;
                yield true;
            }
            case double[] x when b instanceof double[] y -> {
                if (x.length != y.length) yield false;
                for (int i = 0; i < x.length; i++) if (Double.doubleToRawLongBits(x[i]) != Double.doubleToRawLongBits(y[i])) yield false;
                yield true;
            }
            default -> false;
        };
    }

    /** A short description of a value for a failure message. */
    static String describe(Object o) {
        if (o == null) return "null";
        if (o instanceof String s) return quote(s);
        if (o.getClass().isArray()) return o.getClass().getComponentType().getSimpleName() + "[" + Array.getLength(o) + "]";
        if (o instanceof List<?> l) return "List(" + l.size() + ")";
        if (Structs.isView(o)) return Structs.typeName(o) + " view at offset " + Structs.viewOffset(o);
        return o.getClass().getSimpleName() + (Structs.isBox(o) || o instanceof Enum<?> ? "(" + o + ")" : "");
    }

    /** A string as a Java literal of at most 40 chars, every char outside printable ASCII as {@code \\uXXXX}. */
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
