package dev.verbatim.wire;

import java.lang.foreign.MemorySegment;

import static dev.verbatim.wire.MessageDescriptor.*;

/**
 * Validates a message in place, in one pass over its objects, and hands out a {@link Message} to read it
 * through views or materialize it. The cost is proportional to the number of objects and references,
 * never to the bytes of primitive arrays or strings: a 1 MiB {@code byte[]} validates as fast as a
 * 10-byte one.
 *
 * <p>Rules checked (each failure is a {@link WireFormatException} naming the offset and the rule): the
 * header (version, flags, counts within limits); the tables fit the message exactly; every type
 * fingerprint is known; every object starts where the object table says, at the 8-aligned end of the
 * previous one, with a known type id, and fits before the tables; array and string lengths fit; booleans
 * are 0 or 1; enum ordinals are in range; every reference is null or the index of an object whose type is
 * the declared one (or a permitted case of a declared sealed type); value types (java.time, UUID, big numbers) keep
 * their ranges ({@link ValueTypes#check}); the objects end exactly at the tables; then every map's keys and every
 * set's elements are unique and listed in order by the object's order ({@link KeyOrder#check}); and every reference
 * slot ({@link ByReference}) is null or an index into the table of references the message came with (none: only null).
 *
 * <p>Thread-safe and reusable.
 */
public final class WireReader {
    private final WireLimits limits;
    /** The last type table seen, resolved: most streams repeat it. Immutable, replaced whole. */
    private volatile ResolvedTypes last = new ResolvedTypes(new long[0], Shape.BUILTINS);

    /** A type table and the id table it gives: index = type id (built-ins below 64, the table's entries from 64). */
    private record ResolvedTypes(long[] fingerprints, Shape[] ids) {}

    public WireReader() { this(WireLimits.DEFAULT); }

    public WireReader(WireLimits limits) {
        this.limits = java.util.Objects.requireNonNull(limits, "limits");
    }

    public WireLimits limits() { return limits; }

    /**
     * Validates {@code message} like {@link #validate(MemorySegment)}, and makes the returned message and every
     * view read from it keep {@code owner} strongly reachable. Pass what owns the segment's memory (a
     * {@code dev.verbatim.buffer.Buffer}, or the object that holds it) when that owner frees the memory once the
     * garbage collector finds it unreachable: the memory then lives as long as a view of it is in use, even if
     * the caller drops the owner first. Closing or releasing the owner still ends every view at once.
     *
     * @throws WireFormatException if any rule is broken
     */
    public Message validate(MemorySegment message, Object owner) {
        return validate(message).owned(owner);
    }

    /**
     * Validates {@code message} (exactly the bytes of one message) and returns a handle to read it.
     *
     * @throws WireFormatException if any rule is broken
     */
    public Message validate(MemorySegment message) {
        return validate(message, null);
    }

