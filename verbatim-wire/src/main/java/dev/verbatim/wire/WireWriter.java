package dev.verbatim.wire;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;

import static dev.verbatim.wire.MessageDescriptor.*;

/**
 * Marshals an object graph straight into a destination {@link MemorySegment}: no intermediate
 * {@code byte[]}, primitive arrays by bulk copy, objects in breadth-first order, each written once
 * (sharing and cycles are kept, strings and value types included: one string referenced a thousand times is written
 * once), the type and object tables at the tail (see {@link MessageDescriptor}).
 * Nothing recurses on the depth of the graph.
 *
 * <p>Not thread-safe: keep one per thread and reuse it; it keeps its scratch tables between messages.
 */
public final class WireWriter {
    // The queue of objects in message order, read and appended to by generated StructWriters (package access).
    Object[] objects = new Object[64];
    /** The {@link JType#serial} of each queued object's type. */
    int[] typeSerials = new int[64];
    /** Object-table entries (offset | type id {@code <<} 32), copied to the message in one bulk copy at the end. */
    long[] entries = new long[64];
    int count;
    /** Where the next object goes: the run writers' cursor. */
    long pos;
    private final IdentityIndex index = new IdentityIndex();
    /** Writes maps and sets, with its scratch tables kept between them. */
    private final KeyedWriter keyed = new KeyedWriter(this);
    /** Message-local type ids by shape serial; valid where {@code typeStamp[serial] == stamp}. */
    private int[] typeIdBySerial = new int[64];
    private int[] typeStamp = new int[64];
    private int stamp;
    private Shape[] typeTable = new Shape[16];
    private int typeCount;

    public WireWriter() {}

    /**
     * Writes {@code root} and everything it reaches at {@code dst[offset..]}.
     *
     * @return the number of bytes written (the message length)
     * @throws IndexOutOfBoundsException if the message does not fit; {@link #sizeOf} tells the size needed
     * @throws WireSchemaException if a type cannot be carried
     * @throws IllegalArgumentException if the graph is larger than the format allows
     */
    public long write(Object root, MemorySegment dst, long offset) {
        return fitted(write(root, root == null ? null : rootTypeCached(root), dst, offset), dst, offset);
    }

    /**
     * Writes {@code root} at {@code dst[offset..]} if the message fits before the end of {@code dst}, for a
     * caller that claimed space by an estimate (a transport's claim) and would rather not size the graph
     * first: one traversal instead of {@link #sizeOf} + {@link #write}.
     *
     * @return the number of bytes written, or -1 if the message does not fit (the bytes of {@code dst}
     *         from {@code offset} on are then unspecified)
     * @throws WireSchemaException if a type cannot be carried
     * @throws IllegalArgumentException if the graph is larger than the format allows
     */
    public long tryWrite(Object root, MemorySegment dst, long offset) {
        return write(root, root == null ? null : rootTypeCached(root), dst, offset);
    }

    /** {@link #tryWrite(Object, MemorySegment, long)} writing {@code root} as the given type. */
    public <T> long tryWrite(T root, Class<? super T> as, MemorySegment dst, long offset) {
        return write(root, WrittenTypes.rootAs(as), dst, offset);
    }

    /**
     * {@link #tryWrite(Object, MemorySegment, long)} writing {@code root} as a generic type: a {@code List<T>},
     * {@code Collection<T>}, {@code Set<T>} or {@code Map<K, V>} root, say (its class alone does not say its elements'
     * wire type).
     */
    public long tryWrite(Object root, java.lang.reflect.Type as, MemorySegment dst, long offset) {
        return write(root, Schema.rootType(as), dst, offset);
    }

    /** {@link #write(Object, MemorySegment, long)} writing {@code root} as a generic type (see {@link #tryWrite(Object, java.lang.reflect.Type, MemorySegment, long)}). */
    public long write(Object root, java.lang.reflect.Type as, MemorySegment dst, long offset) {
        return fitted(write(root, Schema.rootType(as), dst, offset), dst, offset);
    }

    /** The exact number of bytes {@link #write(Object, java.lang.reflect.Type, MemorySegment, long)} produces. */
    public long sizeOf(Object root, java.lang.reflect.Type as) {
        if (root == null) return HEADER_LENGTH;
        return layout(root, Schema.rootType(as));
    }

