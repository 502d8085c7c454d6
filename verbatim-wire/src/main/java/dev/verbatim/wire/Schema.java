package dev.verbatim.wire;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Wire schemas derived from Java types, with no IDL: records and classes (non-transient fields), accessor
 * interfaces, sealed hierarchies, enums, {@code String}, boxed and primitive values, primitive arrays,
 * arrays of references, {@code List}s, {@code Collection}s, {@code Set}s and {@code Map}s of supported types,
 * {@code Optional} fields, and the value types of {@link ValueTypes} ({@code java.time}, {@code UUID},
 * {@code BigInteger}, {@code BigDecimal}). Each type is analysed once and cached.
 *
 * <p>Thread-safe: analysis runs under one lock; lookups of analysed types are lock-free.
 */
public final class Schema {
    private Schema() {}

    private static final Object LOCK = new Object();
    private static final Map<Class<?>, JType> TYPES = new ConcurrentHashMap<>();
    private static final Map<Long, Shape> SHAPES = new ConcurrentHashMap<>();
    /** {@code List<T>} and {@code T[]} per element type, so every usage site shares one Java type (and one binding). */
    private static final Map<JType, JType> LISTS = new ConcurrentHashMap<>();
    private static final Map<JType, JType> ARRAYS = new ConcurrentHashMap<>();
    /** {@code Collection<T>}, {@code Set<T>}, {@code Map<K, V>}, {@code Optional<T>} by raw type and arguments. */
    private static final Map<GenericKey, JType> GENERICS = new ConcurrentHashMap<>();

    private record GenericKey(Class<?> raw, JType a, JType b) {}
    private static volatile Shape[] bySerial = new Shape[256];
    private static int nextSerial;

    private static final JType[] PRIM_JTYPES = new JType[8];
    private static final Class<?>[] PRIM_CLASSES = {boolean.class, byte.class, char.class, short.class, int.class, long.class, float.class, double.class};
    private static final Class<?>[] BOX_CLASSES = {Boolean.class, Byte.class, Character.class, Short.class, Integer.class, Long.class, Float.class, Double.class};
    private static final Class<?>[] ARRAY_VIEW_CLASSES = {ArrayView.OfBoolean.class, ArrayView.OfByte.class, ArrayView.OfChar.class,
            ArrayView.OfShort.class, ArrayView.OfInt.class, ArrayView.OfLong.class, ArrayView.OfFloat.class, ArrayView.OfDouble.class};

    static {
        for (Shape s : Shape.BUILTINS) if (s != null) internBuiltin(s);
        for (int k = 0; k < 8; k++) {
            JType p = new JType(JType.PRIM, PRIM_CLASSES[k]);
            p.shape = Shape.PRIMS[k];
            PRIM_JTYPES[k] = p;
            TYPES.put(PRIM_CLASSES[k], p);
            JType b = new JType(JType.BOXED, BOX_CLASSES[k]);
            b.shape = Shape.BOXES[k];
            TYPES.put(BOX_CLASSES[k], b);
            JType a = new JType(JType.PRIM_ARRAY, PRIM_CLASSES[k].arrayType());
            a.shape = Shape.PRIM_ARRAYS[k];
            TYPES.put(a.raw, a);
            JType v = new JType(JType.ARRAY_VIEW, ARRAY_VIEW_CLASSES[k]);
            v.shape = Shape.PRIM_ARRAYS[k];
            TYPES.put(v.raw, v);
        }
        JType s = new JType(JType.STRING, String.class);
        s.shape = Shape.STRING_SHAPE;
        TYPES.put(String.class, s);
        JType cs = new JType(JType.CHARSEQ, CharSequence.class);
        cs.shape = Shape.STRING_SHAPE;
        TYPES.put(CharSequence.class, cs);
        for (int id = ValueTypes.FIRST; id <= ValueTypes.LAST; id++) {
            Shape.Field[] fs = ValueTypes.shape(id).fields;
            JType[] fieldTypes = new JType[fs.length];
            for (int i = 0; i < fs.length; i++) {
                Shape f = fs[i].type;
                fieldTypes[i] = f.isPrimitive() ? PRIM_JTYPES[f.kind] : f == Shape.STRING_SHAPE ? s : TYPES.get(byte[].class);
            }
            JType v = JavaValues.javaType(id, fieldTypes);
            TYPES.put(v.raw, v);
        }
    }