    /**
     * Validates {@code message}, which came with the table of references {@code references} ({@link ByReference}):
     * every reference slot must be -1 or an index in {@code [0, references.size())}, and the returned message
     * resolves slots through it. With null (no table travelled: a stored file, a plain message), a non-null slot is
     * refused.
     *
     * @throws WireFormatException if any rule is broken
     */
    public Message validate(MemorySegment message, ByReference.Source references) {
        long len = message.byteSize();
        if (len < HEADER_LENGTH) throw new WireFormatException(0, "message shorter than its header", len + " bytes");
        if (len > limits.maxMessageBytes()) {
            throw new WireFormatException(0, "message larger than the limit", len + " > " + limits.maxMessageBytes());
        }
        int version = message.get(I8, VERSION_OFFSET) & 0xFF;
        if (version != VERSION) throw new WireFormatException(VERSION_OFFSET, "unsupported format version", "version " + version);
        int flags = message.get(I8, FLAGS_OFFSET) & 0xFF;
        if (flags != 0) throw new WireFormatException(FLAGS_OFFSET, "unknown flags", "0x" + Integer.toHexString(flags));
        int types = message.get(I16, TYPE_COUNT_OFFSET) & 0xFFFF;
        int objects = message.get(I32, OBJECT_COUNT_OFFSET);
        if (types > limits.maxTypes()) throw new WireFormatException(TYPE_COUNT_OFFSET, "too many types", types + " > " + limits.maxTypes());
        if (objects < 0 || objects > limits.maxObjects()) {
            throw new WireFormatException(OBJECT_COUNT_OFFSET, "too many objects", Integer.toUnsignedString(objects) + " > " + limits.maxObjects());
        }
        long tables = (long) TYPE_ENTRY_LENGTH * types + (long) OBJECT_ENTRY_LENGTH * objects;
        long tail = len - tables;
        if (tail < HEADER_LENGTH || (tail & 7) != 0) {
            throw new WireFormatException(0, "tables do not fit the message", types + " types, " + objects + " objects, " + len + " bytes");
        }
        if (objects == 0 && tail != HEADER_LENGTH) throw new WireFormatException(HEADER_LENGTH, "bytes after an empty message", null);
        Shape[] ids = resolveTypes(message, tail, types);
        long objTable = tail + (long) TYPE_ENTRY_LENGTH * types;
        // The object table is read once, into the heap: validation checks this copy, and the Message keeps it, so
        // what was validated (each object's type and offset) cannot change under the views afterwards, whatever
        // a peer sharing the memory does. 8 bytes per object, within the message's own length (checked above).
        long[] entries = new long[objects];
        MemorySegment.copy(message, I64, objTable, entries, 0, objects);
        long pos = HEADER_LENGTH;
        // Structs go in runs of one type (lists, arrays of records) through their shape's generated validator: one
        // compare of the whole object-table entry (type id and offset) per object, the rest with constant offsets.
        // The longest run of one struct type: views find its objects' offsets by arithmetic (Message.structAt).
        int runFirst = 0, runCount = 0;
        long runBase = 0;
        Shape runShape = null;
        boolean forwardOnly = true; // no reference names the object holding it or an earlier one
        boolean keyed = false; // maps or sets met: their key order is checked once every object is known to fit
        for (int i = 0; i < objects; ) {
            long entry = entries[i];
            long at = objTable + 8L * i;
            if (entryOffset(entry) != pos) throw badEntry(at, i, entry, pos);
            int tid = entryType(entry);
            Shape s = shapeOf(tid, ids);
            if (s == null) throw new WireFormatException(at + 4, "unknown type id", "id " + tid);
            if (s == Shape.STRING_SHAPE) { // a run of strings (a record's string fields follow it): no dispatch per string
                long tidBits = entry & 0xFFFF_FFFF_0000_0000L;
                do {
                    pos = align8(pos + stringSize(message, pos, tail));
                    i++;
                } while (i < objects && entries[i] == (tidBits | pos));
                continue;
            }
            if (s.builtinId >= ValueTypes.FIRST && s.refOffsets.length == 0) { // Instant, UUID, a date...: fits, and its rule
                if (s.objectSize > tail - pos) throw overrun(pos, s);
                ValueTypes.check(s, message, pos, entries, tail);
                pos = align8(pos + s.objectSize);
                i++;
                continue;
            }
            if (s.kind != Shape.STRUCT) {
                keyed |= s.isKeyed();
                long size = validateObject(message, s, pos, tail, entries, ids, i);
                if (size < 0) {
                    forwardOnly = false;
                    size &= Long.MAX_VALUE;
                }
                pos = align8(pos + size);
                i++;
                continue;
            }
            int next = validatorOf(s).validateRun(message, entries, ids, i, pos, tail, (long) tid << 32);
            if (next < 0) {
                forwardOnly = false;
                next &= Integer.MAX_VALUE;
            }
            if (next - i > runCount) {
                runFirst = i;
                runCount = next - i;
                runBase = pos;
                runShape = s;
            }
            pos += (long) (next - i) * align8(s.objectSize);
            i = next;
        }
        if (objects > 0 && pos != tail) throw new WireFormatException(pos, "bytes between the last object and the tables", (tail - pos) + " bytes");
        if (keyed) checkKeyOrders(message, entries, ids, len);
        if (references != null || types > 0 && holdsSlots(ids)) checkSlots(message, entries, ids, references);
        Message m = new Message(message, objects, tail, objTable, entries, ids, runShape, runFirst, runCount, runBase, forwardOnly);
        m.recordsOnly = limits.recordsOnly();
        m.references = references;
        return m;
    }

