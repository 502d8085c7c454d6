package dev.verbatim.wire;

import java.lang.foreign.MemorySegment;
import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;

import static dev.verbatim.wire.MessageDescriptor.*;

/**
 * Copies a validated graph into heap objects, in one pass over the objects it reaches and without recursion.
 *
 * <p>Each object is read with the {@link BindingMaterializer} of its binding (generated code for records and classes) and
 * remembered in a memo, so sharing and cycles are preserved: {@code keys[s]} is the code the object of slot {@code s}
 * was read with and {@code memo[s]} the heap object (an object read with a second binding, rare, goes to a map). The
 * root's materialization uses the object index as the slot; a subgraph's (a field read through a view) numbers the
 * objects it meets ({@link MemoSlots}), so that its cost is the subgraph's, not the message's. A class, array or
 * list exists as soon as it is met (its identity is what cycles need) and is queued to be filled later; a record is built by an explicit depth-first walk over the records it holds, after them, so a
 * million-element chain of records takes a million-frame array, not a million-frame thread stack; a cycle through
 * records alone cannot be built and is refused ({@link WireSchemaException}; a {@link WireFormatException} if the
 * validator saw no cycle: the memory changed since). Queued objects are filled until the
 * queue is empty.
 *
 * <p>Every reference is read from the message once (a record's record fields twice: when walking, and when
 * building) and checked each time: in range, and naming an object whose type (from the validated copy of the object
 * table, {@link Message#entries}) is the one the binding expects; the validated entry then guarantees the object
 * fits. Lengths are read once, when an array or list is created, and checked to fit. So memory changed after
 * validation yields at worst a {@link WireFormatException}.
 *
 * <p>Not thread-safe: one per materialization.
 */
final class Materializer {
    /** The memo of a record on the walk's stack, not built yet. */
    private static final Object PENDING = new Object();

    final Message msg;
    /** Read by generated code. */
    final MemorySegment seg;
    private final long[] entries;
    private final Shape[] ids;
    private final int objects;
    /**
     * Per slot: 1 + the binding id of the code its object was read with, 0 if not read yet (ints: no GC barrier per
     * store), and the heap object. An object's slot is its index ({@link #slots} null: the root's materialization), or
     * the one {@link #slots} gives it (a subgraph's: the tables grow with the objects reached, not the message).
     */
    private int[] keys;
    private Object[] memo;
    private final MemoSlots slots;
    /** Objects read with a second code: (index {@code <<} 32 | binding id) to the object. */
    private HashMap<Long, Object> extra;

    /**
     * Classes, arrays and lists to fill: the object and its code at {@code 2j, 2j + 1} of {@code qObj}, its offset and
     * (arrays, lists) the length it was created with at {@code 2j, 2j + 1} of {@code qInt}.
     */
    private Object[] qObj;
    private int[] qInt;
    private int queued;

    /** The walk that builds records: object index and code per frame; the top frame is being built. */
    private int[] sIdx;
    private BindingMaterializer[] sCode;
    private int depth;

    /**
     * A materializer of message {@code m}: {@code subgraph} false for the root's graph (memo tables of one slot per
     * object of the message), true for a subgraph read through a view (memo tables that grow with the objects the
     * materialization reaches: a read costs what it copies, however many objects the message holds).
     */
    Materializer(Message m, boolean subgraph) {
        this.msg = m;
        this.seg = m.seg;
        this.entries = m.entries;
        this.ids = m.ids;
        this.objects = m.objects;
        int slotCount = subgraph ? Math.min(objects, 8) : objects;
        this.keys = new int[slotCount];
        this.memo = new Object[slotCount];
        this.slots = subgraph ? new MemoSlots() : null;
    }

    /** A materializer without memo tables, for {@link Message#readRef}'s value types that hold no reference. */
    private Materializer(Message m) {
        this.msg = m;
        this.seg = m.seg;
        this.entries = m.entries;
        this.ids = m.ids;
        this.objects = m.objects;
        this.slots = null;
    }