    /** The structural fingerprint of a type: equal for every JVM, and for a record and an interface of one structure. */
    public static long fingerprint(Class<?> type) { return of(type).shape.fingerprint; }

    /** The canonical description the fingerprint is computed from (the grammar is in docs/wire-format.md). */
    public static String describe(Class<?> type) { return of(type).shape.canonical; }

    /**
     * The canonical description of a generic type ({@code List<Point>}, {@code Map<String, Integer>},
     * {@code Set<UUID>}...), or of a class.
     */
    public static String describe(Type type) { return of(type, type.getTypeName()).shape.canonical; }

    /** The structural fingerprint of a generic type, or of a class. */
    public static long fingerprint(Type type) { return of(type, type.getTypeName()).shape.fingerprint; }

    /**
     * Whether a value of {@code type} may hold objects passed by reference ({@link ByReference}): a reference slot is
     * reachable from its shape (through fields, elements, map values and sealed cases). Such a value is written only
     * with a {@link WireWriter#references sink} and read only with its table.
     */
    public static boolean holdsReferences(Type type) {
        Shape root = of(type, type.getTypeName()).shape;
        java.util.Set<Shape> seen = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        java.util.ArrayDeque<Shape> work = new java.util.ArrayDeque<>();
        work.push(root);
        while (!work.isEmpty()) {
            Shape s = work.pop();
            if (s.kind == Shape.REF) return true;
            if (s.isPrimitive() || !seen.add(s)) continue;
            if (s.fields != null) for (Shape.Field f : s.fields) work.push(f.type);
            if (s.element != null) work.push(s.element);
            if (s.mapValue != null) work.push(s.mapValue);
            if (s.variants != null) for (Shape v : s.variants) work.push(v);
        }
        return false;
    }

    /** The Java type of a message root written or read as {@code type}: an object type (not an {@code Optional}). */
    static JType rootType(Type type) {
        JType t = of(type, type.getTypeName());
        if (t.jkind == JType.OPTIONAL || t.jkind == JType.PRIM || t.jkind == JType.ENUM || t.jkind == JType.REF) {
            throw new WireSchemaException("a " + type.getTypeName() + " cannot be a message root: wrap it in a record");
        }
        return t;
    }

    /** The fingerprint of a canonical description: SHA-256 of its UTF-8 bytes, first 8 bytes little-endian. */
    public static long fingerprintOf(String canonicalDescription) { return Fingerprints.of(canonicalDescription); }

    /** Per-class front cache: a field load after the first lookup. */
    private static final ClassValue<JType> BY_CLASS = new ClassValue<>() {
        @Override
        protected JType computeValue(Class<?> c) { return analyzeOrGet(c); }
    };

    static JType of(Class<?> c) { return BY_CLASS.get(c); }

    private static JType analyzeOrGet(Class<?> c) {
        JType t = TYPES.get(c);
        if (t != null) return t;
        synchronized (LOCK) {
            t = TYPES.get(c);
            if (t != null) return t;
            Session s = new Session();
            t = s.analyze(c, c.getName());
            s.finish();
            return t;
        }
    }

    /** The Java type of a generic type (a field's {@code List<Node>}, say). */
    static JType of(Type generic, String where) {
        if (generic instanceof Class<?> c) return of(c);
        synchronized (LOCK) {
            Session s = new Session();
            JType t = s.analyze(generic, where);
            s.finish();
            return t;
        }
    }

    static Shape shapeBySerial(int serial) { return bySerial[serial]; }

    /** The local shape with this fingerprint, or null. */
    static Shape shapeByFingerprint(long fp) { return SHAPES.get(fp); }

