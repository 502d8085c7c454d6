package dev.verbatim.bench.wire;

import dev.verbatim.wire.ArrayView;

import java.util.Arrays;

/**
 * Builds the suite's object graphs, reads every field of them ({@code touch}: what "unmarshal"
 * means after the bytes became objects or views), and compares them for the start-up check.
 * The {@code touch} methods return a sum of every field read, so nothing read can be dropped; the
 * same arithmetic is used for heap objects and for views.
 */
public final class Graphs {
    private Graphs() {}

    /** A byte array of length {@code n} with a non-trivial pattern. */
    public static byte[] bytes(int n) {
        byte[] a = new byte[n];
        for (int i = 0; i < n; i++) {
            a[i] = (byte) (i * 31 + 7);
        }
        return a;
    }

    /** A linked list of {@code n} nodes with distinct values. */
    public static Node list(int n) {
        Node head = null;
        for (int i = n - 1; i >= 0; i--) {
            head = new Node(i * 7 + 1, head);
        }
        return head;
    }

    /** A linked list of {@code n} PSO elements, every field distinct. */
    public static Pso psoList(int n) {
        Pso head = null;
        for (int i = n - 1; i >= 0; i--) {
            Pso p = new Pso();
            p.b0 = (byte) i;
            p.b1 = (byte) (i + 1);
            p.b2 = (byte) -i;
            p.b3 = (byte) (i ^ 0x55);
            p.i0 = i;
            p.i1 = i * 1_000_003;
            p.i2 = -i - 1;
            p.i3 = Integer.MAX_VALUE - i;
            p.next = head;
            head = p;
        }
        return head;
    }

    /** A ring of three nodes and a pair whose two fields share its first node. */
    public static Pair sharedRing() {
        Node a = new Node(1, null);
        Node b = new Node(2, null);
        Node c = new Node(3, a);
        a.next = b;
        b.next = c;
        return new Pair(a, a);
    }

    /** Whether {@code p} has the structure of {@link #sharedRing()}: shared and cyclic. */
    public static boolean isSharedRing(Pair p) {
        return p != null && p.left != null && p.left == p.right
                && p.left.value == 1 && p.left.next.value == 2 && p.left.next.next.value == 3
                && p.left.next.next.next == p.left;
    }

    // ---- reading every field ------------------------------------------------------------

    /** Reads a byte array as the suite does: its length, its first and its last byte (no copy). */
    public static long touch(byte[] a) {
        return a.length == 0 ? 0 : a.length + a[0] + a[a.length - 1];
    }

    public static long touch(Node head) {
        long sum = 0;
        for (Node n = head; n != null; n = n.next) {
            sum += n.value;
        }
        return sum;
    }

    public static long touch(Pso head) {
        long sum = 0;
        for (Pso p = head; p != null; p = p.next) {
            sum += p.b0 + p.b1 + p.b2 + p.b3 + (long) p.i0 + p.i1 + p.i2 + p.i3;
        }
        return sum;
    }

    /** Reads every field of a heap graph of any of the suite's kinds. */
    public static long touch(Object root) {
        return switch (root) {
            case byte[] a -> touch(a);
            case Node n -> touch(n);
            case Pso p -> touch(p);
            default -> throw new IllegalArgumentException("not a suite graph: " + root.getClass());
        };
    }

    public static long touchView(ArrayView.OfByte a) {
        int len = a.length();
        return len == 0 ? 0 : len + a.get(0) + a.get(len - 1);
    }

    public static long touchView(NodeView head) {
        long sum = 0;
        for (NodeView n = head; n != null; n = n.next()) {
            sum += n.value();
        }
        return sum;
    }

    public static long touchView(PsoView head) {
        long sum = 0;
        for (PsoView p = head; p != null; p = p.next()) {
            sum += p.b0() + p.b1() + p.b2() + p.b3() + (long) p.i0() + p.i1() + p.i2() + p.i3();
        }
        return sum;
    }

    // ---- comparing ----------------------------------------------------------------------

    /** The first difference between two heap graphs, or {@code null} if they are equal. */
    public static String diff(Object expected, Object actual) {
        if (actual == null) {
            return "got null";
        }
        return switch (expected) {
            case byte[] e -> actual instanceof byte[] a
                    ? (Arrays.equals(e, a) ? null : "byte arrays differ (length " + e.length + " vs " + a.length
                            + ", first mismatch at " + Arrays.mismatch(e, a) + ")")
                    : "expected byte[], got " + actual.getClass().getName();
            case Node e -> actual instanceof Node a ? diffList(e, a) : "expected Node, got " + actual.getClass().getName();
            case Pso e -> actual instanceof Pso a ? diffPso(e, a) : "expected Pso, got " + actual.getClass().getName();
            default -> throw new IllegalArgumentException("not a suite graph: " + expected.getClass());
        };
    }

    private static String diffList(Node e, Node a) {
        for (int i = 0; e != null || a != null; i++, e = e.next, a = a.next) {
            if (e == null || a == null) {
                return "list length differs at element " + i;
            }
            if (e.value != a.value) {
                return "element " + i + ": value " + a.value + ", expected " + e.value;
            }
        }
        return null;
    }

    private static String diffPso(Pso e, Pso a) {
        for (int i = 0; e != null || a != null; i++, e = e.next, a = a.next) {
            if (e == null || a == null) {
                return "list length differs at element " + i;
            }
            if (e.b0 != a.b0 || e.b1 != a.b1 || e.b2 != a.b2 || e.b3 != a.b3
                    || e.i0 != a.i0 || e.i1 != a.i1 || e.i2 != a.i2 || e.i3 != a.i3) {
                return "element " + i + " differs";
            }
        }
        return null;
    }

    /** The first difference between a heap graph and a Verbatim view of it, or {@code null}. */
    public static String diffView(Object expected, Object view) {
        if (view == null) {
            return "got a null view";
        }
        switch (expected) {
            case byte[] e -> {
                ArrayView.OfByte v = (ArrayView.OfByte) view;
                if (v.length() != e.length) {
                    return "view length " + v.length() + ", expected " + e.length;
                }
                for (int i = 0; i < e.length; i++) {
                    if (v.get(i) != e[i]) {
                        return "view byte " + i + " differs";
                    }
                }
                return Arrays.equals(v.toArray(), e) ? null : "view toArray() differs";
            }
            case Node e -> {
                NodeView v = (NodeView) view;
                for (int i = 0; e != null || v != null; i++, e = e.next, v = v.next()) {
                    if (e == null || v == null) {
                        return "view list length differs at element " + i;
                    }
                    if (e.value != v.value()) {
                        return "view element " + i + ": value " + v.value() + ", expected " + e.value;
                    }
                }
                return null;
            }
            case Pso e -> {
                PsoView v = (PsoView) view;
                for (int i = 0; e != null || v != null; i++, e = e.next, v = v.next()) {
                    if (e == null || v == null) {
                        return "view list length differs at element " + i;
                    }
                    if (e.b0 != v.b0() || e.b1 != v.b1() || e.b2 != v.b2() || e.b3 != v.b3()
                            || e.i0 != v.i0() || e.i1 != v.i1() || e.i2 != v.i2() || e.i3 != v.i3()) {
                        return "view element " + i + " differs";
                    }
                }
                return null;
            }
            default -> throw new IllegalArgumentException("not a suite graph: " + expected.getClass());
        }
    }
}