    /**
     * A materializer only for building value types that hold no reference ({@code Instant}, {@code UUID}, dates...)
     * with their generated {@link BindingMaterializer#construct}, which reads {@link #seg} and nothing else of it: it
     * keeps no state, so one per message serves every such read, from any thread.
     */
    static Materializer forValues(Message m) { return new Materializer(m); }

    /** The memo slot of object {@code r} (in range): its index, or the next free slot of a subgraph's tables on first sight. */
    private int slot(int r) {
        MemoSlots t = slots;
        if (t == null) return r;
        int s = t.slot(r);
        if (s == keys.length) {
            keys = Arrays.copyOf(keys, 2 * s);
            memo = Arrays.copyOf(memo, 2 * s);
        }
        return s;
    }

    /** Object {@code root} read with binding {@code b}, and everything it reaches. */
    Object run(int root, Binding b) {
        return run(root, BindingMaterializer.of(b));
    }

    private Object run(int root, BindingMaterializer c) {
        Object v = ref(root, c);
        drain();
        if (keyed != null) keyed.insertAll();
        return v;
    }

    /** The root's code per (requested class, root shape), found by identity hash: a cheaper probe than the class's {@code ClassValue}. */
    private record Root(Class<?> type, Shape w, BindingMaterializer code) {}

    /** Racy by design: entries are immutable, a lost or stale one is only a miss. */
    private static final Root[] ROOTS = new Root[64];

    /** {@link Message#materialize}: the root (not null) and everything it reaches, as {@code type}. */
    static Object materialize(Message m, Class<?> type) {
        Shape w = m.shapeOf(0);
        int h = System.identityHashCode(type) & (ROOTS.length - 1);
        Root e = ROOTS[h];
        BindingMaterializer c;
        if (e != null && e.type == type && e.w == w) {
            c = e.code;
        } else {
            c = BindingMaterializer.of(m.rootBinding(w, Schema.of(type)));
            ROOTS[h] = new Root(type, w, c);
        }
        return new Materializer(m, false).run(0, c);
    }

    private void drain() {
        while (queued > 0) {
            int j = 2 * --queued;
            Object target = qObj[j];
            BindingMaterializer c = (BindingMaterializer) qObj[j + 1];
            switch (c.kind) {
                case BindingMaterializer.CLASS -> c.fill(this, target, qInt[j]);
                case BindingMaterializer.REF_ARRAY -> fillArray((Object[]) target, c.element, qInt[j], qInt[j + 1]);
                case BindingMaterializer.MAP, BindingMaterializer.SET -> resolveKeyed(target, c, qInt[j], qInt[j + 1]);
                default -> fillList(target, c.element, qInt[j], qInt[j + 1]);
            }
        }
    }

    // ------------------------------------------------------------------ called by generated code

    /** A boolean field's byte: 0 or 1 (validated; checked again, the memory may have changed). */
    static boolean bool(int x) {
        if ((x & ~1) != 0) throw Message.changed(-1, "boolean not 0 or 1");
        return x != 0;
    }

    static boolean bool(MemorySegment seg, long at) {
        int x = seg.get(I8, at);
        if ((x & ~1) != 0) throw Message.changed(at, "boolean not 0 or 1");
        return x != 0;
    }

    /** An enum constant from its ordinal, or null. */
    Object enm(int ordinal, BindingMaterializer c) {
        if (ordinal == NULL_REF) return null;
        Binding b = c.b;
        if (ordinal < 0 || ordinal >= b.enumValues.length) throw Message.changed(-1, "enum ordinal out of range");
        return b.enumValue(ordinal);
    }

    /** The object of a reference slot ({@link ByReference}) as the binding's declared type, or null. */
    Object slot(int index, BindingMaterializer c) {
        return msg.slot(index, c.b.r.raw);
    }

    /** A reference to a class: the instance (created and queued to be filled on first sight), or null. */
    Object cls(int r, BindingMaterializer c) {
        return instance(r, c, false);
    }

