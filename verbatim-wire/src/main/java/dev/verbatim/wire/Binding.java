package dev.verbatim.wire;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How to read objects written as shape {@code w} into Java type {@code r}: the identity when the
 * fingerprints agree, else a field mapping by name (schema evolution: fields the writer lacks read as
 * defaults, fields the reader lacks are skipped). Computed once per (writer shape, reader type) pair and
 * cached; an incompatible pair fails with a {@link WireSchemaException} naming the field.
 *
 * <p>Thread-safe: built under a lock, immutable after, except the lazily generated view constructor.
 */
final class Binding {
    private static final Map<Key, Binding> CACHE = new ConcurrentHashMap<>();
    private static final Object LOCK = new Object();

    /**
     * Most bindings of shapes only learned from peers (files and logs with a type dictionary) in one process. Each
     * may get a generated view class and materializer (some 3 KiB of metaspace each), so a file describing many
     * versions of a type a local view can read would otherwise make the process generate classes without bound.
     */
    static final int MAX_LEARNED_BINDINGS = 4096;
    /** Bindings of learned shapes made so far (under {@link #LOCK}). */
    private static int learnedBindings;
    /** The cap, lowered by tests. */
    static int learnedBindingsCap = MAX_LEARNED_BINDINGS;
    private static volatile Binding[] byId = new Binding[64];
    private static int nextId;

    private record Key(Shape w, JType r) {}

    final int id;
    final Shape w;
    final JType r;
    /** STRUCT: the writer field each reader field reads (null: default), aligned with {@code r.fields}. */
    Shape.Field[] source;
    /** STRUCT: bindings of reference fields (null for primitives, enums and defaults), aligned with {@code r.fields}. */
    Binding[] children;
    /** ENUM: reader constant per writer ordinal. */
    Object[] enumValues;
    /** ARRAY, LIST, SET, OPTIONAL: the elements' binding; MAP: the keys'. */
    Binding element;
    /** MAP: the values' binding. */
    Binding mapValue;
    /** SEALED: bindings per writer case, aligned with {@code w.variants}. */
    Binding[] variants;

    /** (Message, MemorySegment, long)Object: builds a view; set once the view class is generated. */
    volatile MethodHandle viewCtor;
    /** A view instance (over nothing) whose {@code make} builds views; set with {@link #viewCtor}. */
    volatile ViewBase prototype;
    /** How the materializer copies objects of this binding ({@link BindingMaterializer#of}): generated once, on first use. */
    volatile BindingMaterializer materializer;

    private Binding(int id, Shape w, JType r) {
        this.id = id;
        this.w = w;
        this.r = r;
    }

    static Binding byId(int id) { return byId[id]; }

    /** Bindings of learned shapes made so far in this process. */
    static int learnedBindings() {
        synchronized (LOCK) {
            return learnedBindings;
        }
    }

    /** The binding for reading shape {@code w} as {@code r}, computing it (and those it needs) on first use. */
    static Binding of(Shape w, JType r) {
        Binding b = CACHE.get(new Key(w, r));
        if (b != null) return b;
        synchronized (LOCK) {
            b = CACHE.get(new Key(w, r));
            if (b != null) return b;
            List<Binding> fresh = new ArrayList<>();
            Map<Key, Binding> local = new java.util.HashMap<>();
            b = create(w, r, local, fresh, r.raw.getName());
            int learned = 0;
            for (Binding f : fresh) if (!f.w.local && !f.w.isPrimitive() && f.w.builtinId == 0) learned++;
            if (learned > 0 && learnedBindings + learned > learnedBindingsCap) {
                throw new WireSchemaException("cannot read " + w + " as " + r.raw.getName() + ": this process already reads "
                        + learnedBindings + " (type learned from a peer, local type) pairs, the most it will ("
                        + learnedBindingsCap + ")");
            }
            learnedBindings += learned;
            // The graph is complete and compatible: publish it together.
            for (Binding f : fresh) {
                CACHE.put(new Key(f.w, f.r), f);
                Binding[] a = byId;
                if (f.id >= a.length) a = Arrays.copyOf(a, Math.max(a.length * 2, f.id + 1));
                a[f.id] = f;
                byId = a;
            }
            return b;
        }
    }