    /** Whether a type of the message's type table holds reference slots ({@link Shape#holdsSlots}). */
    private static boolean holdsSlots(Shape[] ids) {
        for (int k = FIRST_TABLE_TYPE_ID; k < ids.length; k++) if (ids[k].holdsSlots()) return true;
        return false;
    }

    /**
     * Every reference slot is -1 or an index into the table that came with the message (none: {@code references}
     * null). After the walk, so every object is known to fit; only messages whose types hold slots pay for it.
     */
    private static void checkSlots(MemorySegment m, long[] entries, Shape[] ids, ByReference.Source references) {
        int size = references == null ? 0 : references.size();
        for (long entry : entries) {
            Shape s = shapeOf(entryType(entry), ids);
            if (!s.holdsSlots()) continue;
            long pos = Integer.toUnsignedLong(entryOffset(entry));
            if (s.kind == Shape.STRUCT) {
                for (int off : s.slotOffsets) checkSlot(m, pos + off, size, references == null);
            } else {
                int n = m.get(I32, pos + ARRAY_LENGTH_OFFSET);
                long at = s.kind == Shape.MAP ? pos + 4 + 4L * n : pos + s.arrayDataOffset();
                for (long p = at, stop = at + 4L * n; p < stop; p += 4) checkSlot(m, p, size, references == null);
            }
        }
    }

    private static void checkSlot(MemorySegment m, long at, int size, boolean noTable) {
        int v = m.get(I32, at);
        if (v == NULL_REF) return;
        if (noTable) {
            throw new WireFormatException(at, "reference slot in a message that came with no table of references",
                    "index " + v + ": such a message is read only where its table travels (an RPC value of the object layer), not"
                            + " from a file or as a plain message");
        }
        if (v < 0 || v >= size) throw new WireFormatException(at, "reference slot out of range", v + " not in [-1, " + size + ")");
    }

    /** Every map's and set's key order ({@link KeyOrder#check}), found again in the object table: nothing allocated per map. */
    private static void checkKeyOrders(MemorySegment message, long[] entries, Shape[] ids, long len) {
        long[] budget = {KeyOrder.CHARS_PER_BYTE * len};
        for (long entry : entries) {
            Shape s = shapeOf(entryType(entry), ids);
            if (s.isKeyed()) KeyOrder.check(message, s, Integer.toUnsignedLong(entryOffset(entry)), entries, budget);
        }
    }

    private static WireFormatException badEntry(long at, int i, long entry, long pos) {
        return new WireFormatException(at, "object table entry does not match the layout",
                "object " + i + " at " + Integer.toUnsignedString(entryOffset(entry)) + ", expected " + pos);
    }

    private static WireFormatException refOutOfRange(long at, int r, int objects) {
        return new WireFormatException(at, "reference out of range", Integer.toUnsignedString(r) + " >= " + objects + " objects");
    }

    private static WireFormatException wrongType(long at, Shape declared, Shape actual) {
        return new WireFormatException(at, "reference to an object of the wrong type",
                "expected " + declared + ", found " + (actual == null ? "an unknown type id" : actual.toString()));
    }

    /**
     * The validator of a struct shape: generated once for a shape of one of the application's own types, the generic
     * one for a shape only learned from a peer (a peer cannot make this process generate code per type it describes).
     */
    private static StructValidator validatorOf(Shape s) {
        StructValidator v = s.validator;
        if (v != null && (v.settled || !s.local)) return v;
        if (!s.local) {
            v = new GenericStructValidator(s, false);
        } else {
            try {
                v = StructValidatorGenerator.structValidator(s);
            } catch (RuntimeException | LinkageError e) {
                // a shape beyond what one method can hold (some 870 references), say: the same rules, from its tables
                v = new GenericStructValidator(s, true);
            }
        }
        s.validator = v;
        return v;
    }

    /** Called by generated validators: a struct that does not fit before the tables. */
    static WireFormatException overrun(long pos, Shape s) {
        return new WireFormatException(pos, "object overruns the tables", s.toString());
    }