    /**
     * The instance object {@code r} of a class binding: the one made already, or a new one, remembered at once (a
     * cycle back to it must find it) and then queued to be filled, or with {@code chain} left for {@link #chained}.
     * Both callers pass a constant, so each compiles to its own path.
     */
    private Object instance(int r, BindingMaterializer c, boolean chain) {
        if (r == NULL_REF) return null;
        if (Integer.compareUnsigned(r, objects) >= 0) throw outOfRange(r);
        int s = slot(r);
        int k = keys[s];
        if (k == c.key) return memo[s];
        if (k != 0) return other(r, c);
        int o = offset(r, c);
        if (msg.recordsOnly) throw classRefused(c);
        Object v = c.create();
        keys[s] = c.key;
        memo[s] = v;
        if (chain) {
            chained = o;
        } else {
            enqueue(v, c, o, 0);
        }
        return v;
    }

    /** The offset of the object {@link #chain} created last, or -1: the generated fill fills it next. */
    private int chained = -1;

    /**
     * {@link #cls} for a field of a class's own binding (the next node of a list): a new instance is not queued but
     * left for {@link #chained}, so the generated fill fills it next in its loop, with no queue traffic per node. It
     * is put in the memo at once, like every other object: a reference back into the chain (a ring) must find it and
     * end the loop, not create another copy.
     */
    Object chain(int r, BindingMaterializer c) {
        return instance(r, c, true);
    }

    /** The offset of the instance {@link #chain} just created (and forgets it), or -1 if it created none. */
    int chained() {
        int o = chained;
        chained = -1;
        return o;
    }

    /**
     * A reference to a record: the record, built now with the records it holds unless built before. Inside the walk
     * (a record being built) it must be built already: the walk built every record its fields named, unless the
     * memory changed since.
     */
    Object rec(int r, BindingMaterializer c) {
        if (r == NULL_REF) return null;
        if (Integer.compareUnsigned(r, objects) >= 0) throw outOfRange(r);
        int s = slot(r);
        int k = keys[s];
        if (k == c.key) {
            Object v = memo[s];
            if (v != PENDING) return v;
            throw Message.changed(-1, "reference to record " + r + " that is not built");
        }
        if (k != 0) return other(r, c);
        int o = offset(r, c);
        if (depth > 0) throw Message.changed(-1, "reference to record " + r + " that is not built");
        if (!c.recordChildren) {
            Object v = c.construct(this, o);
            keys[s] = c.key;
            memo[s] = v;
            return v;
        }
        return build(r, c, o);
    }

    /** Short strings' bytes gather here before the string copies them (a {@link #forValues} one reads no string). */
    private byte[] chars;

    private byte[] chars() { return chars != null ? chars : (chars = HeapValues.stringScratch()); }

    /** A reference to a string: the string, read on first sight. */
    Object str(int r, BindingMaterializer c) {
        if (r == NULL_REF) return null;
        if (Integer.compareUnsigned(r, objects) >= 0) throw outOfRange(r);
        int s = slot(r);
        int k = keys[s];
        if (k == c.key) return memo[s];
        if (k != 0) return other(r, c);
        String v = HeapValues.readString(msg, offset(r, c), chars());
        keys[s] = c.key;
        memo[s] = v;
        return v;
    }

    /** An {@code Optional} field: empty for null, else the value of the reference. */
    Object opt(int r, BindingMaterializer c) {
        return r == NULL_REF ? java.util.Optional.empty() : java.util.Optional.of(ref(r, c.element));
    }