    private static long fitted(long n, MemorySegment dst, long offset) {
        if (n < 0) {
            throw new IndexOutOfBoundsException("the message does not fit the " + (dst.byteSize() - offset)
                    + " bytes from offset " + offset + " (WireWriter.sizeOf tells the size needed)");
        }
        return n;
    }

    private Class<?> lastRootClass;
    private JType lastRootType;

    private JType rootTypeCached(Object root) {
        Class<?> c = root.getClass();
        if (c == lastRootClass) return lastRootType;
        JType t = WrittenTypes.rootType(root);
        lastRootClass = c;
        lastRootType = t;
        return t;
    }

    /** Writes {@code root} as the given type (an accessor interface, say, for an object of another class). */
    public <T> long write(T root, Class<? super T> as, MemorySegment dst, long offset) {
        return fitted(write(root, WrittenTypes.rootAs(as), dst, offset), dst, offset);
    }

    /** The exact number of bytes {@link #write} produces for this graph. */
    public long sizeOf(Object root) {
        if (root == null) return HEADER_LENGTH;
        return layout(root, rootTypeCached(root));
    }

    /** The exact number of bytes {@link #write(Object, Class, MemorySegment, long)} produces writing {@code root} as {@code as}. */
    public <T> long sizeOf(T root, Class<? super T> as) {
        if (root == null) return HEADER_LENGTH;
        return layout(root, WrittenTypes.rootAs(as));
    }

    /** Writes the graph into a new array of exactly its size. */
    public byte[] toByteArray(Object root) {
        long n = sizeOf(root);
        byte[] b = new byte[(int) n];
        long w = write(root, MemorySegment.ofArray(b), 0);
        if (w != n) throw new IllegalStateException("size changed while writing: " + n + " vs " + w + " (graph mutated concurrently?)");
        return b;
    }

    /** Writes the message at {@code seg[base..]}; -1 if it does not fit before the end of {@code seg}. */
    long write(Object root, JType rootType, MemorySegment seg, long base) {
        long size = seg.byteSize();
        if (base < 0 || base > size) throw new IndexOutOfBoundsException("offset " + base + " outside a segment of " + size);
        // Where the message must end: the segment's end, or the format's limit if that comes first.
        long limit = Math.min(size, base + MAX_MESSAGE_BYTES);
        long n = writeWithin(root, rootType, seg, base, limit);
        if (n < 0 && limit < size) throw tooLarge(limit - base);
        return n;
    }

    private long writeWithin(Object root, JType rootType, MemorySegment seg, long base, long limit) {
        if (limit - base < HEADER_LENGTH) return -1;
        if (root != null && root.getClass() == rootType.raw && rootType.jkind >= JType.RECORD && rootType.jkind <= JType.CLASS) {
            StructWriter w = writerOf(rootType);
            if (w.flat() && flatRoots) {
                return writeFlat(root, rootType, w, seg, base, limit);
            }
            if (w.chains()) {
                long n = writeChain(root, rootType, w, seg, base, limit);
                if (n != StructWriter.NOT_A_CHAIN) return n;
            }
        }
        begin();
        try {
            if (root != null) add(root, rootType);
            long pos = base + HEADER_LENGTH;
            JType t = null;
            int lastSerial = -1;
            long lastEntryType = 0;
            for (int i = 0; i < count; ) {
                int serial = typeSerials[i];
                if (serial != lastSerial) {
                    lastSerial = serial;
                    t = JType.bySerial(serial);
                    lastEntryType = (long) typeId(t.shape) << 32;
                }
                if (t.jkind >= JType.RECORD && t.jkind <= JType.IFACE) { // structs: a run of them through their generated writer
                    this.pos = pos;
                    i = writerOf(t).writeRun(this, i, seg, base, limit, lastEntryType);
                    if (i < 0) return -1;
                    pos = this.pos;
                    continue;
                }
                entries[i] = lastEntryType | (pos - base);
                long n = writeObject(objects[i], t, seg, pos, limit);
                if (n < 0) return -1;
                pos = padded(seg, base, pos + n, limit);
                if (pos < 0) return -1;
                i++;
            }
            return finish(seg, base, pos, limit);
        } finally {
            end();
        }
    }

