package dev.verbatim.wire;

/**
 * The materializer of one {@link Binding}: how the {@link Materializer} copies the objects of that (writer shape,
 * reader type) pair to the heap. One instance per binding
 * (made on first use, kept in {@link Binding#materializer}), which is also the key of the materializer's memo, so
 * an object read twice with one binding is one heap object. Records and classes get a generated subclass ({@link BindingMaterializerGenerator})
 * with the field reads, the constructor and the setters of the type inlined; every other kind (strings, boxes, arrays, lists, views, sealed types, enums) is this class, read by the materializer's
 * generic code.
 *
 * <p>Thread-safe: immutable once made (the element and variant codes are resolved in the constructor).
 */
class BindingMaterializer {
    /** Kinds, from the reader type: what the materializer does with an object of this binding. */
    static final int VALUE = 0, VIEW = 1, RECORD = 2, CLASS = 3, REF_ARRAY = 4, LIST = 5, SEALED = 6, ENUM = 7, STRING = 8,
            MAP = 9, SET = 10, OPTIONAL = 11, SLOT = 12;

    private static final Object LOCK = new Object();

    final Binding b;
    /** The writer's shape: every object read with this code has exactly this shape (checked against the object table). */
    final Shape w;
    final int kind;
    /** The binding id, for the memo of objects read with several bindings. */
    final int id;
    /** The materializer's memo key: {@code id + 1} (0 is "not read yet"). */
    final int key;
    /** RECORD: true if a field may hold a record (directly or as a sealed case), so the record is built after it. */
    final boolean recordChildren;
    /** RECORD: exactly one field may hold a record. */
    final boolean oneRecordField;
    /** REF_ARRAY, LIST, SET, OPTIONAL: the elements' code; MAP: the keys'. */
    final BindingMaterializer element;
    /** MAP: the values' code. */
    final BindingMaterializer mapValue;
    /** SEALED: the code of each writer case, aligned with {@code w.variants}. */
    final BindingMaterializer[] variants;
    /** REF_ARRAY: the component type of the heap array. */
    final Class<?> component;

    BindingMaterializer(Binding b) {
        this.b = b;
        this.w = b.w;
        this.id = b.id;
        this.key = b.id + 1;
        this.kind = kindOf(b.r);
        int recordFields = kind == RECORD ? recordFields(b) : 0;
        this.recordChildren = recordFields > 0;
        this.oneRecordField = recordFields == 1;
        this.element = kind == REF_ARRAY || kind == LIST || kind == MAP || kind == SET || kind == OPTIONAL ? of(b.element) : null;
        this.mapValue = kind == MAP ? of(b.mapValue) : null;
        if (kind == SEALED) {
            variants = new BindingMaterializer[b.variants.length];
            for (int i = 0; i < variants.length; i++) variants[i] = of(b.variants[i]);
        } else {
            variants = null;
        }
        this.component = kind == REF_ARRAY ? b.r.raw.getComponentType() : null;
    }

    /** The code of binding {@code b}, made once (generated for records and classes). */
    static BindingMaterializer of(Binding b) {
        BindingMaterializer c = b.materializer;
        if (c != null) return c;
        synchronized (LOCK) {
            c = b.materializer;
            if (c != null) return c;
            int k = kindOf(b.r);
            BindingMaterializer made;
            if (k == RECORD || k == CLASS) {
                try {
                    made = BindingMaterializerGenerator.generate(b);
                } catch (WireSchemaException e) {
                    made = new Broken(b, e); // reported when an object of the type is met, as before
                }
            } else {
                made = new BindingMaterializer(b);
            }
            b.materializer = made;
            return made;
        }
    }

    static int kindOf(JType t) {
        return switch (t.jkind) {
            case JType.STRING -> STRING;
            case JType.BOXED, JType.PRIM_ARRAY -> VALUE;
            case JType.CHARSEQ, JType.ARRAY_VIEW, JType.IFACE -> VIEW;
            case JType.RECORD -> RECORD;
            case JType.CLASS -> CLASS;
            case JType.REF_ARRAY -> REF_ARRAY;
            case JType.LIST -> LIST;
            case JType.MAP -> MAP;
            case JType.SET -> SET;
            case JType.OPTIONAL -> OPTIONAL;
            case JType.SEALED -> SEALED;
            case JType.ENUM -> ENUM;
            case JType.REF -> SLOT;
            default -> throw new IllegalStateException("not materialized: " + t);
        };
    }

    /** True if a reference of binding {@code c} may name a record (which a record holding it must be built after). */
    static boolean mayBeRecord(Binding c) {
        if (c == null) return false;
        if (c.r.jkind == JType.OPTIONAL) return mayBeRecord(c.element);
        if (c.r.jkind == JType.RECORD) return true;
        if (c.r.jkind != JType.SEALED) return false;
        for (Binding v : c.variants) if (v.r.jkind == JType.RECORD) return true;
        return false;
    }

    /** The fields of a struct binding that may hold a record. */
    static int recordFields(Binding b) {
        int n = 0;
        for (int i = 0; i < b.children.length; i++) if (b.source[i] != null && mayBeRecord(b.children[i])) n++;
        return n;
    }

    /** SEALED: the code of the case of shape {@code actual}, or null if it is not one. */
    final BindingMaterializer variantFor(Shape actual) {
        Shape[] vs = w.variants;
        for (int i = 0; i < vs.length; i++) if (vs[i] == actual) return variants[i];
        return null;
    }

    // ---------------------------------------------------------------- generated for records and classes

    /** CLASS: a new instance (no-argument constructor). */
    Object create() { throw new IllegalStateException("not a class: " + b); }

    /** CLASS: sets the fields of {@code target} from the object at {@code o}. */
    void fill(Materializer m, Object target, long o) { throw new IllegalStateException("not a class: " + b); }

    /**
     * RECORD: finds the first field whose record is not built yet and hands it to {@link Materializer#descend}
     * (which pushes it, or refuses a cycle); false when every record the object holds is built.
     */
    boolean descend(Materializer m, long o) { return false; }

    /** RECORD: the record of the object at {@code o}, whose records are built. */
    Object construct(Materializer m, long o) { throw new IllegalStateException("not a record: " + b); }

    /** The code of a record or class that cannot be materialized (no constructor, a field not accessible): says why when used. */
    static final class Broken extends BindingMaterializer {
        private final WireSchemaException why;

        Broken(Binding b, WireSchemaException why) {
            super(b);
            this.why = why;
        }

        private WireSchemaException fail() {
            return new WireSchemaException(why.getMessage(), why.getCause());
        }

        @Override Object create() { throw fail(); }

        @Override void fill(Materializer m, Object target, long o) { throw fail(); }

        @Override boolean descend(Materializer m, long o) { throw fail(); }

        @Override Object construct(Materializer m, long o) { throw fail(); }
    }

    @Override
    public String toString() { return "BindingMaterializer[" + b + "]"; }
}
