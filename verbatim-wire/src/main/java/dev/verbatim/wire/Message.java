package dev.verbatim.wire;

import dev.verbatim.wire.internal.WireInternals;

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
    static {
        WireInternals.install(new FileSupport()); // the file package's access to what is package-private here
    }

    final MemorySegment seg;
    final int objects;
    final long tail;
    final long objTable;
    /**
     * The object table as validated, copied out of the message: each object's type id and offset are read here,
     * never again from the message's memory, so they hold whatever happens to that memory after validation.
     */
    final long[] entries;
    /** Shapes by type id: built-ins below 64, the type table from 64. */
    final Shape[] ids;
    /**
     * What the message's memory belongs to (a buffer, a file), held only so that it stays reachable while the
     * message or any view of it is: never read. Null when the caller owns the memory's lifetime itself.
     */
    @SuppressWarnings("unused")
    private Object owner;

    /**
     * The longest run of one struct type the validator saw: objects {@code runFirst .. runFirst + runCount - 1}, all of
     * shape {@code runShape}, at {@code runBase + k * align8(runShape.objectSize)} (what their validated entries say, in closed form). A view
     * following a reference into it computes the target's offset instead of loading the entry: one load less on the
     * path from one object of a linked list to the next. No run: {@code runCount} 0.
     */
    private final Shape runShape;
    private final int runFirst;
    private final int runCount;
    private final long runBase;
    /**
     * {@code runBase - runFirst * align8(runShape.objectSize)}: object r of the run is at {@code runOrigin + r * step},
     * so the offset of the next node hangs on the reference by a shift and an add (its checks are branches beside it).
     */
    private final long runOrigin;
    /**
     * True if, when the message was validated, every reference named an object after the one holding it: the graph had
     * no cycle then. A cycle met later (a record cycle the materializer cannot build) is then a change made after
     * validation ({@link WireFormatException}), not a property of the sender's graph ({@link WireSchemaException}).
     */
    final boolean forwardOnly;
    /** Validated under {@link WireLimits#recordsOnly()}: the materializer refuses classes. Set by the reader before it returns this. */
    boolean recordsOnly;
    /** The table of references the message came with ({@link ByReference}), or null. Set by the reader before it returns this. */
    ByReference.Source references;
    /** Builds the value types read through views ({@link Materializer#forValues}): made on first use, a benign race. */
    private Materializer values;

    /** Keeps {@code owner} reachable as long as this message or a view of it is; set once, before the message is handed out. */
    Message owned(Object owner) {
        this.owner = owner;
        return this;
    }

    /** A message whose objects {@code runFirst .. runFirst + runCount - 1} are a run of {@code runShape} from {@code runBase}. */
    Message(MemorySegment seg, int objects, long tail, long objTable, long[] entries, Shape[] ids,
            Shape runShape, int runFirst, int runCount, long runBase, boolean forwardOnly) {
        this.forwardOnly = forwardOnly;
        this.runShape = runShape;
        this.runFirst = runFirst;
        this.runCount = runShape == null ? 0 : runCount;
        this.runBase = runBase;
        this.runOrigin = runShape == null ? 0 : runBase - (long) runFirst * align8(runShape.objectSize);
        this.seg = seg;
        this.objects = objects;
        this.tail = tail;
        this.objTable = objTable;
        this.entries = entries;
        this.ids = ids;
    }

    /** Number of objects in the message (0 when the root is null). */
    public int objectCount() { return objects; }

    /** Length of the message in bytes. */
    public long byteSize() { return seg.byteSize(); }

    /** The structural fingerprint of the root's type, or 0 for a null root. */
    public long rootFingerprint() { return objects == 0 ? 0 : shapeOf(0).fingerprint; }

    /**
     * A zero-copy view of the root, as an accessor interface (or {@link ArrayView}, {@link CharSequence}).
     * The root's type must be {@code type}'s structure, or an older or newer version of it.
     *
     * @return the view, or null if the root is null
     * @throws WireSchemaException if the root's type cannot be read as {@code type}
     */
    public <T> T view(Class<T> type) {
        if (objects == 0) return null;
        Shape w = shapeOf(0);
        ViewRoot last = lastView;
        Binding b;
        if (last != null && last.type == type && last.w == w) {
            b = last.b;
        } else {
            b = rootBinding(w, Schema.of(type));
            lastView = new ViewRoot(type, w, b);
        }
        return type.cast(readRef(0, b));
    }

    /** The binding a root of shape {@code w} is viewed through as {@code type}: what the last {@link #view} call used. */
    private record ViewRoot(Class<?> type, Shape w, Binding b) {}

    /** Messages of one stream are viewed as one type: its binding without a class lookup. Immutable; a benign race. */
    private static ViewRoot lastView;

    /**
     * Copies the graph into heap objects of {@code type} (records, classes, arrays, lists, strings), keeping
     * sharing and cycles (a cycle through records cannot be built and is refused). Only types reachable
     * from {@code type}'s declaration are instantiated.
     */
    public <T> T materialize(Class<T> type) {
        if (objects == 0) return null;
        return type.cast(Materializer.materialize(this, type));
    }

    /**
     * {@link #materialize(Class)} as a generic type: a {@code List<Point>}, {@code Map<String, Integer>},
     * {@code Set<UUID>} root (an {@code ArrayList}, {@code LinkedHashMap}, {@code LinkedHashSet}), or a class.
     */
    public Object materialize(java.lang.reflect.Type type) {
        if (type instanceof Class<?> c) return materialize(c);
        if (objects == 0) return null;
        return new Materializer(this, false).run(0, rootBinding(shapeOf(0), Schema.rootType(type)));
    }

    /**
     * {@link #view(Class)} as a generic type: a {@code Map<String, V>} or {@code Set<T>} root read in place (lookups
     * search the message), a {@code List<V>} of views, or a class.
     */
    public Object view(java.lang.reflect.Type type) {
        if (type instanceof Class<?> c) return view(c);
        if (objects == 0) return null;
        return readRef(0, rootBinding(shapeOf(0), Schema.rootType(type)));
    }

    Binding rootBinding(Shape w, JType r) {
        Binding b = r.lastRoot;
        if (b != null && (b.w == w || r.jkind == JType.SEALED && b.w.accepts(w))) return b;
        b = Binding.of(r.jkind == JType.SEALED ? declaredFor(r, w) : w, r);
        r.lastRoot = b;
        return b;
    }

    /** For a sealed reader type: the writer's sealed shape is the reader's if the fingerprints agree. */
    private Shape declaredFor(JType r, Shape w) {
        if (r.shape.accepts(w)) return r.shape;
        throw new WireSchemaException("the root is a " + w.displayName() + ", not a case of " + r.raw.getName());
    }

    // ---------------------------------------------------------------- support for views and the materializer

    static WireFormatException changed(long at, String what) {
        return new WireFormatException(at, "message changed after validation", what);
    }

    /** The (validated) object table entry of object {@code r}, checked to be in range. */
    long entry(int r) {
        if (Integer.compareUnsigned(r, objects) >= 0) throw changed(-1, "reference " + Integer.toUnsignedString(r) + " out of range");
        return entries[r];
    }

    /** The shape of object {@code r}. */
    Shape shapeOf(int r) {
        Shape s = WireReader.shapeOf(entryType(entry(r)), ids);
        if (s == null) throw changed(objTable + 8L * r + 4, "unknown type id");
        return s;
    }

    /** The offset of object {@code r}, checked to leave room for {@code minSize} bytes before the tables. */
    long objectOffset(int r, long minSize) {
        long o = Integer.toUnsignedLong(entryOffset(entry(r)));
        if (o < HEADER_LENGTH || o > tail - minSize) throw changed(objTable + 8L * r, "object offset out of range");
        return o;
    }

    /** The offset of object {@code r}, which must be of the shape {@code expected} (size included). */
    long objectOffset(int r, Shape expected) {
        long e = entry(r);
        if (WireReader.shapeOf(entryType(e), ids) != expected) throw changed(objTable + 8L * r + 4, "object of the wrong type");
        long o = Integer.toUnsignedLong(entryOffset(e));
        if (o < HEADER_LENGTH || o > tail - expected.objectSize) throw changed(objTable + 8L * r, "object offset out of range");
        return o;
    }

    /**
     * Called by generated views: the offset of object {@code r}, which must be of the shape {@code expected}
     * (a constant of the view's class). The reference {@code r} was read from the message's memory again, so it
     * is checked; the entry is the validated copy, so an object of the expected shape is known to fit there.
     * {@code step} is {@code align8(expected.objectSize)}, a constant of the view's code too, so that the offset of an
     * object of the run is a shift and an add (the run's own step, equal to it when the shapes are, is not needed).
     */
    long structAt(int r, Shape expected, long step) {
        int k = r - runFirst;
        if (Integer.compareUnsigned(k, runCount) < 0 && expected == runShape) return runOrigin + r * step;
        return structAtInTable(r, expected);
    }

    /** {@link #structAt} for an object outside the run: its entry. */
    private long structAtInTable(int r, Shape expected) {
        long[] e = entries;
        if (Integer.compareUnsigned(r, e.length) >= 0) throw changed(-1, "reference " + Integer.toUnsignedString(r) + " out of range");
        long entry = e[r];
        if (WireReader.shapeOf(entryType(entry), ids) != expected) throw changed(objTable + 8L * r + 4, "object of the wrong type");
        return Integer.toUnsignedLong(entryOffset(entry));
    }

    /** Called by generated views for references that are not plain struct views. */
    Object readRef(int r, int bindingId) {
        Binding b = Binding.byId(bindingId);
        if (r == NULL_REF) return b.r.jkind == JType.OPTIONAL ? java.util.Optional.empty() : null;
        return readRef(r, b);
    }

    /**
     * Called by generated views: the string object {@code r} read in place (its header re-checked), null for -1; a short
     * Latin-1 one read in words at once ({@link ShortStringView}).
     */
    CharSequence stringView(int r) {
        if (r == NULL_REF) return null;
        long o = objectOffset(r, Shape.STRING_SHAPE);
        CharSequence s = ShortStringView.read(seg, o, tail);
        return s != null ? s : new StringView(seg, o + STRING_DATA_OFFSET, stringHeader(o));
    }

    /** Called by generated views: an enum constant from its ordinal. */
    Object enumAt(int ordinal, int bindingId) {
        if (ordinal == NULL_REF) return null;
        Binding b = Binding.byId(bindingId);
        if (ordinal < 0 || ordinal >= b.enumValues.length) throw changed(-1, "enum ordinal out of range");
        return b.enumValue(ordinal);
    }

    /** Called by generated views: the object of a reference slot, resolved as the binding's declared type; null for -1. */
    Object slotAt(int index, int bindingId) {
        return slot(index, Binding.byId(bindingId).r.raw);
    }

    /**
     * The object of reference slot {@code index} as {@code declared} ({@link ByReference.Source#resolve}), null for -1;
     * an index outside the table (the memory changed since validation, or no table came) is a {@link WireFormatException}.
     */
    Object slot(int index, Class<?> declared) {
        if (index == NULL_REF) return null;
        ByReference.Source refs = references;
        if (refs == null || index < 0 || index >= refs.size()) throw changed(-1, "reference slot out of range");
        Object o = refs.resolve(index, declared);
        if (!declared.isInstance(o)) {
            throw new WireFormatException(-1, "reference slot names an object of the wrong type",
                    "entry " + index + " is not a " + declared.getName());
        }
        return o;
    }

    Object readRef(int r, Binding b) {
        if (r == NULL_REF) return null;
        JType t = b.r;
        switch (t.jkind) {
            case JType.IFACE -> {
                return newView(b, objectOffset(r, b.w));
            }
            case JType.SEALED -> {
                Binding vb = b.variantFor(shapeOf(r));
                if (vb == null) throw changed(objTable + 8L * r + 4, "object of the wrong type");
                if (vb.r.jkind == JType.IFACE) return newView(vb, objectOffset(r, vb.w));
                return new Materializer(this, true).run(r, vb);
            }
            case JType.CHARSEQ -> {
                return stringView(r);
            }
            case JType.ARRAY_VIEW -> {
                long o = objectOffset(r, b.w);
                int size = Shape.PRIM_SIZES[b.w.element.kind];
                int n = arrayLength(o, b.w);
                return ArrayViews.of(b.w.element.kind, seg.asSlice(o + b.w.arrayDataOffset(), (long) n * size).asReadOnly());
            }
            case JType.LIST -> {
                if (b.element.r.jkind == JType.IFACE || b.element.r.jkind == JType.CHARSEQ) return listView(r, b);
                return new Materializer(this, true).run(r, b);
            }
            case JType.REF_ARRAY -> {
                if (b.element.r.jkind == JType.IFACE) {
                    List<?> l = listView(r, b);
                    Object[] a = (Object[]) java.lang.reflect.Array.newInstance(t.element.raw, l.size());
                    for (int i = 0; i < a.length; i++) a[i] = l.get(i);
                    return a;
                }
                return new Materializer(this, true).run(r, b);
            }
            case JType.MAP -> {
                return KeyedViews.map(this, r, b);
            }
            case JType.SET -> {
                return KeyedViews.set(this, r, b);
            }
            case JType.OPTIONAL -> {
                return java.util.Optional.of(readRef(r, b.element));
            }
            case JType.STRING, JType.BOXED, JType.PRIM_ARRAY -> {
                return HeapValues.readValue(this, r, b); // no graph to copy: no materializer state
            }
            default -> {
                if (t.factory != null && b.w.refOffsets.length == 0) { // a value type with no reference: no graph to copy
                    Materializer v = values;
                    if (v == null) values = v = Materializer.forValues(this);
                    return BindingMaterializer.of(b).construct(v, objectOffset(r, b.w));
                }
                return new Materializer(this, true).run(r, b);
            }
        }
    }

    private Object newView(Binding b, long o) {
        ViewBase p = b.prototype;
        if (p == null) {
            ViewGenerator.viewCtor(b);
            p = b.prototype;
        }
        return p.make(this, seg, o);
    }

    /** The header of the string at {@code o}, checked to fit. */
    int stringHeader(long o) {
        if (o + STRING_DATA_OFFSET > tail) throw changed(o, "string out of range");
        int h = seg.get(I32, o + STRING_LENGTH_OFFSET);
        long chars = h & ~STRING_UTF16_BIT;
        long bytes = chars * ((h & STRING_UTF16_BIT) != 0 ? 2 : 1);
        if (o + STRING_DATA_OFFSET + bytes > tail) throw changed(o, "string length out of range");
        return h;
    }

    /** The length of the array of shape {@code s} at {@code o}, checked to fit. */
    int arrayLength(long o, Shape s) {
        if (o + 4 > tail) throw changed(o, "array out of range");
        int n = seg.get(I32, o + ARRAY_LENGTH_OFFSET);
        if (n < 0 || o + s.arrayDataOffset() + (long) n * s.elementSize() > tail) throw changed(o, "array length out of range");
        return n;
    }

    /** The length of the map or set of shape {@code s} at {@code o}, checked to fit. */
    int keyedLength(long o, Shape s) {
        if (o + 4 > tail) throw changed(o, "map or set out of range");
        int n = seg.get(I32, o + ARRAY_LENGTH_OFFSET);
        if (n < 0 || o + 4 + (long) n * s.keyedEntrySize() > tail) throw changed(o, "map or set length out of range");
        return n;
    }

    /** A lazily resolving list over an array or list object whose elements are references. */
    private List<Object> listView(int r, Binding b) {
        long o = objectOffset(r, b.w);
        int n = arrayLength(o, b.w);
        Binding eb = b.element;
        long base = o + b.w.arrayDataOffset();
        return new AbstractList<>() {
            @Override public Object get(int i) {
                java.util.Objects.checkIndex(i, n);
                return readRef(seg.get(I32, base + 4L * i), eb);
            }

            @Override public int size() { return n; }
        };
    }
}