    /** Called by generated validators: a reference outside {@code [0, objects)}. */
    static WireFormatException refOutOfRange(long at, int r, long[] entries) {
        return refOutOfRange(at, r, entries.length);
    }

    /** The shape of a type id, given the message's id table (built-ins, then the type table), or null. */
    static Shape shapeOf(int tid, Shape[] ids) {
        return Integer.compareUnsigned(tid, ids.length) < 0 ? ids[tid] : null;
    }

    private Shape[] resolveTypes(MemorySegment m, long tail, int types) {
        ResolvedTypes cached = last;
        if (cached.fingerprints.length == types) {
            boolean same = true;
            for (int k = 0; k < types && same; k++) same = m.get(I64, tail + 8L * k) == cached.fingerprints[k];
            if (same) return cached.ids;
        }
        long[] fps = new long[types];
        Shape[] shapes = new Shape[types];
        for (int k = 0; k < types; k++) {
            long at = tail + 8L * k;
            long fp = m.get(I64, at);
            Shape s = Schema.shapeByFingerprint(fp);
            if (s == null) throw new WireFormatException(at, "unknown type fingerprint", Fingerprints.hex(fp));
            if (s.builtinId != 0 || s.isPrimitive() || s.kind == Shape.ENUM || s.kind == Shape.SEALED || s.kind == Shape.OPTIONAL) {
                throw new WireFormatException(at, "type table names a type that is not an object type", s.toString());
            }
            for (int j = 0; j < k; j++) {
                if (shapes[j] == s) throw new WireFormatException(at, "type listed twice in the type table", s.toString());
            }
            fps[k] = fp;
            shapes[k] = s;
        }
        Shape[] ids = java.util.Arrays.copyOf(Shape.BUILTINS, FIRST_TABLE_TYPE_ID + types);
        System.arraycopy(shapes, 0, ids, FIRST_TABLE_TYPE_ID, types);
        if (types <= 16) last = new ResolvedTypes(fps, ids);
        return ids;
    }

    /**
     * Checks object {@code i}, which is not a struct (structs are checked in the main loop); returns its size in bytes
     * (unpadded), with bit 63 set if one of its references names it or an earlier object.
     */
    private static long validateObject(MemorySegment m, Shape s, long pos, long tail, long[] entries, Shape[] ids, int i) {
        switch (s.kind) {
            case Shape.ARRAY, Shape.LIST -> {
                if (pos + 4 > tail) throw new WireFormatException(pos, "array length overruns the tables", null);
                int n = m.get(I32, pos + ARRAY_LENGTH_OFFSET);
                if (n < 0) throw new WireFormatException(pos + ARRAY_LENGTH_OFFSET, "negative array length", Integer.toString(n));
                int data = s.arrayDataOffset();
                long size = data + (long) n * s.elementSize();
                if (size > tail - pos) throw new WireFormatException(pos + ARRAY_LENGTH_OFFSET, "array overruns the tables", "length " + n);
                Shape e = s.element;
                if (e.kind == Shape.REF) {
                    // reference slots: checked against the table after the walk (checkSlots)
                } else if (e.kind == Shape.ENUM) {
                    int count = e.constants.length;
                    for (long p = pos + data, stop = pos + size; p < stop; p += 4) checkOrdinal(m, p, count);
                } else if (!e.isPrimitive()) {
                    boolean forward = true;
                    for (long p = pos + data, stop = pos + size; p < stop; p += 4) {
                        forward &= checkRef(m, p, e, entries, ids, i);
                    }
                    if (!forward) return size | Long.MIN_VALUE;
                }
                return size;
            }
            case Shape.MAP, Shape.SET -> {
                if (pos + 4 > tail) throw new WireFormatException(pos, "map or set length overruns the tables", null);
                int n = m.get(I32, pos + ARRAY_LENGTH_OFFSET);
                if (n < 0) throw new WireFormatException(pos + ARRAY_LENGTH_OFFSET, "negative map or set length", Integer.toString(n));
                long size = 4 + (long) n * s.keyedEntrySize();
                if (size > tail - pos) throw new WireFormatException(pos + ARRAY_LENGTH_OFFSET, "map or set overruns the tables", "length " + n);
                boolean forward = checkElements(m, pos + 4, n, s.element, entries, ids, i);
                if (s.kind == Shape.MAP) forward &= checkElements(m, pos + 4 + 4L * n, n, s.mapValue, entries, ids, i);
                return forward ? size : size | Long.MIN_VALUE; // the order is checked after the walk (KeyOrder.check)
            }
            case Shape.STRING -> {
                return stringSize(m, pos, tail);
            }
            case Shape.BOX -> {
                int k = s.element.kind;
                long size = LeafEncoding.boxSize(k);
                if (pos + size > tail) throw new WireFormatException(pos, "box overruns the tables", null);
                if (k == Shape.BOOL) checkBoolean(m, pos);
                return size;
            }
            default -> throw new WireFormatException(pos, "not an object type", s.toString());
        }
    }

