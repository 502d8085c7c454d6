package dev.verbatim.fuzz;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one graph oracle of the project: says whether two object graphs are the same graph, whichever way each is
 * held (heap objects: records, classes, arrays, lists, strings, boxes, enums; or views of a message: the
 * wire module's generated accessor views, char sequence and array views). The fuzz campaign compares views with
 * the materialized copy and that copy with itself written and read again; the wire properties compare graphs with
 * their materialized copies and with their views. All go through here.
 *
 * <p>Two graphs are the same when a walk from the two roots in step meets, at every path:
 * <ul>
 *   <li>the same values: primitives and boxes of the same class and bits (floating point by raw bits), the same
 *       enum constant, strings with the same chars, primitive arrays with the same elements, arrays and lists of
 *       the same length, structs of the same wire type (same fingerprint: a record and its view twin are one
 *       type), compared component by component by name;</li>
 *   <li>the same sharing: a <em>bijection</em> between the identities of the two sides is built as the walk goes,
 *       so an object met again on one side must be met again, as the same object, on the other (sharing kept),
 *       and two objects on one side may not be one on the other (no sharing invented). A heap object's identity
 *       is its reference; a view's is the offset of its object in the message.</li>
 * </ul>
 *
 * <p>What has an identity depends on how the two sides hold the graph:
 * <ul>
 *   <li>{@link #assertSameGraph} (heap and heap): every object but boxes and enums, strings, arrays and lists
 *       included. A box met twice on the expected side must be one object on the other (the materializer may
 *       return one cached box for two equal originals, so the check runs one way only).</li>
 *   <li>{@link #assertViewsRead} and {@link #assertSameViews} (views on one side or both): structs only, as a
 *       view returns a new string, array or list object on every call. A struct a view materializes (a record
 *       returned by an accessor) is compared with the other side as a heap graph of its own.</li>
 * </ul>
 * Every value reached is read, so every accessor of every view runs once per side, and each leaf is checked
 * against itself as {@link Leaves} says. The walk keeps its own stack: graphs of any depth, cycles included.
 *
 * <p>{@link #read} walks one graph the same way, with no other side: every accessor runs, cycles terminate,
 * leaves are checked; a caller can watch the direct references between views.
 *
 * <p>A difference throws {@link GraphMismatch} naming the path from the root and what differs. Stateless;
 * thread-safe.
 */
public final class GraphOracle {
    private GraphOracle() {}

    /** Two graphs differ, or a graph's leaf disagrees with itself: the message names the path and the difference. */
    public static final class GraphMismatch extends AssertionError {
        private static final long serialVersionUID = 1L;

        GraphMismatch(String message) { super(message); }
    }

    /** Told about each direct reference from one view struct to another that a walk meets (a component's value). */
    @FunctionalInterface
    public interface ViewEdges {
        void edge(Object from, Object to);
    }

    /**
     * The path from the root to a value: a component ({@code .name} of a field, {@code .name()} of an accessor) or,
     * when {@code component} is null, an element {@code [index]}. Built as the walk goes, spelled out only for a
     * failure.
     */
    record Path(Path parent, Structs.Component component, int index) {
        @Override
        public String toString() {
            List<String> steps = new ArrayList<>();
            for (Path p = this; p != null; p = p.parent) {
                steps.add(p.component == null ? "[" + p.index + "]" : "." + p.component.name() + (p.component.method() != null ? "()" : ""));
            }
            Collections.reverse(steps);
            return String.join("", steps);
        }
    }

    static GraphMismatch mismatch(Path p, String what) {
        return new GraphMismatch("at root" + (p == null ? "" : p) + ": " + what);
    }

    /** {@code actual} is a copy of the heap graph {@code expected}: the same values, the same sharing and cycles. */
    public static void assertSameGraph(Object expected, Object actual) {
        new Walk(null).run(expected, actual, false);
    }

    /** The views rooted at {@code views} read the heap graph {@code expected}: its values, its sharing and cycles. */
    public static void assertViewsRead(Object expected, Object views) {
        assertViewsRead(expected, views, null);
    }

    /** As {@link #assertViewsRead(Object, Object)}, telling {@code edges} about each direct reference between views. */
    public static void assertViewsRead(Object expected, Object views, ViewEdges edges) {
        new Walk(edges).run(expected, views, true);
    }

    /** Two views of a message read the same graph: the same values, and one object at one offset. */
    public static void assertSameViews(Object views, Object otherViews) {
        new Walk(null).run(views, otherViews, true);
    }

    /** Reads every value of a graph (heap or views) once, checking each leaf against itself. */
    public static void read(Object root) {
        read(root, null);
    }

    /** As {@link #read(Object)}, telling {@code edges} about each direct reference between two view structs. */
    public static void read(Object root, ViewEdges edges) {
        new Walk(edges).run(root, ABSENT, true);
    }

    /** The offset of the object a view reads in its message. */
    public static long viewOffset(Object view) { return Structs.viewOffset(view); }

    /** The accessor interface a view implements. */
    public static Class<?> viewInterface(Object view) { return Structs.viewInterface(view); }

    /** The other side of a {@link #read}: there is none. */
    private static final Object ABSENT = new Object();

    /** How identities are kept for a pair: all heap objects but boxes, or structs only (views involved). */
    private enum Scope { HEAP, VIEWS }

    private record Pair(Object left, Object right, Path path, Scope scope, Map<Object, Object> l2r, Map<Object, Object> r2l) {}

    /** An identity: a heap object's reference, or a view's offset. */
    private record Id(Object heap, long offset) {
        static Id of(Object o) { return Structs.isView(o) ? new Id(null, Structs.viewOffset(o)) : new Id(o, -1); }

        @Override
        public boolean equals(Object x) { return x instanceof Id i && heap == i.heap && offset == i.offset; }

        @Override
        public int hashCode() { return heap == null ? Long.hashCode(offset) : System.identityHashCode(heap); }
    }

    /** One walk over one pair of graphs (or one graph, when the right side is {@link #ABSENT}). Not thread-safe. */
    private static final class Walk {
        private final ViewEdges edges;
        private final ArrayDeque<Pair> work = new ArrayDeque<>();
        /** The struct bijection for pairs with a view, by {@link Id}; for a {@link #read}, the structs seen. */
        private final Map<Object, Object> viewL2R = new HashMap<>();
        private final Map<Object, Object> viewR2L = new HashMap<>();
        private boolean single;

        Walk(ViewEdges edges) { this.edges = edges; }

        void run(Object left, Object right, boolean views) {
            single = right == ABSENT;
            if (views) push(left, right, null, Scope.VIEWS, viewL2R, viewR2L);
            else push(left, right, null, Scope.HEAP, new IdentityHashMap<>(), new IdentityHashMap<>());
            while (!work.isEmpty()) step(work.pop());
        }

        private void push(Object l, Object r, Path path, Scope scope, Map<Object, Object> l2r, Map<Object, Object> r2l) {
            work.push(new Pair(l, r, path, scope, l2r, r2l));
        }

        private void step(Pair p) {
            Object l = p.left(), r = p.right();
            if (l == null || r == null) {
                if (l != r && !single) throw mismatch(p.path(), "expected " + Leaves.describe(l) + " but was " + Leaves.describe(r));
                return;
            }
            if (Structs.isView(l) || (!single && Structs.isView(r))) {
                viewStruct(p);
                return;
            }
            if (l instanceof Enum<?>) {
                if (!single && l != r) throw mismatch(p.path(), "expected enum " + l + " but was " + Leaves.describe(r));
                return;
            }
            if (Structs.isJdkValue(l)) { // a value: equal, of the same class (BigDecimal's equals counts the scale)
                if (!single && (l.getClass() != r.getClass() || !l.equals(r))) {
                    throw mismatch(p.path(), "expected " + Leaves.describe(l) + " " + l + " but was " + Leaves.describe(r) + " " + r);
                }
                return;
            }
            if (l instanceof java.util.Optional<?> lo) { // not an object on the wire: its value is
                if (single) {
                    push(lo.orElse(null), ABSENT, p.path(), p.scope(), p.l2r(), p.r2l());
                    return;
                }
                if (!(r instanceof java.util.Optional<?> ro)) throw mismatch(p.path(), "expected an Optional but was " + Leaves.describe(r));
                push(lo.orElse(null), ro.orElse(null), p.path(), p.scope(), p.l2r(), p.r2l());
                return;
            }
            if (Structs.isBox(l)) {
                if (single) return;
                if (l.getClass() != r.getClass() || !Leaves.sameValue(l, r)) {
                    throw mismatch(p.path(), "expected " + Leaves.describe(l) + " but was " + Leaves.describe(r));
                }
                if (p.scope() == Scope.HEAP) { // one way: a cached box may stand for two equal originals
                    Object seen = p.l2r().putIfAbsent(l, r);
                    if (seen != null && seen != r) throw mismatch(p.path(), "one box became two objects");
                }
                return;
            }
            if (p.scope() == Scope.VIEWS && Structs.isHeapStruct(l)) { // materialized by a view: a heap graph of its own
                if (single) push(l, r, p.path(), Scope.HEAP, new IdentityHashMap<>(), null);
                else push(l, r, p.path(), Scope.HEAP, new IdentityHashMap<>(), new IdentityHashMap<>());
                return;
            }
            if (p.scope() == Scope.HEAP && !sameIdentity(p, l, r)) return; // met before, consistently
            if (l instanceof CharSequence cs) text(p, cs, r);
            else if (Structs.isPrimitiveArray(l) || l instanceof dev.verbatim.wire.ArrayView) array(p, l, r);
            else if (l instanceof Object[] la) objectArray(p, la, r);
            else if (l instanceof List<?> ll) list(p, ll, r);
            else if (l instanceof java.util.Set<?> ls) set(p, ls, r);
            else if (l instanceof Map<?, ?> lm) map(p, lm, r);
            else if (Structs.isHeapStruct(l)) heapStruct(p, l, r);
            else throw mismatch(p.path(), "an unexpected value in the graph: " + l.getClass().getName());
        }

        /**
         * Heap scope: true if this pair is met for the first time (and now recorded), false if it was met before
         * as the same pair; throws if one side was met before with another partner.
         */
        private boolean sameIdentity(Pair p, Object l, Object r) {
            Object seen = p.l2r().get(l);
            if (single) {
                if (seen != null) return false;
                p.l2r().put(l, l);
                return true;
            }
            if (seen != null) {
                if (seen != r) throw mismatch(p.path(), "sharing lost: an object met before maps to another copy (" + Leaves.describe(l) + ")");
                return false;
            }
            if (p.r2l().get(r) != null) throw mismatch(p.path(), "sharing invented: two originals became one object (" + Leaves.describe(r) + ")");
            p.l2r().put(l, r);
            p.r2l().put(r, l);
            return true;
        }

        private void text(Pair p, CharSequence l, Object r) {
            String a = Leaves.text(l, p.path());
            if (single) return;
            if (!(r instanceof CharSequence rcs)) throw mismatch(p.path(), "expected string " + Leaves.quote(a) + " but was " + Leaves.describe(r));
            String b = Leaves.text(rcs, p.path());
            if (!a.equals(b)) throw mismatch(p.path(), "expected string " + Leaves.quote(a) + " but was " + Leaves.quote(b));
        }

        private void array(Pair p, Object l, Object r) {
            Object a = Leaves.elements(l, p.path());
            if (single) return;
            if (!Structs.isPrimitiveArray(r) && !(r instanceof dev.verbatim.wire.ArrayView)) {
                throw mismatch(p.path(), "expected " + Leaves.describe(a) + " but was " + Leaves.describe(r));
            }
            Object b = Leaves.elements(r, p.path());
            if (!Leaves.sameElements(a, b)) throw mismatch(p.path(), "expected " + Leaves.describe(a) + " but was " + Leaves.describe(b) + " with other elements");
        }

        private void objectArray(Pair p, Object[] l, Object r) {
            if (!single) {
                if (!(r instanceof Object[] ra)) throw mismatch(p.path(), "expected an array but was " + Leaves.describe(r));
                if (p.scope() == Scope.HEAP && r.getClass() != l.getClass()) {
                    throw mismatch(p.path(), "expected a " + l.getClass().getSimpleName() + " but was " + Leaves.describe(r));
                }
                if (l.length != ra.length) throw mismatch(p.path(), "array length " + l.length + " vs " + ra.length);
            }
            for (int i = l.length - 1; i >= 0; i--) {
                push(l[i], single ? ABSENT : ((Object[]) r)[i], new Path(p.path(), null, i), p.scope(), p.l2r(), p.r2l());
            }
        }

        private void list(Pair p, List<?> l, Object r) {
            int n = l.size();
            List<?> rl = null;
            if (!single) {
                if (!(r instanceof List<?> other)) throw mismatch(p.path(), "expected a list but was " + Leaves.describe(r));
                rl = other;
                if (rl.size() != n) throw mismatch(p.path(), "list size " + n + " vs " + rl.size());
            }
            Object[] items = new Object[n], others = single ? null : new Object[n];
            for (int i = 0; i < n; i++) {
                items[i] = l.get(i);
                if (!single) others[i] = rl.get(i);
            }
            for (int i = n - 1; i >= 0; i--) {
                push(items[i], single ? ABSENT : others[i], new Path(p.path(), null, i), p.scope(), p.l2r(), p.r2l());
            }
        }

        /** Two sets: the same size, the same elements in the same iteration order (the sender's, kept). */
        private void set(Pair p, java.util.Set<?> l, Object r) {
            if (!single && !(r instanceof java.util.Set<?>)) throw mismatch(p.path(), "expected a set but was " + Leaves.describe(r));
            list(p, new ArrayList<>(l), single ? ABSENT : new ArrayList<>((java.util.Set<?>) r));
        }

        /** Two maps: the same size, the same keys and values in the same iteration order (the sender's, kept). */
        private void map(Pair p, Map<?, ?> l, Object r) {
            if (!single && !(r instanceof Map<?, ?>)) throw mismatch(p.path(), "expected a map but was " + Leaves.describe(r));
            List<Object> le = new ArrayList<>(), re = single ? null : new ArrayList<>();
            for (Map.Entry<?, ?> e : l.entrySet()) {
                le.add(e.getKey());
                le.add(e.getValue());
            }
            if (!single) {
                for (Map.Entry<?, ?> e : ((Map<?, ?>) r).entrySet()) {
                    re.add(e.getKey());
                    re.add(e.getValue());
                }
            }
            list(p, le, single ? ABSENT : re); // keys at even, values at odd indices
        }

        /** Two heap structs (records or classes) in a heap scope: the same class, component by component. */
        private void heapStruct(Pair p, Object l, Object r) {
            if (!single && r.getClass() != l.getClass()) {
                throw mismatch(p.path(), "expected a " + l.getClass().getName() + " but was " + Leaves.describe(r));
            }
            components(p, l, r, false);
        }

        /** A pair with a view on one side at least: the same wire type, one offset for one object, component by component. */
        private void viewStruct(Pair p) {
            Object l = p.left(), r = p.right();
            Id li = Id.of(l);
            if (single) {
                if (viewL2R.putIfAbsent(li, li) != null) return;
                components(p, l, r, true);
                return;
            }
            if (!Structs.isView(r) && !Structs.isHeapStruct(r) || !Structs.isView(l) && !Structs.isHeapStruct(l)) {
                throw mismatch(p.path(), "expected " + Leaves.describe(l) + " but was " + Leaves.describe(r));
            }
            long lf = Structs.fingerprint(l), rf = Structs.fingerprint(r);
            if (lf == 0 || lf != rf) {
                throw mismatch(p.path(), "expected a " + Structs.typeName(l) + " but was a " + Structs.typeName(r) + " (another wire type)");
            }
            Id ri = Id.of(r);
            Object seen = viewL2R.get(li);
            if (seen != null) {
                if (!seen.equals(ri)) throw mismatch(p.path(), "sharing lost: " + Leaves.describe(l) + " met before maps to another object");
                return;
            }
            if (viewR2L.get(ri) != null) throw mismatch(p.path(), "sharing invented: two objects became " + Leaves.describe(r));
            viewL2R.put(li, ri);
            viewR2L.put(ri, li);
            components(p, l, r, true);
        }

        /** Pushes the components of two structs (named by the left side's type) as pairs; compares primitives here. */
        private void components(Pair p, Object l, Object r, boolean views) {
            List<Structs.Component> cs = Structs.components(Structs.isView(l) || single || !Structs.isView(r) ? l : r);
            List<Structs.Component> ls = Structs.components(l), rs = single ? null : Structs.components(r);
            int n = cs.size();
            Object[] lv = new Object[n], rv = new Object[n];
            for (int i = 0; i < n; i++) {
                Structs.Component c = cs.get(i);
                lv[i] = valueOf(l, ls, i, c, p.path());
                if (!single) rv[i] = valueOf(r, rs, i, c, p.path());
                if (views && edges != null) {
                    if (Structs.isView(l)) {
                        if (Structs.isView(lv[i])) edges.edge(l, lv[i]);
                    } else if (Structs.isView(r) && Structs.isView(rv[i])) {
                        edges.edge(r, rv[i]);
                    }
                }
            }
            for (int i = n - 1; i >= 0; i--) {
                Structs.Component c = cs.get(i);
                Path sub = new Path(p.path(), c, 0);
                if (c.type().isPrimitive()) {
                    if (!single && !Leaves.sameValue(lv[i], rv[i])) throw mismatch(sub, "expected " + lv[i] + " but was " + rv[i]);
                } else if (views) {
                    push(lv[i], single ? ABSENT : rv[i], sub, Scope.VIEWS, viewL2R, viewR2L);
                } else {
                    push(lv[i], single ? ABSENT : rv[i], sub, p.scope(), p.l2r(), p.r2l());
                }
            }
        }

        /** The value of component {@code c} (the {@code i}th by name) in {@code struct}, whose own list is {@code own}. */
        private static Object valueOf(Object struct, List<Structs.Component> own, int i, Structs.Component c, Path path) {
            if (i < own.size() && own.get(i).name().equals(c.name())) return own.get(i).get(struct);
            Structs.Component mine = Structs.component(struct, c.name());
            if (mine == null) throw mismatch(path, Leaves.describe(struct) + " has no component " + c.name());
            return mine.get(struct);
        }
    }

    // ------------------------------------------------------------------------------------------ measures

    /** The number of distinct objects (everything but enums and null) the writer puts in a message for a heap graph. */
    public static int countObjects(Object root) {
        return count(root, false);
    }

    /** The number of non-null references to objects in a heap graph, counted per reference (a shared object counts twice). */
    public static int countReferences(Object root) {
        return count(root, true);
    }

    private static int count(Object root, boolean references) {
        Map<Object, Boolean> seen = new IdentityHashMap<>();
        ArrayDeque<Object> work = new ArrayDeque<>();
        int refs = 0;
        if (root != null) {
            work.push(root);
            refs++;
        }
        while (!work.isEmpty()) {
            Object o = work.pop();
            if (o instanceof java.util.Optional<?> opt) { // not an object on the wire, nor a reference of its own
                if (opt.isPresent()) work.push(opt.get());
                else if (references) refs--;
                continue;
            }
            if (o instanceof Enum<?> || seen.put(o, Boolean.TRUE) != null) continue;
            if (o instanceof String || Structs.isBox(o) || Structs.isPrimitiveArray(o)) continue;
            List<Object> children = new ArrayList<>();
            if (o instanceof Object[] arr) Collections.addAll(children, arr);
            else if (o instanceof java.util.Collection<?> l) children.addAll(l);
            else if (o instanceof Map<?, ?> m) {
                children.addAll(m.keySet());
                children.addAll(m.values());
            } else if (Structs.isJdkValue(o)) children.addAll(Structs.jdkValueChildren(o));
            else for (Structs.Component c : Structs.components(o)) if (!c.type().isPrimitive()) children.add(c.get(o));
            for (Object x : children) {
                if (x == null || x instanceof Enum<?>) continue;
                refs++;
                work.push(x);
            }
        }
        return references ? refs : seen.size();
    }

    /** A string as a Java literal of at most 40 chars, every char outside printable ASCII as {@code \\uXXXX}. */
    public static String quote(String s) { return Leaves.quote(s); }
}