    private static void internBuiltin(Shape s) {
        SHAPES.put(s.fingerprint, s);
        assignSerial(s);
    }

    private static void assignSerial(Shape s) {
        s.serial = nextSerial++;
        Shape[] a = bySerial;
        if (s.serial >= a.length) a = Arrays.copyOf(a, a.length * 2);
        a[s.serial] = s;
        bySerial = a;
    }

    /** How many distinct fingerprints of {@code fresh} (fingerprints assigned) {@link #intern} would register. */
    static int unregistered(List<Shape> fresh) {
        Set<Long> unknown = new HashSet<>();
        for (Shape s : fresh) {
            if (!SHAPES.containsKey(s.fingerprint)) unknown.add(s.fingerprint);
        }
        return unknown.size();
    }

    /** Interns fresh shapes by fingerprint (after {@link Fingerprints#assign}); returns fresh → canonical. */
    static Map<Shape, Shape> intern(List<Shape> fresh) {
        // The canonical instance per fingerprint: the registered one, else the first fresh one (two fresh shapes
        // of one session can be equal: the element types of two List<Point> fields, a record and its view).
        Map<Long, Shape> firstFresh = new HashMap<>();
        Map<Shape, Shape> canon = new IdentityHashMap<>();
        for (Shape s : fresh) {
            Shape existing = SHAPES.get(s.fingerprint);
            if (existing == null) existing = firstFresh.putIfAbsent(s.fingerprint, s);
            canon.put(s, existing != null ? existing : s);
        }
        List<Shape> added = new ArrayList<>();
        for (Shape s : fresh) {
            if (canon.get(s) != s) continue;
            if (s.fields != null) for (Shape.Field f : s.fields) f.type = canon.getOrDefault(f.type, f.type);
            if (s.element != null) s.element = canon.getOrDefault(s.element, s.element);
            if (s.mapValue != null) s.mapValue = canon.getOrDefault(s.mapValue, s.mapValue);
            if (s.variants != null) for (int i = 0; i < s.variants.length; i++) s.variants[i] = canon.getOrDefault(s.variants[i], s.variants[i]);
            added.add(s);
        }
        for (Shape s : added) {
            s.freeze();
            assignSerial(s);
            SHAPES.put(s.fingerprint, s);
        }
        return canon;
    }

    /** One analysis: the types it creates become visible together, once their fingerprints are known. */
    private static final class Session {
        private final Map<Class<?>, JType> local = new HashMap<>();
        private final Map<JType, JType> localLists = new HashMap<>();
        private final Map<JType, JType> localArrays = new HashMap<>();
        private final Map<GenericKey, JType> localGenerics = new HashMap<>();
        private final List<Shape> freshShapes = new ArrayList<>();
        private final List<JType> freshTypes = new ArrayList<>();

        JType analyze(Type generic, String where) {
            if (generic instanceof Class<?> c) return analyzeClass(c, where);
            if (generic instanceof ParameterizedType p) {
                Type raw = p.getRawType();
                if (raw == Map.class || raw == Set.class || raw == Collection.class || raw == Optional.class) {
                    return generic(p, (Class<?>) raw, where);
                }
                if (raw != List.class) {
                    throw unsupported(where, generic, "the generic types carried are List<T>, Collection<T>, Set<T>, Map<K, V> "
                            + "and Optional<T>");
                }
                JType elem = analyze(bound(p.getActualTypeArguments()[0], where), where + "<element>");
                if (elem.jkind == JType.PRIM) throw unsupported(where, generic, "a list element must be a reference type");
                if (elem.jkind == JType.OPTIONAL) throw unsupported(where, generic, "Optional is carried in fields and accessors, not in collections");
                JType t = LISTS.get(elem);
                if (t == null) t = localLists.get(elem);
                if (t != null) return t;
                t = new JType(JType.LIST, List.class);
                t.element = elem;
                t.shape = wrapper(Shape.LIST, elem.shape);
                freshTypes.add(t);
                localLists.put(elem, t);
                return t;
            }
            if (generic instanceof GenericArrayType g) {
                JType elem = analyze(g.getGenericComponentType(), where + "[]");
                if (elem.jkind == JType.OPTIONAL) throw unsupported(where, generic, "Optional is carried in fields and accessors, not in arrays");
                return refArray(elem, null);
            }
            throw unsupported(where, generic, "type variables and wildcards are not carried; use a concrete type");
        }

