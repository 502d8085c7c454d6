package dev.verbatim.wire;

import java.lang.foreign.MemorySegment;
import java.util.AbstractList;
import java.util.List;

import static dev.verbatim.wire.MessageDescriptor.*;

/**
 * A validated message: read its root through a zero-copy view ({@link #view}) or copy it to heap objects
 * ({@link #materialize}). Every read through a view stays inside the message and re-checks what it must
 * (reference range, target type), so a message whose memory changes after validation (a shared-memory
 * peer scribbling) yields at worst a {@link WireFormatException}, never a read outside the message.
 *
 * <p>Thread-safe for reads. Views are valid while the message's memory is.
 */
public final class Message {
    final MemorySegment seg;
    final int objects;
    final long tail;
    final long objTable;
    final Shape[] typeShapes;

    Message(MemorySegment seg, int objects, long tail, long objTable, Shape[] typeShapes) {
        this.seg = seg;
        this.objects = objects;
        this.tail = tail;
        this.objTable = objTable;
        this.typeShapes = typeShapes;
    }

    /** Number of objects in the message (0 when the root is null). */
    public int objectCount() { return objects; }

    /** Length of the message in bytes. */
    public long byteSize() { return seg.byteSize(); }

    /** The structural fingerprint of the root's type, or 0 for a null root. */
    public long rootFingerprint() { return objects == 0 ? 0 : shapeAt(FIRST_OBJECT_OFFSET).fingerprint; }

    /**
     * A zero-copy view of the root, as an accessor interface (or {@link ArrayView}, {@link CharSequence}).
     * The root's type must be {@code type}'s structure, or an older or newer version of it.
     *
     * @return the view, or null if the root is null
     * @throws WireSchemaException if the root's type cannot be read as {@code type}
     */
    public <T> T view(Class<T> type) {
        if (objects == 0) return null;
        JType r = Schema.of(type);
        Shape w = shapeAt(FIRST_OBJECT_OFFSET);
        if (r.jkind == JType.SEALED) return type.cast(readRef(0, Binding.of(declaredFor(r, w), r)));
        return type.cast(readRef(0, Binding.of(w, r)));
    }

    /**
     * Copies the graph into heap objects of {@code type} (records, classes, arrays, lists, strings), keeping
     * sharing and cycles (a cycle through records cannot be built and is refused). Only types reachable
     * from {@code type}'s declaration are instantiated.
     */
    public <T> T materialize(Class<T> type) {
        if (objects == 0) return null;
        JType r = Schema.of(type);
        Shape w = shapeAt(FIRST_OBJECT_OFFSET);
        Binding b = Binding.of(r.jkind == JType.SEALED ? declaredFor(r, w) : w, r);
        return type.cast(new Materializer(this).run(0, b));
    }

    /** For a sealed reader type: the writer's sealed shape is the reader's if the fingerprints agree. */
    private Shape declaredFor(JType r, Shape w) {
        if (r.shape.accepts(w)) return r.shape;
        throw new WireSchemaException("the root is a " + w.displayName() + ", not a case of " + r.raw.getName());
    }

    // ---------------------------------------------------------------- support for views and the materializer

    Shape shapeAt(long off) {
        Shape s = WireReader.shapeOf(seg.get(I32, off), typeShapes);
        if (s == null) throw changed(off, "unknown type id");
        return s;
    }

    static WireFormatException changed(long at, String what) {
        return new WireFormatException(at, "message changed after validation", what);
    }

    /** The offset of object {@code r}, checked to be in the message with room for {@code minSize} bytes. */
    long objectOffset(int r, long minSize) {
        if (Integer.compareUnsigned(r, objects) >= 0) throw changed(-1, "reference " + Integer.toUnsignedString(r) + " out of range");
        long o = Integer.toUnsignedLong(seg.get(I32, objTable + 4L * r));
        if (o < HEADER_LENGTH || o > tail - minSize || (o & 7) != 0) throw changed(objTable + 4L * r, "object offset out of range");
        return o;
    }

    /** Called by generated views: the offset of object {@code r}, which must be of the shape with {@code serial}. */
    long structAt(int r, int serial, int size) {
        long o = objectOffset(r, size);
        Shape s = shapeAt(o);
        if (s.serial != serial) throw changed(o, "object of the wrong type");
        return o;
    }

