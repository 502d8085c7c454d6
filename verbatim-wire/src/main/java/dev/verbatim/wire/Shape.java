package dev.verbatim.wire;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * The structure of one wire type, independent of the Java class it came from: a record and an accessor
 * interface of the same structure have equal shapes (and equal fingerprints). Shapes are interned by
 * fingerprint in the {@link Schema}'s registry, so identity comparison is shape equality.
 *
 * <p>Immutable once built ({@link #freeze}); thread-safe after publication through the registry.
 */
final class Shape {
    // Kinds. Primitive kinds only occur as field or element types.
    static final int BOOL = 0, I8 = 1, U16 = 2, I16 = 3, I32 = 4, I64 = 5, F32 = 6, F64 = 7,
            STRING = 8, BOX = 9, ENUM = 10, ARRAY = 11, LIST = 12, STRUCT = 13, SEALED = 14, MAP = 15, SET = 16, OPTIONAL = 17,
            // REF: a reference slot ({@link ByReference}): an i32 index into the table beside the message, -1 null; not an object
            REF = 18;

    static final String[] PRIM_NAMES = {"bool", "i8", "u16", "i16", "i32", "i64", "f32", "f64"};
    static final int[] PRIM_SIZES = {1, 1, 2, 2, 4, 8, 4, 8};

    static final Shape[] PRIMS = new Shape[8];
    static final Shape STRING_SHAPE;
    /** The one shape of every reference slot, description {@code ref}: what the slot's object is, the reader's declared type says. */
    static final Shape REF_SHAPE;
    static final Shape[] PRIM_ARRAYS = new Shape[8];
    static final Shape[] BOXES = new Shape[8];
    /** Built-in shapes by type id (index 1..17, and the value types 18..27 of {@link ValueTypes}), null elsewhere. */
    static final Shape[] BUILTINS = new Shape[MessageDescriptor.FIRST_TABLE_TYPE_ID];

    static {
        for (int k = BOOL; k <= F64; k++) {
            Shape p = new Shape(k);
            p.canonical = PRIM_NAMES[k];
            PRIMS[k] = p;
        }
        REF_SHAPE = new Shape(REF);
        REF_SHAPE.canonical = "ref";
        STRING_SHAPE = new Shape(STRING);
        STRING_SHAPE.canonical = "string";
        STRING_SHAPE.builtinId = MessageDescriptor.T_STRING;
        BUILTINS[MessageDescriptor.T_STRING] = STRING_SHAPE;
        for (int k = BOOL; k <= F64; k++) {
            Shape a = new Shape(ARRAY);
            a.element = PRIMS[k];
            a.canonical = "array(" + PRIM_NAMES[k] + ")";
            a.builtinId = MessageDescriptor.T_BOOLEAN_ARRAY + k;
            PRIM_ARRAYS[k] = a;
            BUILTINS[a.builtinId] = a;
            Shape b = new Shape(BOX);
            b.element = PRIMS[k];
            b.canonical = "box(" + PRIM_NAMES[k] + ")";
            b.builtinId = MessageDescriptor.T_BOOLEAN + k;
            BOXES[k] = b;
            BUILTINS[b.builtinId] = b;
        }
        ValueTypes.define(BUILTINS);
        for (Shape s : BUILTINS) {
            if (s != null) s.freezeBuiltin();
        }
        for (Shape p : PRIMS) p.freezeBuiltin();
        REF_SHAPE.freezeBuiltin();
    }

    /** One field of a struct: its name, its type and, once laid out, its offset in the object. */
    static final class Field {
        final String name;
        Shape type;
        int offset = -1;

        Field(String name, Shape type) {
            this.name = name;
            this.type = type;
        }

        /** Bytes the field takes in its object: the primitive size, or 4 for references and enum ordinals. */
        int size() { return type.kind <= F64 ? PRIM_SIZES[type.kind] : 4; }

        boolean isReference() { return type.isReference(); }
    }

    final int kind;
    /** STRUCT: the variant name when this struct is a case of a sealed hierarchy, else null. */
    String variantName;
    /** STRUCT: fields sorted by name. */
    Field[] fields;
    /** ARRAY, LIST, SET, OPTIONAL: element type; MAP: the key type; BOX: the primitive. */
    Shape element;
    /** MAP: the value type. */
    Shape mapValue;
    /** SEALED: variants sorted by variant name. */
    Shape[] variants;
    /** ENUM: constant names in ordinal order. */
    String[] constants;

    String canonical;
    long fingerprint;
    /** Built-in type id, or 0 when the type travels in the type table. */
    int builtinId;

    // Layout (STRUCT): fields in layout order, the object size (unpadded).
    Field[] layoutOrder;
    int objectSize;
    /** Offsets of reference fields and their shapes, in layout order: what the validator checks. */
    int[] refOffsets;
    Shape[] refShapes;
    int[] boolOffsets;
    int[] enumOffsets;
    int[] enumCounts;
    /** Offsets of reference slot fields ({@link #REF}), in layout order: checked against the message's table. */
    int[] slotOffsets;

    /** STRUCT: the validator of runs of this shape ({@link WireReader}), made on first use. */
    volatile StructValidator validator;
    /** True once a Java type of this process has this shape (set by {@link Schema}); false for shapes only learned. */
    volatile boolean local;

    /** Serial number unique per interned shape, for per-message lookup tables. */
    int serial = -1;
    private boolean frozen;

    Shape(int kind) { this.kind = kind; }

    boolean isPrimitive() { return kind <= F64; }

    /** True if a field of this type holds a reference (u32 object index) rather than a value. */
    boolean isReference() { return kind != ENUM && kind != REF && kind > F64; }

    /** True if values of this type are written in place as an i32 that is not an object index: an enum ordinal or a reference slot. */
    boolean isInline() { return kind == ENUM || kind == REF; }

    /** A struct or sealed type of the type table (the built-in value structs are leaves, like strings). */
    boolean isComposite() { return kind == STRUCT && builtinId == 0 || kind == SEALED; }

    boolean isPrimitiveArray() { return kind == ARRAY && element.isPrimitive(); }

    /** Where an array's elements start. */
    int arrayDataOffset() { return MessageDescriptor.arrayDataOffset(elementSize()); }

    /** A map or set object: {@code [u32 n][n keys][n values (maps)][n u32 order]}, 4-byte entries ({@link KeyOrder}). */
    boolean isKeyed() { return kind == MAP || kind == SET; }

    /** Bytes per entry of a map or set: key, value (maps) and order index, 4 bytes each. */
    int keyedEntrySize() { return kind == MAP ? 12 : 8; }

    /** Element size in bytes for arrays and lists (4 for references). */
    int elementSize() {
        Shape e = element;
        return e.isPrimitive() ? PRIM_SIZES[e.kind] : 4;
    }

    /** True if an object of shape {@code actual} may stand where a reference of this shape is declared. */
    boolean accepts(Shape actual) {
        if (actual == this) return true;
        if (kind == OPTIONAL) return element.accepts(actual);
        if (kind == SEALED) {
            for (Shape v : variants) if (v == actual) return true;
        }
        return false;
    }

    Field field(String name) {
        for (Field f : fields) if (f.name.equals(name)) return f;
        return null;
    }

    private void freezeBuiltin() {
        fingerprint = Fingerprints.of(canonical);
        frozen = true;
    }

    /** Computes the layout of a struct; called once when the shape is interned. */
    void freeze() {
        if (frozen) return;
        frozen = true;
        if (kind != STRUCT) return;
        List<Field> order = new ArrayList<>(Arrays.asList(fields));
        order.sort(Comparator.comparingInt(Field::size).reversed().thenComparing(f -> f.name));
        List<Field> placed = new ArrayList<>(order.size());
        int offset = 0; // sizes descending: every field lands aligned with no hole before it
        for (Field f : order) {
            int sz = f.size();
            offset = (offset + sz - 1) & -sz;
            f.offset = offset;
            offset += sz;
            placed.add(f);
        }
        layoutOrder = placed.toArray(Field[]::new);
        objectSize = offset;
        int refs = 0, bools = 0, enums = 0, slots = 0;
        for (Field f : layoutOrder) {
            if (f.isReference()) refs++;
            else if (f.type.kind == BOOL) bools++;
            else if (f.type.kind == ENUM) enums++;
            else if (f.type.kind == REF) slots++;
        }
        refOffsets = new int[refs];
        refShapes = new Shape[refs];
        boolOffsets = new int[bools];
        enumOffsets = new int[enums];
        enumCounts = new int[enums];
        slotOffsets = new int[slots];
        refs = bools = enums = slots = 0;
        for (Field f : layoutOrder) {
            if (f.isReference()) {
                refOffsets[refs] = f.offset;
                refShapes[refs++] = f.type;
            } else if (f.type.kind == BOOL) {
                boolOffsets[bools++] = f.offset;
            } else if (f.type.kind == ENUM) {
                enumOffsets[enums] = f.offset;
                enumCounts[enums++] = f.type.constants.length;
            } else if (f.type.kind == REF) {
                slotOffsets[slots++] = f.offset;
            }
        }
    }

    /** True if objects of this shape hold reference slots themselves (fields, elements, map values): checked after the walk. */
    boolean holdsSlots() {
        return kind == STRUCT ? slotOffsets != null && slotOffsets.length > 0
                : (kind == ARRAY || kind == LIST) && element.kind == REF || kind == MAP && mapValue.kind == REF;
    }

    /** A short human name: the variant name, or the canonical description cut to a readable length. */
    String displayName() {
        if (variantName != null) return variantName;
        String c = canonical == null ? "?" : canonical;
        return c.length() <= 60 ? c : c.substring(0, 57) + "...";
    }

    @Override
    public String toString() { return displayName() + "#" + Fingerprints.hex(fingerprint); }
}
