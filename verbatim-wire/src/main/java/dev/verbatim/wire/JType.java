package dev.verbatim.wire;

import java.lang.invoke.MethodHandle;

/**
 * How a Java type carries a {@link Shape}: the Java side of a binding (a record, a class, an accessor
 * interface, an enum, a list, an array...). One shape may have several Java types (a record and a view
 * interface); every Java type has exactly one shape.
 *
 * <p>Built under the {@link Schema} lock, immutable after; the lazily generated code fields are
 * published through volatile writes.
 */
final class JType {
    static final int PRIM = 0, BOXED = 1, STRING = 2, CHARSEQ = 3, ENUM = 4, PRIM_ARRAY = 5, ARRAY_VIEW = 6,
            REF_ARRAY = 7, LIST = 8, RECORD = 9, CLASS = 10, IFACE = 11, SEALED = 12, MAP = 13, SET = 14, OPTIONAL = 15,
            // REF: an interface extending ByReference: a reference slot, its object entered in the message's table
            REF = 16;

    /** One accessor of a record, class or interface, aligned with the shape's fields (sorted by name). */
    static final class JField {
        final String name;
        final JType type;
        /** (Object)T: reads the field, record component or interface accessor. */
        MethodHandle getter;
        /** (Object,T)void: sets a class field; null for records and interfaces. */
        MethodHandle setter;
        /** Record component position, or -1. */
        int componentIndex = -1;
        final String where;

        JField(String name, JType type, String where) {
            this.name = name;
            this.type = type;
            this.where = where;
        }
    }

    final int jkind;
    final Class<?> raw;
    Shape shape;
    /** REF_ARRAY, LIST, SET, OPTIONAL: the element's Java type; MAP: the key's. */
    JType element;
    /** MAP: the value's Java type. */
    JType mapValue;
    /** RECORD, CLASS, IFACE: fields aligned with {@code shape.fields}. */
    JField[] fields;
    /** SEALED: Java classes of the cases, aligned with {@code shape.variants}. */
    JType[] variants;
    /** ENUM: the constants in ordinal order. */
    Object[] enumConstants;
    /**
     * RECORD of a value class ({@link JavaValues}): builds the value from its fields in name order (instead of a
     * record's canonical constructor); null for records.
     */
    MethodHandle factory;

    // Generated code, created on first use.
    volatile StructWriter writer;
    /** The binding used for the last root read as this type: messages of one stream repeat it. */
    volatile Binding lastRoot;

    /** This type's index in the registry of every JType made: the writer queues types as ints (no GC barrier per object). */
    final int serial;

    private static final Object REGISTRY_LOCK = new Object();
    private static volatile JType[] registry = new JType[256];
    private static int registered;

    JType(int jkind, Class<?> raw) {
        this.jkind = jkind;
        this.raw = raw;
        synchronized (REGISTRY_LOCK) {
            JType[] r = registry;
            if (registered == r.length) r = java.util.Arrays.copyOf(r, r.length * 2);
            serial = registered++;
            r[serial] = this;
            registry = r;
        }
    }

    /** The type with this {@link #serial}. */
    static JType bySerial(int serial) {
        return registry[serial];
    }

    /** Written in place as an i32 that is not an object index: an enum ordinal or a reference slot. */
    boolean isInline() { return jkind == ENUM || jkind == REF; }

    boolean isComposite() { return jkind >= RECORD && jkind <= SEALED; }

    @Override
    public String toString() { return raw.getName(); }
}