        /**
         * {@code Collection<T>} (a list on the wire), {@code Set<T>}, {@code Map<K, V>} or {@code Optional<T>}: one
         * Java type per (raw type, arguments), shared by every usage site.
         */
        private JType generic(ParameterizedType p, Class<?> raw, String where) {
            Type[] args = p.getActualTypeArguments();
            JType a = analyze(bound(args[0], where), where + "<" + (raw == Map.class ? "key" : "element") + ">");
            JType b = raw == Map.class ? analyze(bound(args[1], where), where + "<value>") : null;
            if (a.jkind == JType.PRIM || b != null && b.jkind == JType.PRIM) throw unsupported(where, p, "type arguments are reference types");
            if (a.jkind == JType.REF && raw != Collection.class) {
                throw unsupported(where, p, "an object passed by reference (" + a.raw.getName() + ") may be a field, an array or "
                        + "list element or a map value, not a map key, a set element or an Optional");
            }
            if (a.jkind == JType.OPTIONAL || b != null && b.jkind == JType.OPTIONAL) {
                throw unsupported(where, p, "Optional is carried in fields and accessors, not inside collections or Optional");
            }
            if ((raw == Map.class || raw == Set.class) && !hashBounded(a, new java.util.HashSet<>())) {
                throw unsupported(where, p, (raw == Map.class ? "a map key" : "a set element") + " must hash in time bounded by "
                        + "its type (strings, boxes, enums, value types, arrays, accessor interfaces, and records, classes and "
                        + "sealed types of those, not recursive): a message could otherwise nest or share collections so "
                        + "that hashing them while materializing costs without bound");
            }
            GenericKey key = new GenericKey(raw, a, b);
            JType t = GENERICS.get(key);
            if (t == null) t = localGenerics.get(key);
            if (t != null) return t;
            int jkind = raw == Map.class ? JType.MAP : raw == Set.class ? JType.SET : raw == Optional.class ? JType.OPTIONAL : JType.LIST;
            int kind = raw == Map.class ? Shape.MAP : raw == Set.class ? Shape.SET : raw == Optional.class ? Shape.OPTIONAL : Shape.LIST;
            t = new JType(jkind, raw);
            t.element = a;
            t.mapValue = b;
            t.shape = wrapper(kind, a.shape);
            t.shape.mapValue = b == null ? null : b.shape;
            freshTypes.add(t);
            localGenerics.put(key, t);
            return t;
        }

        /**
         * Whether {@code equals} and {@code hashCode} of {@code t} cost at most a bound set by the type, whatever the
         * message: no collection, map or optional inside (their hashes visit every element, and a message can share
         * them to make a hash exponential), no recursion. Arrays and views hash by identity.
         */
        private static boolean hashBounded(JType t, java.util.Set<JType> path) {
            switch (t.jkind) {
                case JType.LIST, JType.SET, JType.MAP, JType.OPTIONAL -> { return false; }
                case JType.RECORD, JType.CLASS -> {
                    if (t.factory != null) return true; // a value type
                    if (t.fields == null || !path.add(t)) return false; // fields null: still being analysed, so recursive
                    for (JType.JField f : t.fields) if (!hashBounded(f.type, path)) return false;
                    path.remove(t);
                    return true;
                }
                case JType.SEALED -> {
                    if (t.variants == null || !path.add(t)) return false;
                    for (JType v : t.variants) if (!hashBounded(v, path)) return false;
                    path.remove(t);
                    return true;
                }
                default -> { return true; }
            }
        }