    private static Binding create(Shape w, JType r, Map<Key, Binding> local, List<Binding> fresh, String where) {
        Key key = new Key(w, r);
        Binding b = CACHE.get(key);
        if (b == null) b = local.get(key);
        if (b != null) return b;
        b = new Binding(nextId++, w, r);
        local.put(key, b);
        fresh.add(b);
        switch (r.jkind) {
            case JType.PRIM -> require(w == r.shape, w, r, where);
            case JType.BOXED, JType.PRIM_ARRAY, JType.ARRAY_VIEW -> require(w == r.shape, w, r, where);
            case JType.STRING, JType.CHARSEQ -> require(w.kind == Shape.STRING, w, r, where);
            case JType.ENUM -> {
                require(w.kind == Shape.ENUM, w, r, where);
                // Matched by name; a writer constant the reader lacks fails when a value with it is read.
                Object[] map = new Object[w.constants.length];
                for (int i = 0; i < map.length; i++) {
                    for (Object c : r.enumConstants) if (((Enum<?>) c).name().equals(w.constants[i])) map[i] = c;
                }
                b.enumValues = map;
            }
            case JType.REF -> require(w.kind == Shape.REF, w, r, where);
            case JType.REF_ARRAY, JType.LIST -> {
                require(w.kind == Shape.ARRAY || w.kind == Shape.LIST, w, r, where);
                require(!w.element.isPrimitive(), w, r, where);
                b.element = create(w.element, r.element, local, fresh, where + "[]");
            }
            case JType.MAP, JType.SET, JType.OPTIONAL -> {
                require(w.kind == r.shape.kind, w, r, where);
                b.element = create(w.element, r.element, local, fresh, where + (r.jkind == JType.MAP ? "<key>" : "<element>"));
                if (r.jkind == JType.MAP) b.mapValue = create(w.mapValue, r.mapValue, local, fresh, where + "<value>");
            }
            case JType.RECORD, JType.CLASS, JType.IFACE -> {
                require(w.kind == Shape.STRUCT, w, r, where);
                if (r.jkind == JType.IFACE) checkNameable(r);
                JType.JField[] rf = r.fields;
                b.source = new Shape.Field[rf.length];
                b.children = new Binding[rf.length];
                if (w != r.shape) {
                    int common = 0;
                    for (JType.JField f : rf) if (w.field(f.name) != null) common++;
                    if (common == 0 && rf.length > 0 && w.fields.length > 0) {
                        throw new WireSchemaException(where + ": the writer's " + w.displayName() + " and " + r.raw.getName()
                                + " have no field in common: not versions of one type");
                    }
                    if (w.variantName != null && r.shape.variantName != null && !w.variantName.equals(r.shape.variantName)) {
                        throw new WireSchemaException(where + ": the writer's case " + w.variantName + " cannot be read as case "
                                + r.shape.variantName);
                    }
                }
                for (int i = 0; i < rf.length; i++) {
                    Shape.Field sf = w.field(rf[i].name);
                    b.source[i] = sf;
                    if (sf == null) continue; // added field: reads as its default
                    JType ft = rf[i].type;
                    String fw = r.raw.getSimpleName() + "." + rf[i].name;
                    if (ft.jkind == JType.PRIM) {
                        if (sf.type != ft.shape) throw incompatible(fw, sf.type, ft);
                    } else if (ft.isInline()) {
                        if (sf.type.kind != ft.shape.kind) throw incompatible(fw, sf.type, ft);
                        b.children[i] = create(sf.type, ft, local, fresh, fw);
                    } else {
                        if (!sf.type.isReference()) throw incompatible(fw, sf.type, ft);
                        b.children[i] = create(sf.type, ft, local, fresh, fw);
                    }
                }
            }
            case JType.SEALED -> {
                require(w.kind == Shape.SEALED, w, r, where);
                b.variants = new Binding[w.variants.length];
                for (int i = 0; i < w.variants.length; i++) {
                    Shape wv = w.variants[i];
                    JType match = null;
                    for (JType rv : r.variants) if (rv.shape.variantName.equals(wv.variantName)) match = rv;
                    if (match == null) {
                        throw new WireSchemaException(where + ": the writer's case " + wv.variantName + " of " + r.raw.getName()
                                + " has no counterpart among the reader's cases");
                    }
                    b.variants[i] = create(wv, match, local, fresh, where + "|" + wv.variantName);
                }
            }
            default -> throw new IllegalStateException("unknown kind " + r.jkind);
        }
        return b;
    }