    /**
     * A chain (the root's type is a chain type, see {@link StructWriter#chains}) written by its generated writer without
     * the identity index and the queue: the same bytes as the general writer's. Returns the message length, -1 if its
     * objects fit but its tables do not (an acyclic chain shares nothing, so the general writer could not do better),
     * or {@link StructWriter#NOT_A_CHAIN} if the general writer must write it (the chain cycles, a node is of another
     * class, or its objects did not fit: the general writer decides, since sharing may make it smaller).
     */
    private long writeChain(Object root, JType t, StructWriter w, MemorySegment seg, long base, long limit) {
        begin();
        try {
            int n = w.writeChain(this, root, seg, base, limit, (long) typeId(t.shape) << 32);
            if (n < 0) return StructWriter.NOT_A_CHAIN;
            return finishChain(seg, base, n, align8(t.shape.objectSize), (long) typeId(t.shape) << 32, limit);
        } finally {
            end();
        }
    }

    /**
     * Whether flat roots go through their generated {@code writeFlat} ({@link StructWriter#flat}): always, except in the
     * tests that compare its bytes with the general writer's.
     */
    boolean flatRoots = true;
    /** How many messages this writer wrote through a generated {@code writeFlat} (what tests look at). */
    long flatMessages;

    /**
     * A flat root's message (see {@link StructWriter#flat}) written by its generated writer without the identity index
     * and the queue: the same bytes as the general writer's. Returns the message length, or -1 if it does not fit (the
     * general writer's would not either: it writes the same bytes).
     */
    private long writeFlat(Object root, JType t, StructWriter w, MemorySegment seg, long base, long limit) {
        flatMessages++;
        begin();
        try {
            return w.writeFlat(this, root, seg, base, limit, (long) typeId(t.shape) << 32);
        } finally {
            end();
        }
    }

    /**
     * Called by generated flat writers: writes string {@code s} at {@code pos} (8-aligned), zero-padded to 8; the position
     * after it, or -1 if it does not fit before {@code limit}.
     */
    long flatString(Object s, MemorySegment seg, long base, long pos, long limit) {
        long n = LeafEncoding.writeString((CharSequence) s, seg, pos, limit);
        return n < 0 ? -1 : padded(seg, base, pos + n, limit);
    }

    /** {@link #flatString} for another leaf that is not a struct (a box, a primitive array) of type {@code t}. */
    long flatLeaf(Object o, MemorySegment seg, long base, long pos, long limit, JType t) {
        long n = writeObject(o, t, seg, pos, limit);
        return n < 0 ? -1 : padded(seg, base, pos + n, limit);
    }

    /** Zeroes {@code seg[pos..]} up to the next 8-aligned offset from {@code base}; that offset, or -1 past {@code limit}. */
    private static long padded(MemorySegment seg, long base, long pos, long limit) {
        long aligned = base + align8(pos - base);
        if (aligned > limit) return -1;
        while (pos < aligned) seg.set(I8, pos++, (byte) 0);
        return aligned;
    }

    /** Called by generated flat writers: {@link #finish} for {@code n} objects, whose entries they stored. */
    long finishFlat(MemorySegment seg, long base, long pos, int n, long limit) {
        count = n;
        long length = finish(seg, base, pos, limit);
        count = 0; // (no object was queued: nothing for end() to clear)
        return length;
    }

    /** Writes the tables after the objects (which end at {@code pos}) and the header; the message length, or -1. */
    private long finish(MemorySegment seg, long base, long pos, long limit) {
        long tail = pos;
        long objTable = tail + 8L * typeCount;
        long end = objTable + 8L * count;
        if (end > limit) return -1;
        for (int k = 0; k < typeCount; k++) seg.set(I64, tail + 8L * k, typeTable[k].fingerprint);
        MemorySegment.copy(entries, 0, seg, I64, objTable, count);
        // version (byte 0), flags (byte 1), type count (bytes 2-3), object count (bytes 4-7): one store.
        seg.set(I64, base, VERSION | (long) typeCount << (8 * TYPE_COUNT_OFFSET) | (long) count << (8 * OBJECT_COUNT_OFFSET));
        return end - base;
    }