        private Type bound(Type t, String where) {
            if (t instanceof WildcardType w) {
                if (w.getLowerBounds().length > 0) throw unsupported(where, t, "lower-bounded wildcards are not carried");
                return w.getUpperBounds()[0];
            }
            return t;
        }

        private Shape wrapper(int kind, Shape element) {
            Shape s = new Shape(kind);
            s.element = element;
            freshShapes.add(s);
            return s;
        }

        private JType refArray(JType elem, Class<?> raw) {
            JType t = ARRAYS.get(elem);
            if (t == null) t = localArrays.get(elem);
            if (t != null) return t;
            t = new JType(JType.REF_ARRAY, raw != null ? raw : elem.raw.arrayType());
            localArrays.put(elem, t);
            t.element = elem;
            t.shape = wrapper(Shape.ARRAY, elem.shape);
            freshTypes.add(t);
            return t;
        }

        JType analyzeClass(Class<?> c, String where) {
            JType t = TYPES.get(c);
            if (t != null) return t;
            t = local.get(c);
            if (t != null) return t;
            if (c.isArray()) {
                if (c.getComponentType().isPrimitive()) throw new IllegalStateException("primitive arrays are pre-registered");
                JType elem = analyzeClass(c.getComponentType(), where + "[]");
                JType a = refArray(elem, c);
                local.put(c, a);
                return a;
            }
            if (c == List.class || c == Collection.class || c == Set.class || c == Map.class || c == Optional.class) {
                throw unsupported(where, c, "a " + c.getSimpleName() + " needs type arguments, e.g. " + c.getSimpleName()
                        + (c == Map.class ? "<String, String>" : "<String>"));
            }
            if (c.isEnum()) return analyzeEnum(c);
            if (c.isInterface() && ByReference.class.isAssignableFrom(c) && c != ByReference.class) {
                JType r = new JType(JType.REF, c); // a reference slot: the shape is "ref" whatever the interface
                r.shape = Shape.REF_SHAPE;
                local.put(c, r);
                return r;
            }
            if (c == Object.class || c.isPrimitive() || c.isAnnotation() || c.isHidden()
                    || (c.getName().startsWith("java.") && !c.isRecord())) {
                throw unsupported(where, c, "supported: records, classes with fields, accessor interfaces, sealed hierarchies, "
                        + "enums, String, CharSequence, boxed and primitive values, arrays, List<T>");
            }
            if (c.isSealed()) return analyzeSealed(c, where);
            if (!c.isInterface() && Modifier.isAbstract(c.getModifiers())) {
                throw unsupported(where, c, "an abstract class must be sealed to be carried (closed polymorphism)");
            }
            return analyzeStruct(c, where);
        }

        private JType analyzeEnum(Class<?> c) {
            JType t = new JType(JType.ENUM, c);
            Object[] consts = c.getEnumConstants();
            Shape s = new Shape(Shape.ENUM);
            s.constants = new String[consts.length];
            for (int i = 0; i < consts.length; i++) s.constants[i] = ((Enum<?>) consts[i]).name();
            t.shape = s;
            t.enumConstants = consts;
            freshShapes.add(s);
            freshTypes.add(t);
            local.put(c, t);
            return t;
        }

        private JType analyzeSealed(Class<?> c, String where) {
            JType t = new JType(JType.SEALED, c);
            Shape s = new Shape(Shape.SEALED);
            t.shape = s;
            local.put(c, t);
            freshShapes.add(s);
            freshTypes.add(t);
            List<Class<?>> cases = new ArrayList<>();
            collectCases(c, cases, where);
            List<JType> vs = new ArrayList<>();
            for (Class<?> k : cases) {
                JType v = analyzeClass(k, where + "|" + k.getSimpleName());
                if (v.jkind != JType.RECORD && v.jkind != JType.CLASS && v.jkind != JType.IFACE) {
                    throw unsupported(where, k, "a case of a sealed hierarchy must be a record, a class or an accessor interface");
                }
                vs.add(v);
            }
            vs.sort(Comparator.comparing(v -> v.shape.variantName));
            for (int i = 1; i < vs.size(); i++) {
                if (vs.get(i).shape.variantName.equals(vs.get(i - 1).shape.variantName)) {
                    throw new WireSchemaException("sealed " + c.getName() + " has two cases named '" + vs.get(i).shape.variantName
                            + "' (" + vs.get(i - 1).raw.getName() + ", " + vs.get(i).raw.getName() + "); rename one with @WireName");
                }
            }
            t.variants = vs.toArray(JType[]::new);
            s.variants = vs.stream().map(v -> v.shape).toArray(Shape[]::new);
            return t;
        }