    /** Called by generated views for references that are not plain struct views. */
    Object readRef(int r, int bindingId) {
        return r == NULL_REF ? null : readRef(r, Binding.byId(bindingId));
    }

    /** Called by generated views: an enum constant from its ordinal. */
    Object enumAt(int ordinal, int bindingId) {
        if (ordinal == NULL_REF) return null;
        Object[] values = Binding.byId(bindingId).enumValues;
        if (ordinal < 0 || ordinal >= values.length) throw changed(-1, "enum ordinal out of range");
        return values[ordinal];
    }

    Object readRef(int r, Binding b) {
        if (r == NULL_REF) return null;
        JType t = b.r;
        switch (t.jkind) {
            case JType.IFACE -> {
                long o = objectOffset(r, b.w.objectSize);
                Shape s = shapeAt(o);
                if (s != b.w) throw changed(o, "object of the wrong type");
                return newView(b, o);
            }
            case JType.SEALED -> {
                long o = objectOffset(r, 4);
                Binding vb = b.variantFor(shapeAt(o));
                if (vb == null) throw changed(o, "object of the wrong type");
                if (vb.r.jkind == JType.IFACE) {
                    objectOffset(r, vb.w.objectSize);
                    return newView(vb, o);
                }
                return new Materializer(this).run(r, vb);
            }
            case JType.CHARSEQ -> {
                long o = checkedBuiltin(r, T_STRING);
                return new StringView(seg, o + STRING_DATA_OFFSET, stringHeader(o));
            }
            case JType.ARRAY_VIEW -> {
                long o = checkedBuiltin(r, b.w.builtinId);
                int n = arrayLength(o, Shape.PRIM_SIZES[b.w.element.kind]);
                return ArrayViews.of(b.w.element.kind, seg.asSlice(o + ARRAY_DATA_OFFSET, (long) n * Shape.PRIM_SIZES[b.w.element.kind]).asReadOnly());
            }
            case JType.LIST -> {
                if (b.element.r.jkind == JType.IFACE || b.element.r.jkind == JType.CHARSEQ) return listView(r, b);
                return new Materializer(this).run(r, b);
            }
            case JType.REF_ARRAY -> {
                if (b.element.r.jkind == JType.IFACE) {
                    List<?> l = listView(r, b);
                    Object[] a = (Object[]) java.lang.reflect.Array.newInstance(t.element.raw, l.size());
                    for (int i = 0; i < a.length; i++) a[i] = l.get(i);
                    return a;
                }
                return new Materializer(this).run(r, b);
            }
            default -> {
                return new Materializer(this).run(r, b);
            }
        }
    }

    private Object newView(Binding b, long o) {
        try {
            java.lang.invoke.MethodHandle ctor = b.viewCtor;
            if (ctor == null) ctor = Codegen.viewCtor(b);
            return ctor.invokeExact(this, seg, o);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /** Offset of object {@code r} that must have the built-in type {@code tid}. */
    long checkedBuiltin(int r, int tid) {
        long o = objectOffset(r, 8);
        if (seg.get(I32, o) != tid) throw changed(o, "object of the wrong type");
        return o;
    }

    int stringHeader(long o) {
        int h = seg.get(I32, o + STRING_LENGTH_OFFSET);
        long chars = h & ~STRING_UTF16_BIT;
        long bytes = chars * ((h & STRING_UTF16_BIT) != 0 ? 2 : 1);
        if (o + STRING_DATA_OFFSET + bytes > tail) throw changed(o, "string length out of range");
        return h;
    }

    int arrayLength(long o, int elemSize) {
        int n = seg.get(I32, o + ARRAY_LENGTH_OFFSET);
        if (n < 0 || o + ARRAY_DATA_OFFSET + (long) n * elemSize > tail) throw changed(o, "array length out of range");
        return n;
    }

    /** A lazily resolving list over an array or list object whose elements are references. */
    private List<Object> listView(int r, Binding b) {
        long o = objectOffset(r, 8);
        Shape s = shapeAt(o);
        if (s != b.w) throw changed(o, "object of the wrong type");
        int n = arrayLength(o, 4);
        Binding eb = b.element;
        long base = o + ARRAY_DATA_OFFSET;
        return new AbstractList<>() {
            @Override public Object get(int i) {
                java.util.Objects.checkIndex(i, n);
                return readRef(seg.get(I32, base + 4L * i), eb);
            }

            @Override public int size() { return n; }
        };
    }
}