    /**
     * {@link #finish} for a chain of {@code n} nodes of aligned size {@code a} (the queue unused): node k's object table
     * entry is {@code entryType | HEADER + k * a}, stored here straight into the table (the chain writer keeps none).
     */
    private long finishChain(MemorySegment seg, long base, int n, long a, long entryType, long limit) {
        long tail = base + HEADER_LENGTH + n * a;
        long objTable = tail + 8L * typeCount;
        long end = objTable + 8L * n;
        if (end > limit) return -1;
        for (int k = 0; k < typeCount; k++) seg.set(I64, tail + 8L * k, typeTable[k].fingerprint);
        long entry = entryType | HEADER_LENGTH;
        for (long at = objTable; at < end; at += 8, entry += a) seg.set(I64, at, entry);
        seg.set(I64, base, VERSION | (long) typeCount << (8 * TYPE_COUNT_OFFSET) | (long) n << (8 * OBJECT_COUNT_OFFSET));
        return end - base;
    }

    /** Computes the message size without writing: the same traversal, sizes only. */
    private long layout(Object root, JType rootType) {
        begin();
        try {
            add(root, rootType);
            long pos = HEADER_LENGTH;
            for (int i = 0; i < count; ) {
                JType t = JType.bySerial(typeSerials[i]);
                typeId(t.shape);
                if (t.jkind >= JType.RECORD && t.jkind <= JType.IFACE) { // a run of structs, through the generated code
                    int next = writerOf(t).sizeRun(this, i);
                    pos += (next - i) * align8(t.shape.objectSize);
                    i = next;
                } else {
                    pos = align8(pos + sizeAndDiscover(objects[i], t));
                    i++;
                }
                if (pos > MAX_MESSAGE_BYTES) throw tooLarge(pos);
            }
            return messageLength(pos, typeCount, count);
        } finally {
            end();
        }
    }

    private void begin() {
        count = 0;
        typeCount = 0;
        if (++stamp == 0) {
            Arrays.fill(typeStamp, 0);
            stamp = 1;
        }
    }

    private void end() {
        Arrays.fill(objects, 0, count, null);
        Arrays.fill(typeTable, 0, typeCount, null);
        index.clear();
        keyed.shrink();
        if (objects.length > (1 << 16)) {
            objects = new Object[64];
            typeSerials = new int[64];
            entries = new long[64];
        }
    }

    private static IllegalArgumentException tooLarge(long n) {
        return new IllegalArgumentException("message exceeds the format's limit of " + MAX_MESSAGE_BYTES + " bytes (reached " + n + ")");
    }

    /**
     * Writes one object that is not a struct (structs go in runs through their {@link StructWriter}) at
     * {@code pos}; returns its size in bytes (unpadded), or -1 if it does not fit before {@code limit}.
     */
    private long writeObject(Object o, JType t, MemorySegment seg, long pos, long limit) {
        Shape s = t.shape;
        switch (t.jkind) {
            case JType.PRIM_ARRAY -> {
                int k = s.element.kind;
                int n = java.lang.reflect.Array.getLength(o);
                if (pos + arrayDataOffset(Shape.PRIM_SIZES[k]) + (long) n * Shape.PRIM_SIZES[k] > limit) return -1;
                int data = LeafEncoding.arrayHeader(seg, pos, n, Shape.PRIM_SIZES[k]);
                if (k == Shape.BOOL) {
                    boolean[] a = (boolean[]) o;
                    for (int j = 0; j < n; j++) seg.set(I8, pos + data + j, (byte) (a[j] ? 1 : 0));
                } else {
                    MemorySegment.copy(o, 0, seg, LeafEncoding.elementLayout(k), pos + data, n);
                }
                return data + (long) n * Shape.PRIM_SIZES[k];
            }
            case JType.ARRAY_VIEW -> {
                ArrayView v = (ArrayView) o;
                int size = Shape.PRIM_SIZES[s.element.kind];
                if (pos + arrayDataOffset(size) + (long) v.length() * size > limit) return -1;
                int data = LeafEncoding.arrayHeader(seg, pos, v.length(), size);
                MemorySegment.copy(v.segment(), 0, seg, pos + data, (long) v.length() * size);
                return data + (long) v.length() * size;
            }
            case JType.STRING, JType.CHARSEQ -> {
                return LeafEncoding.writeString((CharSequence) o, seg, pos, limit);
            }
            case JType.BOXED -> {
                if (pos + LeafEncoding.boxSize(s.element.kind) > limit) return -1;
                return LeafEncoding.writeBox(o, s.element.kind, seg, pos);
            }
            case JType.REF_ARRAY -> {
                Object[] a = (Object[]) o;
                if (pos + 4 + 4L * a.length > limit) return -1;
                seg.set(I32, pos, a.length);
                JType e = t.element;
                boolean isEnum = e.isInline();
                long p = pos + 4;
                for (Object x : a) {
                    seg.set(I32, p, isEnum ? ordinal(x, e) : ref(x, e));
                    p += 4;
                }
                return 4 + 4L * a.length;
            }
            case JType.MAP, JType.SET -> {
                return keyed.write(o, t, seg, pos, limit);
            }
            case JType.LIST -> {
                java.util.Collection<?> l = (java.util.Collection<?>) o;
                int n = l.size();
                if (pos + 4 + 4L * n > limit) return -1;
                seg.set(I32, pos, n);
                JType e = t.element;
                boolean isEnum = e.isInline();
                long p = pos + 4;
                int written = 0;
                for (Object x : l) {
                    if (written++ == n) break;
                    seg.set(I32, p, isEnum ? ordinal(x, e) : ref(x, e));
                    p += 4;
                }
                if (written != n) throw new java.util.ConcurrentModificationException("list changed size while being written");
                return 4 + 4L * n;
            }
            default -> throw new IllegalStateException("not an object kind: " + t);
        }
    }

