package dev.verbatim.wire;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Structural fingerprints: the canonical description of a type (see {@code docs/wire-format.md},
 * "Fingerprints") hashed with SHA-256, of which the first 8 bytes, read little-endian, are the
 * fingerprint. Nothing JVM-specific (no identity hash, no class name) enters the description, so every
 * JVM on every machine computes the same value.
 *
 * <p>Recursive types: composites (structs and sealed hierarchies) are grouped into strongly connected
 * components. A composite outside the component being described is written {@code #<fingerprint>}
 * (its own fingerprint is computed first); one inside is expanded inline, and a back-edge to a composite
 * on the current expansion path is written {@code @k}, k counting enclosing composites from the innermost.
 *
 * <p>Thread-safe: stateless.
 */
final class Fingerprints {
    private Fingerprints() {}

    static long of(String canonical) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(canonical.getBytes(StandardCharsets.UTF_8));
            long v = 0;
            for (int i = 7; i >= 0; i--) v = (v << 8) | (d[i] & 0xFF);
            return v;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every Java platform", e);
        }
    }

    static String hex(long fp) {
        String h = Long.toHexString(fp);
        return "0".repeat(16 - h.length()) + h;
    }

    /**
     * Computes canonical descriptions and fingerprints for the new shapes in {@code fresh} (shapes already
     * carrying a fingerprint are treated as known). Shapes reachable from {@code fresh} must either be in
     * {@code fresh} or already have their fingerprint.
     */
    static void assign(List<Shape> fresh) {
        Set<Shape> pending = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        pending.addAll(fresh);
        // 1. Strongly connected components of the pending composites, in reverse topological order.
        List<List<Shape>> sccs = new Tarjan(pending).run(fresh);
        Map<Shape, Integer> sccOf = new IdentityHashMap<>();
        for (int i = 0; i < sccs.size(); i++) for (Shape s : sccs.get(i)) sccOf.put(s, i);
        // 2. Non-composite leaves that composites mention (enums) first: they depend on nothing.
        for (Shape s : fresh) {
            if (s.kind == Shape.ENUM && s.canonical == null) {
                s.canonical = "enum(" + String.join(",", s.constants) + ")";
                s.fingerprint = of(s.canonical);
            }
        }
        // 3. Composites, component by component; each component only mentions earlier ones by fingerprint.
        for (int i = 0; i < sccs.size(); i++) {
            List<Shape> comp = sccs.get(i);
            Map<Shape, String> descs = new HashMap<>();
            for (Shape s : comp) {
                StringBuilder sb = new StringBuilder();
                describeComposite(s, new ArrayList<>(), i, sccOf, sb);
                descs.put(s, sb.toString());
            }
            for (Shape s : comp) {
                s.canonical = descs.get(s);
                s.fingerprint = of(s.canonical);
            }
        }
        // 4. Arrays, lists and boxes: "array(" + element + ")" with composites by fingerprint.
        for (Shape s : fresh) {
            if (s.canonical == null) wrapperCanonical(s);
        }
    }

    private static void wrapperCanonical(Shape s) {
        if (s.canonical != null) return;
        String inner = standalone(s.element);
        s.canonical = switch (s.kind) {
            case Shape.ARRAY -> "array(" + inner + ")";
            case Shape.LIST -> "list(" + inner + ")";
            case Shape.SET -> "set(" + inner + ")";
            case Shape.OPTIONAL -> "optional(" + inner + ")";
            case Shape.MAP -> "map(" + inner + "," + standalone(s.mapValue) + ")";
            case Shape.BOX -> "box(" + inner + ")";
            default -> throw new IllegalStateException("no canonical form for kind " + s.kind);
        };
        s.fingerprint = of(s.canonical);
    }

    /** How a wrapper written on its own names its element: a composite by fingerprint, anything else in full. */
    private static String standalone(Shape e) {
        if (!e.isComposite() && e.canonical == null) wrapperCanonical(e);
        return e.isComposite() ? "#" + hex(e.fingerprint) : e.canonical;
    }

    private static void describeType(Shape t, List<Shape> stack, int scc, Map<Shape, Integer> sccOf, StringBuilder sb) {
        if (t.builtinId != 0) {
            sb.append(t.canonical);
            return;
        }
        switch (t.kind) {
            case Shape.ARRAY -> { sb.append("array("); describeType(t.element, stack, scc, sccOf, sb); sb.append(')'); }
            case Shape.LIST -> { sb.append("list("); describeType(t.element, stack, scc, sccOf, sb); sb.append(')'); }
            case Shape.SET -> { sb.append("set("); describeType(t.element, stack, scc, sccOf, sb); sb.append(')'); }
            case Shape.OPTIONAL -> { sb.append("optional("); describeType(t.element, stack, scc, sccOf, sb); sb.append(')'); }
            case Shape.MAP -> {
                sb.append("map(");
                describeType(t.element, stack, scc, sccOf, sb);
                sb.append(',');
                describeType(t.mapValue, stack, scc, sccOf, sb);
                sb.append(')');
            }
            case Shape.STRUCT, Shape.SEALED -> describeComposite(t, stack, scc, sccOf, sb);
            case Shape.ENUM -> sb.append(t.canonical != null ? t.canonical : "enum(" + String.join(",", t.constants) + ")");
            default -> sb.append(t.canonical);
        }
    }

    private static void describeComposite(Shape s, List<Shape> stack, int scc, Map<Shape, Integer> sccOf, StringBuilder sb) {
        Integer own = sccOf.get(s);
        if (own == null || own != scc) {
            sb.append('#').append(hex(s.fingerprint));
            return;
        }
        for (int i = stack.size() - 1; i >= 0; i--) {
            if (stack.get(i) == s) {
                sb.append('@').append(stack.size() - 1 - i);
                return;
            }
        }
        stack.add(s);
        if (s.kind == Shape.STRUCT) {
            sb.append(s.variantName != null ? "variant " + s.variantName : "struct").append('{');
            for (int i = 0; i < s.fields.length; i++) {
                if (i > 0) sb.append(';');
                sb.append(s.fields[i].name).append(':');
                describeType(s.fields[i].type, stack, scc, sccOf, sb);
            }
            sb.append('}');
        } else {
            sb.append("sealed{");
            for (int i = 0; i < s.variants.length; i++) {
                if (i > 0) sb.append('|');
                describeComposite(s.variants[i], stack, scc, sccOf, sb);
            }
            sb.append('}');
        }
        stack.removeLast();
    }

    /** Composites directly mentioned by a composite (through arrays, lists, sets, maps and optionals). */
    static void compositeEdges(Shape s, List<Shape> out) {
        if (s.kind == Shape.STRUCT) {
            for (Shape.Field f : s.fields) addComposite(f.type, out);
        } else if (s.kind == Shape.SEALED) {
            for (Shape v : s.variants) out.add(v);
        }
    }

    private static void addComposite(Shape t, List<Shape> out) {
        while (t.kind == Shape.ARRAY || t.kind == Shape.LIST || t.kind == Shape.SET || t.kind == Shape.OPTIONAL || t.kind == Shape.MAP) {
            if (t.kind == Shape.MAP) addComposite(t.mapValue, out);
            t = t.element;
        }
        if (t.isComposite()) out.add(t);
    }

    /** Iterative Tarjan over the pending composites. */
    private static final class Tarjan {
        private final Set<Shape> pending;
        private final Map<Shape, int[]> state = new IdentityHashMap<>(); // {index, lowlink, onStack}
        private final ArrayDeque<Shape> stack = new ArrayDeque<>();
        private final List<List<Shape>> out = new ArrayList<>();
        private int next;

        Tarjan(Set<Shape> pending) { this.pending = pending; }

        List<List<Shape>> run(List<Shape> roots) {
            for (Shape r : roots) {
                if (r.isComposite() && !state.containsKey(r)) strongConnect(r);
            }
            return out;
        }

        private void strongConnect(Shape root) {
            ArrayDeque<Frame> work = new ArrayDeque<>();
            work.push(open(root));
            while (!work.isEmpty()) {
                Frame f = work.peek();
                if (f.pos[0] < f.edges.size()) {
                    Shape w = f.edges.get(f.pos[0]++);
                    if (!pending.contains(w)) continue;
                    int[] ws = state.get(w);
                    if (ws == null) {
                        work.push(open(w));
                    } else if (ws[2] == 1) {
                        int[] vs = state.get(f.v);
                        vs[1] = Math.min(vs[1], ws[0]);
                    }
                    continue;
                }
                work.pop();
                int[] vs = state.get(f.v);
                if (!work.isEmpty()) {
                    int[] ps = state.get(work.peek().v);
                    ps[1] = Math.min(ps[1], vs[1]);
                }
                if (vs[1] == vs[0]) {
                    List<Shape> comp = new ArrayList<>();
                    Shape w;
                    do {
                        w = stack.pop();
                        state.get(w)[2] = 0;
                        comp.add(w);
                    } while (w != f.v);
                    out.add(comp);
                }
            }
        }

        private record Frame(Shape v, List<Shape> edges, int[] pos) {}

        private Frame open(Shape v) {
            state.put(v, new int[] {next, next, 1});
            next++;
            stack.push(v);
            List<Shape> edges = new ArrayList<>();
            compositeEdges(v, edges);
            return new Frame(v, edges, new int[1]);
        }
    }
}