        private void collectCases(Class<?> c, List<Class<?>> out, String where) {
            Class<?>[] permitted = c.getPermittedSubclasses();
            if (permitted == null || permitted.length == 0) throw unsupported(where, c, "a sealed type with no permitted cases");
            for (Class<?> p : permitted) {
                if (p.isSealed()) collectCases(p, out, where);
                else if (!out.contains(p)) out.add(p);
            }
        }

        private JType analyzeStruct(Class<?> c, String where) {
            int jkind = c.isRecord() ? JType.RECORD : c.isInterface() ? JType.IFACE : JType.CLASS;
            JType t = new JType(jkind, c);
            Shape s = new Shape(Shape.STRUCT);
            t.shape = s;
            s.variantName = variantName(c);
            local.put(c, t);
            freshShapes.add(s);
            freshTypes.add(t);
            Schema.class.getModule().addReads(c.getModule());
            MethodHandles.Lookup lookup = lookupFor(c);
            List<JType.JField> fs = new ArrayList<>();
            switch (jkind) {
                case JType.RECORD -> {
                    RecordComponent[] rc = c.getRecordComponents();
                    for (int i = 0; i < rc.length; i++) {
                        RecordComponent comp = rc[i];
                        String name = comp.getName();
                        JType.JField f = new JType.JField(name, analyze(comp.getGenericType(), c.getName() + "." + name), c.getName() + "." + name);
                        f.componentIndex = i;
                        f.getter = handle(() -> lookup.unreflect(comp.getAccessor()));
                        fs.add(f);
                    }
                }
                case JType.CLASS -> {
                    for (Class<?> k = c; k != null && k != Object.class; k = k.getSuperclass()) {
                        for (Field fd : k.getDeclaredFields()) {
                            int m = fd.getModifiers();
                            if (Modifier.isStatic(m) || Modifier.isTransient(m) || fd.isSynthetic()) continue;
                            String name = fd.getName();
                            String w = k.getName() + "." + name;
                            JType.JField f = new JType.JField(name, analyze(fd.getGenericType(), w), w);
                            f.getter = handle(() -> lookup.unreflectGetter(fd));
                            f.setter = handle(() -> {
                                if (Modifier.isFinal(m)) fd.setAccessible(true);
                                return lookup.unreflectSetter(fd);
                            });
                            fs.add(f);
                        }
                    }
                }
                default -> {
                    for (Method md : c.getMethods()) {
                        int m = md.getModifiers();
                        if (Modifier.isStatic(m) || !Modifier.isAbstract(m)) continue;
                        String name = md.getName();
                        if (md.getParameterCount() == 0 && (name.equals("hashCode") || name.equals("toString"))) continue;
                        if (md.getParameterCount() != 0 || md.getReturnType() == void.class) {
                            throw new WireSchemaException("interface " + c.getName() + " is not an accessor interface: method "
                                    + md + " takes arguments or returns void (accessors are no-argument, non-void methods; "
                                    + "give other methods a default body)");
                        }
                        boolean dup = false;
                        for (JType.JField f : fs) dup |= f.name.equals(name);
                        if (dup) continue; // the same accessor inherited twice
                        String w = c.getName() + "." + name + "()";
                        JType.JField f = new JType.JField(name, analyze(md.getGenericReturnType(), w), w);
                        f.getter = handle(() -> lookup.unreflect(md));
                        fs.add(f);
                    }
                }
            }
            fs.sort(Comparator.comparing(f -> f.name));
            for (int i = 1; i < fs.size(); i++) {
                if (fs.get(i).name.equals(fs.get(i - 1).name)) {
                    throw new WireSchemaException(c.getName() + " has two fields named '" + fs.get(i).name + "' ("
                            + fs.get(i - 1).where + ", " + fs.get(i).where + ")");
                }
            }
            for (JType.JField f : fs) {
                if (f.getter != null) {
                    Class<?> rt = f.type.jkind == JType.PRIM ? f.type.raw : Object.class;
                    f.getter = f.getter.asType(MethodType.methodType(rt, Object.class));
                }
                if (f.setter != null) {
                    Class<?> rt = f.type.jkind == JType.PRIM ? f.type.raw : Object.class;
                    f.setter = f.setter.asType(MethodType.methodType(void.class, Object.class, rt));
                }
            }
            t.fields = fs.toArray(JType.JField[]::new);
            s.fields = new Shape.Field[fs.size()];
            for (int i = 0; i < fs.size(); i++) s.fields[i] = new Shape.Field(fs.get(i).name, fs.get(i).type.shape);
            return t;
        }