    /** Size of one object that is not a struct, and discovery of the objects it references (for {@link #sizeOf}). */
    private long sizeAndDiscover(Object o, JType t) {
        Shape s = t.shape;
        switch (t.jkind) {
            case JType.PRIM_ARRAY -> {
                int size = Shape.PRIM_SIZES[s.element.kind];
                return arrayDataOffset(size) + (long) java.lang.reflect.Array.getLength(o) * size;
            }
            case JType.ARRAY_VIEW -> {
                int size = Shape.PRIM_SIZES[s.element.kind];
                return arrayDataOffset(size) + (long) ((ArrayView) o).length() * size;
            }
            case JType.STRING, JType.CHARSEQ -> {
                CharSequence cs = (CharSequence) o;
                return STRING_DATA_OFFSET + (long) cs.length() * (LeafEncoding.isLatin1(cs) ? 1 : 2);
            }
            case JType.BOXED -> {
                return LeafEncoding.boxSize(s.element.kind);
            }
            case JType.MAP, JType.SET -> {
                boolean map = t.jkind == JType.MAP;
                int n = 0;
                for (Object k : map ? ((java.util.Map<?, ?>) o).keySet() : (java.util.Set<?>) o) {
                    n++;
                    if (!t.element.isInline()) ref(k, t.element);
                }
                if (map && !t.mapValue.isInline()) for (Object v : ((java.util.Map<?, ?>) o).values()) ref(v, t.mapValue);
                return 4 + (long) n * t.shape.keyedEntrySize();
            }
            case JType.REF_ARRAY, JType.LIST -> {
                JType e = t.element;
                int n = 0;
                Iterable<?> it = t.jkind == JType.LIST ? (java.util.Collection<?>) o : Arrays.asList((Object[]) o);
                for (Object x : it) {
                    n++;
                    if (!e.isInline()) ref(x, e);
                }
                return 4 + 4L * n;
            }
            default -> throw new IllegalStateException("not an object kind: " + t);
        }
    }


    private StructWriter writerOf(JType t) {
        StructWriter w = t.writer;
        if (w == null) {
            w = StructWriterGenerator.structWriter(t);
            t.writer = w;
        }
        return w;
    }

    /** The message-local type id of a shape, assigning the next type-table entry on first use (generated flat writers call it). */
    int typeId(Shape s) {
        if (s.builtinId != 0) return s.builtinId;
        int serial = s.serial;
        if (serial >= typeStamp.length) {
            int n = Math.max(serial + 1, typeStamp.length * 2);
            typeStamp = Arrays.copyOf(typeStamp, n);
            typeIdBySerial = Arrays.copyOf(typeIdBySerial, n);
        }
        if (typeStamp[serial] == stamp) return typeIdBySerial[serial];
        if (typeCount == MAX_TYPES) throw new IllegalArgumentException("more than " + MAX_TYPES + " types in one message");
        if (typeCount == typeTable.length) typeTable = Arrays.copyOf(typeTable, typeCount * 2);
        typeTable[typeCount] = s;
        int id = FIRST_TABLE_TYPE_ID + typeCount++;
        typeStamp[serial] = stamp;
        typeIdBySerial[serial] = id;
        return id;
    }