    /** Any other reference (boxes, primitive arrays, views, arrays, lists, maps, sets, sealed types), or null. */
    Object ref(int r, BindingMaterializer c) {
        if (r == NULL_REF) return null;
        if (Integer.compareUnsigned(r, objects) >= 0) throw outOfRange(r);
        if (c.kind == BindingMaterializer.OPTIONAL) return opt(r, c);
        if (c.kind == BindingMaterializer.SEALED) {
            BindingMaterializer v = c.variantFor(shapeOf(r));
            if (v == null) throw wrongType(r);
            c = v;
        }
        switch (c.kind) {
            case BindingMaterializer.CLASS -> { return cls(r, c); }
            case BindingMaterializer.RECORD -> { return rec(r, c); }
            case BindingMaterializer.STRING -> { return str(r, c); }
            default -> { }
        }
        Object v = get(r, c);
        if (v != null) return v;
        long o = offset(r, c);
        switch (c.kind) {
            case BindingMaterializer.VALUE -> v = HeapValues.readValue(msg, r, c.b);
            case BindingMaterializer.VIEW -> v = msg.readRef(r, c.b);
            case BindingMaterializer.REF_ARRAY -> {
                int n = msg.arrayLength(o, c.w);
                v = Array.newInstance(c.component, n);
                enqueue(v, c, (int) o, n);
            }
            case BindingMaterializer.LIST -> {
                int n = msg.arrayLength(o, c.w);
                v = new ArrayList<>(n);
                enqueue(v, c, (int) o, n);
            }
            case BindingMaterializer.MAP, BindingMaterializer.SET -> {
                int n = msg.keyedLength(o, c.w);
                v = c.kind == BindingMaterializer.MAP ? java.util.LinkedHashMap.newLinkedHashMap(n) : java.util.LinkedHashSet.newLinkedHashSet(n);
                enqueue(v, c, (int) o, n);
            }
            default -> throw new IllegalStateException("not a reference: " + c);
        }
        put(r, c, v);
        return v;
    }

    /**
     * Called by a record's generated {@link BindingMaterializer#descend}: true if the record {@code r} (of code {@code c}, or a
     * record case of sealed {@code c}) is not built yet and was pushed on the walk; false if it is built (or built
     * now, when it holds no records), null, or not a record.
     */
    boolean descend(int r, BindingMaterializer c) {
        if (r == NULL_REF) return false;
        if (Integer.compareUnsigned(r, objects) >= 0) throw outOfRange(r);
        if (c.kind == BindingMaterializer.OPTIONAL) c = c.element;
        if (c.kind == BindingMaterializer.SEALED) {
            BindingMaterializer v = c.variantFor(shapeOf(r));
            if (v == null) throw wrongType(r);
            if (v.kind != BindingMaterializer.RECORD) return false;
            c = v;
        }
        int s = slot(r);
        int k = keys[s];
        if (k != c.key && k != 0) return descendOther(r, c);
        if (k != 0) {
            if (memo[s] == PENDING) throw cycle(c);
            return false;
        }
        int o = offset(r, c);
        if (!c.recordChildren) {
            Object v = c.construct(this, o);
            keys[s] = c.key;
            memo[s] = v;
            return false;
        }
        keys[s] = c.key;
        memo[s] = PENDING;
        push(r, c);
        return true;
    }

    /** {@link #descend} for an object first read with another code. */
    private boolean descendOther(int r, BindingMaterializer c) {
        Object v = get(r, c);
        if (v == PENDING) throw cycle(c);
        if (v != null) return false;
        int o = offset(r, c);
        if (!c.recordChildren) {
            put(r, c, c.construct(this, o));
            return false;
        }
        put(r, c, PENDING);
        push(r, c);
        return true;
    }

    // ------------------------------------------------------------------ records

    /** Builds record {@code r} after the records it holds, walking them depth first with an explicit stack. */
    private Object build(int r, BindingMaterializer c, int o) {
        put(r, c, PENDING);
        push(r, c);
        while (depth > 0) {
            int top = depth - 1;
            int i = sIdx[top];
            BindingMaterializer k = sCode[top];
            if (i >= 0) {
                if (k.descend(this, offsetOf(i))) {
                    // A record with one field that may hold a record needs no second look: its record is built next.
                    if (k.oneRecordField) sIdx[top] = ~i;
                    continue;
                }
            } else {
                i = ~i;
            }
            Object v = k.construct(this, offsetOf(i));
            depth = top;
            put(i, k, v);
        }
        return get(r, c);
    }

    private void push(int r, BindingMaterializer c) {
        if (sIdx == null) {
            int cap = Math.min(objects, slots == null ? 1024 : 16);
            sIdx = new int[cap];
            sCode = new BindingMaterializer[cap];
        } else if (depth == sIdx.length) {
            sIdx = Arrays.copyOf(sIdx, depth * 2);
            sCode = Arrays.copyOf(sCode, depth * 2);
        }
        sIdx[depth] = r;
        sCode[depth++] = c;
    }