        private String variantName(Class<?> c) {
            boolean isCase = false;
            List<Class<?>> supers = new ArrayList<>(Arrays.asList(c.getInterfaces()));
            if (c.getSuperclass() != null) supers.add(c.getSuperclass());
            for (Class<?> sup : supers) {
                if (sup.isSealed()) isCase = true;
            }
            if (!isCase) return null;
            WireName n = c.getAnnotation(WireName.class);
            if (n != null && !isIdentifier(n.value())) {
                // a name goes into the canonical description (docs/wire-format.md §5: a Java identifier)
                throw new WireSchemaException("@WireName(\"" + n.value() + "\") of " + c.getName() + " is not a Java identifier");
            }
            return n != null ? n.value() : c.getSimpleName();
        }

        void finish() {
            Fingerprints.assign(freshShapes);
            Map<Shape, Shape> canon = intern(freshShapes);
            for (JType t : freshTypes) {
                t.shape = canon.getOrDefault(t.shape, t.shape);
                t.shape.local = true;
            }
            for (Map.Entry<Class<?>, JType> e : local.entrySet()) TYPES.putIfAbsent(e.getKey(), e.getValue());
            LISTS.putAll(localLists);
            GENERICS.putAll(localGenerics);
            ARRAYS.putAll(localArrays);
        }
    }

    interface HandleMaker {
        MethodHandle make() throws ReflectiveOperationException;
    }

    private static MethodHandle handle(HandleMaker m) {
        try {
            return m.make();
        } catch (ReflectiveOperationException | RuntimeException e) {
            if (e instanceof WireSchemaException w) throw w;
            return null; // reported when the accessor is actually needed (writing or materializing)
        }
    }

    static MethodHandles.Lookup lookupFor(Class<?> c) {
        try {
            return MethodHandles.privateLookupIn(c, MethodHandles.lookup());
        } catch (IllegalAccessException e) {
            return MethodHandles.publicLookup();
        }
    }

    /** Whether {@code s} is a Java identifier's spelling (a letter, '_' or '$', then letters, digits, '_' or '$'). */
    static boolean isIdentifier(String s) {
        if (s.isEmpty() || !Character.isJavaIdentifierStart(s.codePointAt(0))) return false;
        return s.codePoints().skip(1).allMatch(Character::isJavaIdentifierPart) && s.codePoints().noneMatch(Character::isIdentifierIgnorable);
    }

    static WireSchemaException inaccessible(Class<?> c, String what) {
        return new WireSchemaException("cannot access " + what + " of " + c.getName() + ": open package "
                + c.getPackageName() + " to module dev.verbatim.wire (opens " + c.getPackageName() + " to dev.verbatim.wire;)");
    }

    private static WireSchemaException unsupported(String where, Type t, String why) {
        return new WireSchemaException("Verbatim cannot carry " + where + " of type " + t.getTypeName() + ": " + why);
    }
}