    /** Called by generated writers: the ordinal of an enum value, or a reference slot's index ({@link #slot}); -1 for null. */
    int ordinal(Object value, JType declared) {
        return value == null ? NULL_REF : declared.jkind == JType.REF ? slot(value, declared) : ((Enum<?>) value).ordinal();
    }

    /** Where the objects of reference slots go ({@link ByReference}); null: a slot holding an object cannot be written. */
    private ByReference.Sink sink;

    /**
     * Sets where the objects of reference slots ({@link ByReference}) of the messages written from now on are entered,
     * by identity; null (the default) refuses a non-null slot with {@link IllegalArgumentException}. The size pass
     * ({@link #sizeOf}) does not enter them (a slot is 4 bytes whatever it holds): {@link #write} does.
     */
    public void references(ByReference.Sink sink) {
        this.sink = sink;
    }

    /** The table index of the object of a reference slot. */
    private int slot(Object value, JType declared) {
        if (!declared.raw.isInstance(value)) {
            throw new IllegalArgumentException("a reference slot declared " + declared.raw.getName() + " holds a " + value.getClass().getName());
        }
        ByReference.Sink s = sink;
        if (s == null) {
            throw new IllegalArgumentException("a " + declared.raw.getName() + " is passed by reference: it can only be written"
                    + " where a table of references travels beside the message (an RPC value of the object layer), not in a plain"
                    + " message or a file");
        }
        int i = s.enter(value, declared.raw);
        if (i < 0) throw new IllegalStateException("a reference table index " + i);
        return i;
    }

    /**
     * Called by generated writers for every reference: the object index of {@code value}, placing it in the
     * message (to be written after the objects before it) the first time it is seen.
     */
    int ref(Object value, JType declared) {
        if (value == null) return NULL_REF;
        int i = index.enter(value, objects, count);
        if (i >= 0) return again(i, value, declared);
        // The exact declared class (records, final classes, strings, boxes, arrays) needs no further look.
        return append(value, value.getClass() == declared.raw ? declared : WrittenTypes.actualType(value, declared));
    }

    /** Called by generated writers for an {@code Optional<T>} field: the reference to its value, -1 when empty (or null). */
    int optional(Object value, JType declared) {
        return value == null ? NULL_REF : ref(((java.util.Optional<?>) value).orElse(null), declared.element);
    }

    /**
     * A reference to object {@code i} already placed: its type must have the declared structure, except an empty
     * collection (the JDK shares {@code List.of()}, {@code Map.of()}... between uses of any element type), which is
     * written again as the type declared here.
     */
    private int again(int i, Object value, JType declared) {
        JType t = JType.bySerial(typeSerials[i]);
        if (t.shape != declared.shape && !declared.shape.accepts(t.shape)) {
            if (value instanceof java.util.Collection<?> c && c.isEmpty() || value instanceof java.util.Map<?, ?> m && m.isEmpty()) {
                return append(value, WrittenTypes.actualType(value, declared));
            }
            throw new IllegalArgumentException("one object is referenced as " + t + " and as " + declared
                    + ", which have different structures: " + value.getClass().getName());
        }
        return i;
    }

    /** Places a new object (already entered in the index) at the end of the queue. */
    private int append(Object value, JType t) {
        int i = count;
        if (i == objects.length) growQueue();
        objects[i] = value;
        typeSerials[i] = t.serial;
        count = i + 1;
        return i;
    }

    /** Doubles the queue (called by generated chain writers too). */
    void growQueue() {
        int n = objects.length * 2;
        objects = Arrays.copyOf(objects, n);
        typeSerials = Arrays.copyOf(typeSerials, n);
        entries = Arrays.copyOf(entries, n);
    }

    /** Places the root (the index is empty). */
    private int add(Object value, JType t) {
        index.enter(value, objects, count);
        return append(value, t);
    }
}