    /**
     * A cycle through records, which cannot be built: a property of the sender's graph ({@link WireSchemaException}),
     * unless the message had no cycle when it was validated ({@link Message#forwardOnly}): then its memory changed
     * since ({@link WireFormatException}).
     */
    private RuntimeException cycle(BindingMaterializer c) {
        if (msg.forwardOnly) return Message.changed(-1, "a cycle through record " + c.b.r.raw.getName() + " the validated message did not have");
        return new WireSchemaException("the graph has a cycle through record " + c.b.r.raw.getName()
                + ", which cannot be built (a record needs its fields first); read it through a view or use a class");
    }

    // ------------------------------------------------------------------ arrays and lists

    private void fillArray(Object[] a, BindingMaterializer e, int o, int n) {
        long base = o + (long) ARRAY_LENGTH_OFFSET + 4;
        switch (e.kind) {
            case BindingMaterializer.ENUM -> { for (int k = 0; k < n; k++) a[k] = enm(seg.get(I32, base + 4L * k), e); }
            case BindingMaterializer.SLOT -> { for (int k = 0; k < n; k++) a[k] = slot(seg.get(I32, base + 4L * k), e); }
            case BindingMaterializer.CLASS -> { for (int k = 0; k < n; k++) a[k] = cls(seg.get(I32, base + 4L * k), e); }
            case BindingMaterializer.RECORD -> { for (int k = 0; k < n; k++) a[k] = rec(seg.get(I32, base + 4L * k), e); }
            case BindingMaterializer.STRING -> { for (int k = 0; k < n; k++) a[k] = str(seg.get(I32, base + 4L * k), e); }
            default -> { for (int k = 0; k < n; k++) a[k] = ref(seg.get(I32, base + 4L * k), e); }
        }
    }

    @SuppressWarnings("unchecked")
    private void fillList(Object target, BindingMaterializer e, int o, int n) {
        List<Object> list = (List<Object>) target;
        long base = o + (long) ARRAY_LENGTH_OFFSET + 4;
        switch (e.kind) {
            case BindingMaterializer.ENUM -> { for (int k = 0; k < n; k++) list.add(enm(seg.get(I32, base + 4L * k), e)); }
            case BindingMaterializer.SLOT -> { for (int k = 0; k < n; k++) list.add(slot(seg.get(I32, base + 4L * k), e)); }
            case BindingMaterializer.CLASS -> { for (int k = 0; k < n; k++) list.add(cls(seg.get(I32, base + 4L * k), e)); }
            case BindingMaterializer.RECORD -> { for (int k = 0; k < n; k++) list.add(rec(seg.get(I32, base + 4L * k), e)); }
            case BindingMaterializer.STRING -> { for (int k = 0; k < n; k++) list.add(str(seg.get(I32, base + 4L * k), e)); }
            default -> { for (int k = 0; k < n; k++) list.add(ref(seg.get(I32, base + 4L * k), e)); }
        }
    }

    // ------------------------------------------------------------------ maps and sets

    /** Maps and sets whose keys are read but not inserted yet (they are inserted once every object is filled). */
    private PendingKeys keyed;

    /** Reads the {@code n} keys (and values) of the map or set at {@code o}; they are inserted after the queue drains. */
    private void resolveKeyed(Object target, BindingMaterializer c, int o, int n) {
        long base = o + 4L;
        Object[] ks = new Object[n];
        for (int k = 0; k < n; k++) ks[k] = element(seg.get(I32, base + 4L * k), c.element);
        Object[] vs = null;
        if (c.kind == BindingMaterializer.MAP) {
            vs = new Object[n];
            for (int k = 0; k < n; k++) vs[k] = element(seg.get(I32, base + 4L * (n + k)), c.mapValue);
        }
        if (keyed == null) keyed = new PendingKeys();
        keyed.add(target, ks, vs);
    }