    /** The size (unpadded) of the string object at {@code pos}, checked to fit before the tables. */
    private static long stringSize(MemorySegment m, long pos, long tail) {
        if (pos + 4 > tail) throw new WireFormatException(pos, "string length overruns the tables", null);
        int n = m.get(I32, pos + STRING_LENGTH_OFFSET);
        long chars = n & ~STRING_UTF16_BIT;
        long size = STRING_DATA_OFFSET + chars * ((n & STRING_UTF16_BIT) != 0 ? 2 : 1);
        if (size > tail - pos) throw new WireFormatException(pos + STRING_LENGTH_OFFSET, "string overruns the tables", "length " + chars);
        return size;
    }

    /** Checks {@code n} 4-byte elements of type {@code e} (references or enum ordinals) from {@code at}; false if one points back. */
    private static boolean checkElements(MemorySegment m, long at, int n, Shape e, long[] entries, Shape[] ids, int holder) {
        boolean forward = true;
        if (e.kind == Shape.REF) return true; // a map's values that are reference slots: checkSlots
        if (e.kind == Shape.ENUM) {
            for (long p = at, stop = at + 4L * n; p < stop; p += 4) checkOrdinal(m, p, e.constants.length);
        } else {
            for (long p = at, stop = at + 4L * n; p < stop; p += 4) forward &= checkRef(m, p, e, entries, ids, holder);
        }
        return forward;
    }

    static void checkBoolean(MemorySegment m, long at) {
        int b = m.get(I8, at);
        if (b != 0 && b != 1) throw new WireFormatException(at, "boolean not 0 or 1", "value " + b);
    }

    static void checkOrdinal(MemorySegment m, long at, int count) {
        int v = m.get(I32, at);
        if (v < -1 || v >= count) throw new WireFormatException(at, "enum ordinal out of range", v + " not in [-1, " + count + ")");
    }

    /**
     * Called by generated validators: checks that the declared type accepts type id {@code tid} (of the object a
     * reference at {@code at} names); returns it (the id now known to be accepted).
     */
    static long checkTarget(MemorySegment m, long at, Shape declared, long tid, Shape[] ids) {
        Shape actual = shapeOf((int) tid, ids);
        if (actual != declared && !acceptsSlow(declared, actual)) throw wrongType(at, declared, actual);
        return tid;
    }

    /**
     * A reference is null or the index of an object whose type (read from its object table entry) the
     * declared type accepts. The target's offset is checked when the linear walk reaches it. Failures
     * leave through methods of their own so that this one stays small enough to be inlined.
     *
     * @param holder the index of the object holding the reference
     * @return false if the reference names the holder or an earlier object (a back reference), true otherwise
     */
    static boolean checkRef(MemorySegment m, long at, Shape declared, long[] entries, Shape[] ids, int holder) {
        int r = m.get(I32, at);
        if (r == NULL_REF) return true;
        if (Integer.compareUnsigned(r, entries.length) >= 0) throw refOutOfRange(at, r, entries.length);
        Shape actual = shapeOf(entryType(entries[r]), ids);
        if (actual != declared && !acceptsSlow(declared, actual)) throw wrongType(at, declared, actual);
        return r > holder;
    }

    private static boolean acceptsSlow(Shape declared, Shape actual) {
        return actual != null && declared.accepts(actual);
    }
}