    /** Full access in this package: what a view class generated here may name. */
    private static final MethodHandles.Lookup GENERATED_CODE = MethodHandles.lookup();

    /**
     * A view class is generated in this package (module {@code dev.verbatim.wire}): it implements the view interface
     * and names the type each accessor returns. Both must be accessible from here, or the generated code fails with an
     * {@link IllegalAccessError} on its first read; this refuses them when the view is bound instead, saying what to do.
     */
    private static void checkNameable(JType view) {
        String v = view.raw.getName();
        if (!Modifier.isPublic(view.raw.getModifiers())) {
            throw notNameable(view.raw, "view interface " + v + " cannot be read: the view class generated for it must implement it");
        }
        checkAccessible(view.raw, "view interface " + v + " cannot be read: the view class generated for it must implement it");
        for (JType.JField f : view.fields) {
            if (f.type.jkind == JType.PRIM) continue;
            checkAccessible(f.type.raw, "view interface " + v + " cannot be read: its accessor " + f.where + " returns "
                    + f.type.raw.getTypeName() + ", which the view class generated for it must name");
        }
    }

    private static void checkAccessible(Class<?> c, String what) {
        try {
            GENERATED_CODE.accessClass(c);
        } catch (IllegalAccessException e) {
            throw notNameable(c, what);
        }
    }

    private static WireSchemaException notNameable(Class<?> c, String what) {
        Class<?> e = c;
        while (e.isArray()) e = e.getComponentType();
        String pkg = e.getPackageName();
        return new WireSchemaException(what + " (in module dev.verbatim.wire), and " + (!Modifier.isPublic(e.getModifiers())
                ? e.getName() + " is not public: make it public (a top-level type, or a public member of a type; a type "
                  + "declared inside a method cannot be public: move it out)"
                : "its package " + pkg + " is not exported to dev.verbatim.wire: add 'exports " + pkg
                  + " to dev.verbatim.wire;' to the module-info of " + e.getModule().getName()));
    }

    /** The reader's enum constant for a writer ordinal (checked in range by the caller's validation). */
    Object enumValue(int ordinal) {
        Object v = enumValues[ordinal];
        if (v == null) {
            throw new WireSchemaException("the writer's enum constant " + w.constants[ordinal] + " does not exist in "
                    + r.raw.getName() + " " + Arrays.toString(r.enumConstants));
        }
        return v;
    }

    /** The binding of a writer case of a sealed type, or null. */
    Binding variantFor(Shape actual) {
        Shape[] vs = w.variants;
        for (int i = 0; i < vs.length; i++) if (vs[i] == actual) return variants[i];
        return null;
    }

    private static void require(boolean ok, Shape w, JType r, String where) {
        if (!ok) throw incompatible(where, w, r);
    }

    private static WireSchemaException incompatible(String where, Shape w, JType r) {
        return new WireSchemaException(where + ": the writer's " + w.displayName() + " cannot be read as " + r.raw.getTypeName()
                + " (" + r.shape.displayName() + ")");
    }

    @Override
    public String toString() { return "Binding[" + w + " as " + r + "]"; }
}