    private Object element(int x, BindingMaterializer e) {
        return switch (e.kind) {
            case BindingMaterializer.ENUM -> enm(x, e);
            case BindingMaterializer.SLOT -> slot(x, e);
            case BindingMaterializer.CLASS -> cls(x, e);
            case BindingMaterializer.RECORD -> rec(x, e);
            case BindingMaterializer.STRING -> str(x, e);
            default -> ref(x, e);
        };
    }

    private void enqueue(Object v, BindingMaterializer c, int o, int n) {
        int j = 2 * queued;
        if (qObj == null) {
            qObj = new Object[8];
            qInt = new int[8];
        } else if (j == qObj.length) {
            qObj = Arrays.copyOf(qObj, 2 * j);
            qInt = Arrays.copyOf(qInt, 2 * j);
        }
        qObj[j] = v;
        qObj[j + 1] = c;
        qInt[j] = o;
        qInt[j + 1] = n;
        queued++;
    }

    // ------------------------------------------------------------------ the object table and the memo

    /** The shape of object {@code r} (in range), from the validated table. */
    private Shape shapeOf(int r) {
        Shape s = WireReader.shapeOf(entryType(entries[r]), ids);
        if (s == null) throw wrongType(r);
        return s;
    }

    /** The offset of object {@code r} (in range), which must be of the code's shape: then validation proved it fits. */
    private int offset(int r, BindingMaterializer c) {
        long e = entries[r];
        if (WireReader.shapeOf(entryType(e), ids) != c.w) throw wrongType(r);
        return entryOffset(e);
    }

    private long offsetOf(int r) { return entryOffset(entries[r]); }

    private static WireFormatException outOfRange(int r) {
        return Message.changed(-1, "reference " + Integer.toUnsignedString(r) + " out of range");
    }

    private static WireFormatException wrongType(int r) {
        return Message.changed(-1, "object " + r + " of the wrong type");
    }

    /** The object (or PENDING) read from {@code r} with code {@code c}, or null. */
    private Object get(int r, BindingMaterializer c) {
        int s = slot(r);
        int k = keys[s];
        if (k == c.key) return memo[s];
        if (k == 0 || extra == null) return null;
        return extra.get(key(r, c));
    }

    private void put(int r, BindingMaterializer c, Object v) {
        int s = slot(r);
        int k = keys[s];
        if (k == 0 || k == c.key) {
            keys[s] = c.key;
            memo[s] = v;
        } else {
            if (extra == null) extra = new HashMap<>();
            extra.put(key(r, c), v);
        }
    }

    private static long key(int r, BindingMaterializer c) { return ((long) r << 32) | (c.id & 0xFFFFFFFFL); }

    /** A class met under {@link WireLimits#recordsOnly()}: it would be built without running its constructors' checks. */
    private static WireSchemaException classRefused(BindingMaterializer c) {
        return new WireSchemaException(c.b.r.raw.getName() + " is a class: it would be built through its no-argument constructor"
                + " with its fields set directly, none of its constructors' checks run; these limits materialize records only"
                + " (WireLimits.recordsOnly)");
    }

    /** {@link #cls}, {@link #rec} or {@link #str} for an object first read with another code (the rare path). */
    private Object other(int r, BindingMaterializer c) {
        Object v = get(r, c);
        if (v == PENDING) throw Message.changed(-1, "reference to record " + r + " that is not built");
        if (v != null) return v;
        int o = offset(r, c);
        switch (c.kind) {
            case BindingMaterializer.CLASS -> {
                if (msg.recordsOnly) throw classRefused(c);
                v = c.create();
                put(r, c, v);
                enqueue(v, c, o, 0);
            }
            case BindingMaterializer.RECORD -> {
                if (depth > 0) throw Message.changed(-1, "reference to record " + r + " that is not built");
                if (!c.recordChildren) put(r, c, v = c.construct(this, o));
                else v = build(r, c, o);
            }
            case BindingMaterializer.STRING -> put(r, c, v = HeapValues.readString(msg, o, chars()));
            default -> throw new IllegalStateException("not a record, class or string: " + c);
        }
        return v;
    }
}
