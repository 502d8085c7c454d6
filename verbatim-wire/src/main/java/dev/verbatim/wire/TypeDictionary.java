package dev.verbatim.wire;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Types described by a peer: what lets a reader validate and read messages written with another version of
 * a type (schema evolution across processes). A writer sends {@link #describe} of its types once (per
 * connection, or in a file's header); the reader {@link #learn}s them, and from then on its
 * {@link WireReader} accepts those fingerprints and reads them through name-based bindings.
 *
 * <p>Descriptions are untrusted: each is parsed with limits (length, nesting, count per dictionary), must
 * be in canonical form, and its fingerprint is computed here, never taken from the peer. Learned types are
 * interned process-wide by fingerprint (the same version learned by many connections is kept once), up to
 * {@link #MAX_LEARNED_TYPES} distinct types in all: learning a type this process knows already costs nothing
 * of that limit, however often it happens (every connection of a long-lived server, every stored file opened).
 *
 * <p>Thread-safe.
 */
public final class TypeDictionary {
    /** Most distinct types learned from peers in one process (interned, never dropped); past it, {@link #learn} refuses. */
    public static final int MAX_LEARNED_TYPES = 1 << 16;
    private static final int MAX_NESTING = 256;
    private static final Pattern REF = Pattern.compile("#([0-9a-f]{16})");
    private static int learnedInProcess;

    private final WireLimits limits;
    private int learned;

    public TypeDictionary() { this(WireLimits.DEFAULT); }

    public TypeDictionary(WireLimits limits) { this.limits = limits; }

    /**
     * The canonical descriptions of {@code type} and of every type it mentions, each after the ones its
     * {@code #fingerprint} references name: what a peer needs to {@link #learn} to read this type.
     */
    public static List<String> describe(Class<?> type) {
        return describe(List.of(Schema.of(type).shape), fp -> false);
    }

    /**
     * The canonical descriptions of {@code roots} and of every type they mention, in the order {@link #learn}
     * needs them, leaving out the types whose fingerprint {@code known} accepts (a reader has them already).
     */
    static List<String> describe(List<Shape> roots, java.util.function.LongPredicate known) {
        Map<Shape, Boolean> seen = new IdentityHashMap<>();
        List<Shape> all = new ArrayList<>();
        ArrayDeque<Shape> work = new ArrayDeque<>();
        for (Shape r : roots) work.push(r);
        while (!work.isEmpty()) {
            Shape s = work.pop();
            if (s.isPrimitive() || s.kind == Shape.REF || seen.put(s, Boolean.TRUE) != null) continue;
            all.add(s);
            if (s.fields != null) for (Shape.Field f : s.fields) work.push(f.type);
            if (s.element != null) work.push(s.element);
            if (s.mapValue != null) work.push(s.mapValue);
            if (s.variants != null) for (Shape v : s.variants) work.push(v);
        }
        Map<String, String> byHex = new LinkedHashMap<>();
        for (Shape s : all) {
            if (s.builtinId == 0 && !known.test(s.fingerprint)) byHex.put(Fingerprints.hex(s.fingerprint), s.canonical);
        }
        List<String> out = new ArrayList<>();
        Set<String> emitted = new java.util.HashSet<>();
        while (emitted.size() < byHex.size()) {
            boolean progress = false;
            for (Map.Entry<String, String> e : byHex.entrySet()) {
                if (emitted.contains(e.getKey())) continue;
                Matcher m = REF.matcher(e.getValue());
                boolean ready = true;
                while (m.find()) ready &= emitted.contains(m.group(1)) || !byHex.containsKey(m.group(1));
                if (ready) {
                    out.add(e.getValue());
                    emitted.add(e.getKey());
                    progress = true;
                }
            }
            if (!progress) throw new IllegalStateException("descriptions reference each other in a cycle: " + byHex);
        }
        return out;
    }

    /**
     * Learns one canonical description (its {@code #} references must name types known here already).
     *
     * @return its fingerprint, computed from the description
     * @throws WireFormatException naming the character offset and the rule when the description is bad
     */
    public long learn(String description) {
        if (description.length() > limits.maxDescriptorChars()) {
            throw new WireFormatException(0, "type description too long", description.length() + " > " + limits.maxDescriptorChars());
        }
        synchronized (TypeDictionary.class) {
            Parser p = new Parser(description);
            Shape top = p.type(0);
            if (p.pos != description.length()) throw p.error("trailing characters after the description");
            int fresh = p.fresh.size();
            if (learned + fresh > limits.maxTypes()) {
                throw new WireFormatException(0, "too many learned types", "this dictionary " + learned + ", process " + learnedInProcess);
            }
            Fingerprints.assign(p.fresh);
            String canonical = top.canonical;
            if (!description.equals(canonical)) {
                throw new WireFormatException(firstDifference(description, canonical), "type description not in canonical form",
                        "canonical: " + canonical);
            }
            int unknown = Schema.unregistered(p.fresh); // what interning adds to the process: types it did not know
            if (learnedInProcess + unknown > MAX_LEARNED_TYPES) {
                throw new WireFormatException(0, "too many learned types", "this dictionary " + learned + ", process " + learnedInProcess);
            }
            Map<Shape, Shape> canon = Schema.intern(p.fresh);
            learned += fresh;
            learnedInProcess += unknown;
            return canon.getOrDefault(top, top).fingerprint;
        }
    }

    /** Learns every description of a list such as {@link #describe} returns, in order. */
    public void learnAll(List<String> descriptions) {
        for (String d : descriptions) learn(d);
    }

    private static int firstDifference(String a, String b) {
        int n = Math.min(a.length(), b.length());
        for (int i = 0; i < n; i++) if (a.charAt(i) != b.charAt(i)) return i;
        return n;
    }

    /** A recursive-descent parser of the description grammar, nesting bounded. */
    private static final class Parser {
        final String s;
        int pos;
        final List<Shape> fresh = new ArrayList<>();
        final List<Shape> stack = new ArrayList<>();

        Parser(String s) { this.s = s; }

        WireFormatException error(String rule) {
            return new WireFormatException(pos, rule, "in type description");
        }

        Shape type(int depth) {
            if (depth > MAX_NESTING) throw error("type description nested too deeply");
            if (pos >= s.length()) throw error("type description ends early");
            char c = s.charAt(pos);
            if (c == '#') {
                pos++;
                if (pos + 16 > s.length()) throw error("fingerprint reference too short");
                String hex = s.substring(pos, pos + 16);
                long fp;
                try {
                    fp = Long.parseUnsignedLong(hex, 16);
                } catch (NumberFormatException e) {
                    throw error("fingerprint reference not hexadecimal");
                }
                Shape known = Schema.shapeByFingerprint(fp);
                if (known == null || !known.isComposite()) throw error("reference to an unknown type " + hex);
                pos += 16;
                return known;
            }
            if (c == '@') {
                pos++;
                int start = pos;
                while (pos < s.length() && Character.isDigit(s.charAt(pos)) && pos - start < 4) pos++;
                if (start == pos) throw error("back reference without a number");
                int k = Integer.parseInt(s.substring(start, pos));
                if (k >= stack.size()) throw error("back reference beyond the enclosing types");
                return stack.get(stack.size() - 1 - k);
            }
            String word = word();
            switch (word) {
                case "bool", "i8", "u16", "i16", "i32", "i64", "f32", "f64" -> {
                    return Shape.PRIMS[java.util.Arrays.asList(Shape.PRIM_NAMES).indexOf(word)];
                }
                case "string" -> { return Shape.STRING_SHAPE; }
                case "ref" -> { return Shape.REF_SHAPE; }
                case "instant", "duration", "localdate", "localtime", "localdatetime", "offsetdatetime", "zoneddatetime",
                     "uuid", "biginteger", "bigdecimal" -> {
                    return ValueTypes.shape(ValueTypes.FIRST + java.util.Arrays.asList(ValueTypes.NAMES).indexOf(word));
                }
                case "box", "array", "list", "set", "optional", "map" -> {
                    expect('(');
                    Shape e = type(depth + 1);
                    Shape v = null;
                    if (word.equals("map")) {
                        expect(',');
                        v = type(depth + 1);
                    }
                    expect(')');
                    if (word.equals("box")) {
                        if (!e.isPrimitive()) throw error("box of a non-primitive");
                        return Shape.BOXES[e.kind];
                    }
                    if (word.equals("array") && e.isPrimitive()) return Shape.PRIM_ARRAYS[e.kind];
                    if (e.isPrimitive() || v != null && v.isPrimitive()) throw error(word + " of a primitive");
                    if (e.kind == Shape.REF && !word.equals("array") && !word.equals("list")) throw error(word + " of ref (a reference slot is a field, an array or list element or a map value)");
                    if (e.kind == Shape.OPTIONAL || v != null && v.kind == Shape.OPTIONAL) throw error(word + " of an optional");
                    Shape w = new Shape(switch (word) {
                        case "array" -> Shape.ARRAY;
                        case "list" -> Shape.LIST;
                        case "set" -> Shape.SET;
                        case "map" -> Shape.MAP;
                        default -> Shape.OPTIONAL;
                    });
                    w.element = e;
                    w.mapValue = v;
                    fresh.add(w);
                    return w;
                }
                case "enum" -> {
                    expect('(');
                    List<String> names = new ArrayList<>();
                    if (peek() != ')') {
                        names.add(name());
                        while (peek() == ',') { pos++; names.add(name()); }
                    }
                    expect(')');
                    if (new java.util.HashSet<>(names).size() != names.size()) throw error("enum constant listed twice");
                    Shape e = new Shape(Shape.ENUM);
                    e.constants = names.toArray(String[]::new);
                    fresh.add(e);
                    return e;
                }
                case "struct", "variant" -> {
                    Shape st = new Shape(Shape.STRUCT);
                    if (word.equals("variant")) {
                        expect(' ');
                        st.variantName = name();
                    }
                    fresh.add(st);
                    stack.add(st);
                    expect('{');
                    List<Shape.Field> fields = new ArrayList<>();
                    if (peek() != '}') {
                        while (true) {
                            String n = name();
                            expect(':');
                            fields.add(new Shape.Field(n, type(depth + 1)));
                            if (peek() != ';') break;
                            pos++;
                        }
                    }
                    for (int i = 1; i < fields.size(); i++) {
                        if (fields.get(i - 1).name.compareTo(fields.get(i).name) >= 0) throw error("fields not in strictly ascending name order");
                    }
                    expect('}');
                    stack.removeLast();
                    st.fields = fields.toArray(Shape.Field[]::new);
                    return st;
                }
                case "sealed" -> {
                    Shape se = new Shape(Shape.SEALED);
                    fresh.add(se);
                    stack.add(se);
                    expect('{');
                    List<Shape> vs = new ArrayList<>();
                    while (true) {
                        Shape v = type(depth + 1);
                        if (v.kind != Shape.STRUCT || v.variantName == null) throw error("a case of a sealed type must be a variant");
                        vs.add(v);
                        if (peek() != '|') break;
                        pos++;
                    }
                    for (int i = 1; i < vs.size(); i++) {
                        if (vs.get(i - 1).variantName.compareTo(vs.get(i).variantName) >= 0) throw error("cases not in strictly ascending name order");
                    }
                    expect('}');
                    stack.removeLast();
                    se.variants = vs.toArray(Shape[]::new);
                    return se;
                }
                default -> throw error("unknown type keyword '" + word + "'");
            }
        }

        private char peek() {
            if (pos >= s.length()) throw error("type description ends early");
            return s.charAt(pos);
        }

        private void expect(char c) {
            if (peek() != c) throw error("expected '" + c + "'");
            pos++;
        }

        private String word() {
            int start = pos;
            while (pos < s.length() && (Character.isLowerCase(s.charAt(pos)) && s.charAt(pos) < 128
                    || pos > start && Character.isDigit(s.charAt(pos)))) {
                pos++;
            }
            if (start == pos) throw error("expected a type");
            return s.substring(start, pos);
        }

        private String name() {
            int start = pos;
            while (pos < s.length() && Character.isJavaIdentifierPart(s.charAt(pos)) && !Character.isIdentifierIgnorable(s.charAt(pos))) pos++;
            if (start == pos || !Character.isJavaIdentifierStart(s.charAt(start))) throw error("expected a name");
            return s.substring(start, pos);
        }
    }
}
