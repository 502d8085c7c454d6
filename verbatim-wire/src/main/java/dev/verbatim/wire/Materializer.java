package dev.verbatim.wire;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static dev.verbatim.wire.MessageDescriptor.*;

/**
 * Copies a validated graph into heap objects, without recursion: (1) discover the reachable objects and
 * create every class instance, array and list (their identity exists before their contents); (2) build the
 * records, each after the records it holds (a cycle through records alone cannot be built: refused);
 * (3) fill the fields of classes and the elements of arrays and lists. Sharing and cycles are preserved.
 *
 * <p>Not thread-safe: one per materialization.
 */
final class Materializer {
    private static final Object PENDING = new Object();

    private final Message m;
    private final MemorySegment seg;
    private final Object[] memo;
    private final Binding[] memoBinding;
    private Map<Long, Object> extra;

    // Work lists: (object index, concrete binding).
    private int[] idx = new int[16];
    /** Array and list lengths as read when their objects were created: checked again when they are filled. */
    private int[] lens = new int[16];
    private int lastLength;
    private Binding[] bind = new Binding[16];
    private int size;

    Materializer(Message m) {
        this.m = m;
        this.seg = m.seg;
        this.memo = new Object[m.objects];
        this.memoBinding = new Binding[m.objects];
    }

    Object run(int root, Binding b) {
        b = concrete(root, b);
        if (isValue(b)) return value(root, b);
        discover(root, b);
        buildRecords();
        int n = size;
        for (int j = 0; j < n; j++) fill(idx[j], bind[j], lens[j]);
        return get(root, b);
    }

    // ------------------------------------------------------------------ phase 1

    private void discover(int root, Binding rb) {
        put(root, rb, create(root, rb));
        push(root, rb);
        for (int cursor = 0; cursor < size; cursor++) {
            int i = idx[cursor];
            Binding b = bind[cursor];
            forEachChild(i, b, (r, cb) -> {
                Binding c = concrete(r, cb);
                if (isValue(c)) return;
                if (has(r, c)) return;
                put(r, c, create(r, c));
                push(r, c);
            });
        }
    }

    private interface ChildVisitor { void visit(int r, Binding b); }

    /** The references an object holds, with the binding each is read with. */
    private void forEachChild(int i, Binding b, ChildVisitor v) {
        switch (b.r.jkind) {
            case JType.RECORD, JType.CLASS -> {
                long o = m.objectOffset(i, b.w);
                for (int j = 0; j < b.source.length; j++) {
                    Shape.Field src = b.source[j];
                    Binding c = b.children[j];
                    if (src == null || c == null || !src.isReference()) continue;
                    int r = seg.get(I32, o + src.offset);
                    if (r != NULL_REF) v.visit(r, c);
                }
            }
            case JType.REF_ARRAY, JType.LIST -> {
                if (b.element.r.jkind == JType.ENUM) return;
                long o = m.objectOffset(i, b.w);
                int n = m.arrayLength(o, b.w);
                for (int k = 0; k < n; k++) {
                    int r = seg.get(I32, o + 4 + 4L * k);
                    if (r != NULL_REF) v.visit(r, b.element);
                }
            }
            default -> { }
        }
    }

    /** For a sealed binding, the binding of the case the object actually is. */
    private Binding concrete(int r, Binding b) {
        if (b.r.jkind != JType.SEALED) return b;
        Binding vb = b.variantFor(m.shapeOf(r));
        if (vb == null) throw Message.changed(-1, "object " + r + " of the wrong type");
        return vb;
    }

    /** Types whose objects hold no references: built directly, no identity bookkeeping needed beyond the memo. */
    private static boolean isValue(Binding b) {
        int k = b.r.jkind;
        return k == JType.STRING || k == JType.CHARSEQ || k == JType.BOXED || k == JType.PRIM_ARRAY || k == JType.ARRAY_VIEW
                || k == JType.IFACE;
    }

    private Object create(int i, Binding b) {
        JType t = b.r;
        switch (t.jkind) {
            case JType.RECORD -> {
                m.objectOffset(i, b.w);
                return PENDING;
            }
            case JType.CLASS -> {
                m.objectOffset(i, b.w);
                try {
                    return ctors(t).noArg.invokeExact();
                } catch (RuntimeException | Error e) {
                    throw e;
                } catch (Throwable e) {
                    throw new IllegalStateException("constructing " + t.raw.getName() + " failed", e);
                }
            }
            case JType.REF_ARRAY -> {
                lastLength = m.arrayLength(m.objectOffset(i, b.w), b.w);
                return Array.newInstance(t.element.raw, lastLength);
            }
            case JType.LIST -> {
                lastLength = m.arrayLength(m.objectOffset(i, b.w), b.w);
                return new ArrayList<>(lastLength);
            }
            default -> throw new IllegalStateException("not a container: " + t);
        }
    }

    /** Objects without references (strings, boxes, primitive arrays) and views, memoized for sharing. */
    private Object value(int r, Binding b) {
        Object cached = get(r, b);
        if (cached != null) return cached;
        int k = b.r.jkind;
        Object v = k == JType.STRING || k == JType.BOXED || k == JType.PRIM_ARRAY ? readValue(m, r, b) : m.readRef(r, b);
        put(r, b, v);
        return v;
    }

    /** A string, box or primitive array copied out of the message. */
    static Object readValue(Message m, int r, Binding b) {
        MemorySegment seg = m.seg;
        switch (b.r.jkind) {
            case JType.STRING -> {
                long o = m.objectOffset(r, Shape.STRING_SHAPE);
                int h = m.stringHeader(o);
                return StringView.read(seg, o + STRING_DATA_OFFSET, h & ~STRING_UTF16_BIT, (h & STRING_UTF16_BIT) != 0);
            }
            case JType.BOXED -> {
                int k = b.w.element.kind;
                long o = m.objectOffset(r, b.w);
                if (o + WireWriter.boxSize(k) > m.tail) throw Message.changed(o, "box out of range");
                return readPrim(seg, k, o);
            }
            case JType.PRIM_ARRAY -> {
                int k = b.w.element.kind;
                long o = m.objectOffset(r, b.w);
                int n = m.arrayLength(o, b.w);
                Object v = Array.newInstance(b.r.raw.getComponentType(), n);
                if (k == Shape.BOOL) {
                    boolean[] a = (boolean[]) v;
                    for (int j = 0; j < n; j++) a[j] = seg.get(I8, o + 4 + j) != 0;
                } else {
                    MemorySegment.copy(seg, WireWriter.elementLayout(k), o + b.w.arrayDataOffset(), v, 0, n);
                }
                return v;
            }
            default -> throw new IllegalStateException("not a value type: " + b.r);
        }
    }

    private Object readPrim(int kind, long at) { return readPrim(seg, kind, at); }

    static Object readPrim(MemorySegment seg, int kind, long at) {
        return switch (kind) {
            case Shape.BOOL -> {
                int x = seg.get(I8, at);
                if (x != 0 && x != 1) throw Message.changed(at, "boolean not 0 or 1");
                yield x == 1;
            }
            case Shape.I8 -> seg.get(I8, at);
            case Shape.U16 -> seg.get(U16, at);
            case Shape.I16 -> seg.get(I16, at);
            case Shape.I32 -> seg.get(I32, at);
            case Shape.I64 -> seg.get(I64, at);
            case Shape.F32 -> seg.get(F32, at);
            default -> seg.get(F64, at);
        };
    }

    // ------------------------------------------------------------------ phase 2: records, children first

    private void buildRecords() {
        int n = size;
        byte[] state = new byte[n]; // 0 new, 1 on the stack, 2 built
        Map<Long, Integer> pos = new HashMap<>();
        for (int j = 0; j < n; j++) pos.put(key(idx[j], bind[j]), j);
        int[] stack = new int[16];
        int[] childCursor = new int[16];
        for (int start = 0; start < n; start++) {
            if (bind[start].r.jkind != JType.RECORD || state[start] == 2) continue;
            int sp = 0;
            stack[sp] = start;
            childCursor[sp] = 0;
            state[start] = 1;
            sp++;
            while (sp > 0) {
                int j = stack[sp - 1];
                Binding b = bind[j];
                long o = m.objectOffset(idx[j], b.w);
                int next = -1;
                while (childCursor[sp - 1] < b.source.length) {
                    int f = childCursor[sp - 1]++;
                    Shape.Field src = b.source[f];
                    Binding cb = b.children[f];
                    if (src == null || cb == null || !src.isReference()) continue;
                    int r = seg.get(I32, o + src.offset);
                    if (r == NULL_REF) continue;
                    Binding c = concrete(r, cb);
                    if (c.r.jkind != JType.RECORD) continue;
                    Integer known = pos.get(key(r, c));
                    if (known == null) throw Message.changed(-1, "reference to object " + r + " that was not there when the graph was discovered");
                    int cj = known;
                    if (state[cj] == 2) continue;
                    if (state[cj] == 1) {
                        throw new WireSchemaException("the graph has a cycle through record " + c.r.raw.getName()
                                + ", which cannot be built (a record needs its fields first); read it through a view or use a class");
                    }
                    next = cj;
                    break;
                }
                if (next >= 0) {
                    if (sp == stack.length) {
                        stack = Arrays.copyOf(stack, sp * 2);
                        childCursor = Arrays.copyOf(childCursor, sp * 2);
                    }
                    stack[sp] = next;
                    childCursor[sp] = 0;
                    state[next] = 1;
                    sp++;
                    continue;
                }
                put(idx[j], b, construct(idx[j], b));
                state[j] = 2;
                sp--;
            }
        }
    }

    private Object construct(int i, Binding b) {
        Ctors c = ctors(b.r);
        Object[] args = new Object[b.r.fields.length];
        long o = m.objectOffset(i, b.w);
        for (int j = 0; j < b.r.fields.length; j++) {
            JType.JField f = b.r.fields[j];
            args[f.componentIndex] = fieldValue(o, f, b.source[j], b.children[j]);
        }
        try {
            return c.canonical.invokeExact(args);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("constructing " + b.r.raw.getName() + " failed", e);
        }
    }

    private Object fieldValue(long o, JType.JField f, Shape.Field src, Binding child) {
        if (src == null) return f.type.jkind == JType.PRIM ? defaultOf(f.type.shape.kind) : null;
        if (f.type.jkind == JType.PRIM) return readPrim(f.type.shape.kind, o + src.offset);
        int v = seg.get(I32, o + src.offset);
        if (v == NULL_REF) return null;
        if (f.type.jkind == JType.ENUM) return m.enumAt(v, child.id);
        Binding c = concrete(v, child);
        return isValue(c) ? value(v, c) : built(v, c);
    }

    private static Object defaultOf(int kind) {
        return switch (kind) {
            case Shape.BOOL -> false;
            case Shape.I8 -> (byte) 0;
            case Shape.U16 -> (char) 0;
            case Shape.I16 -> (short) 0;
            case Shape.I32 -> 0;
            case Shape.I64 -> 0L;
            case Shape.F32 -> 0f;
            default -> 0d;
        };
    }

    // ------------------------------------------------------------------ phase 3: contents of containers

    private void fill(int i, Binding b, int createdLength) {
        Object target = get(i, b);
        switch (b.r.jkind) {
            case JType.CLASS -> {
                long o = m.objectOffset(i, b.w);
                for (int j = 0; j < b.r.fields.length; j++) {
                    if (b.source[j] == null) continue;
                    JType.JField f = b.r.fields[j];
                    if (f.setter == null) throw Schema.inaccessible(b.r.raw, "field " + f.name);
                    Object v = fieldValue(o, f, b.source[j], b.children[j]);
                    try {
                        f.setter.invoke(target, v);
                    } catch (RuntimeException | Error e) {
                        throw e;
                    } catch (Throwable e) {
                        throw new IllegalStateException("setting " + f.where + " failed", e);
                    }
                }
            }
            case JType.REF_ARRAY, JType.LIST -> {
                long o = m.objectOffset(i, b.w);
                int n = m.arrayLength(o, b.w);
                Binding eb = b.element;
                Object[] arr = b.r.jkind == JType.REF_ARRAY ? (Object[]) target : null;
                @SuppressWarnings("unchecked") List<Object> list = arr == null ? (List<Object>) target : null;
                if (n != createdLength || list != null && !list.isEmpty()) {
                    throw Message.changed(o, "array length changed while materializing");
                }
                for (int k = 0; k < n; k++) {
                    int r = seg.get(I32, o + 4 + 4L * k);
                    Object v;
                    if (r == NULL_REF) v = null;
                    else if (eb.r.jkind == JType.ENUM) v = m.enumAt(r, eb.id);
                    else {
                        Binding c = concrete(r, eb);
                        v = isValue(c) ? value(r, c) : built(r, c);
                    }
                    if (arr != null) arr[k] = v;
                    else list.add(v);
                }
            }
            default -> { }
        }
    }

    // ------------------------------------------------------------------ bookkeeping

    private void push(int i, Binding b) {
        if (size == idx.length) {
            idx = Arrays.copyOf(idx, size * 2);
            bind = Arrays.copyOf(bind, size * 2);
            lens = Arrays.copyOf(lens, size * 2);
        }
        lens[size] = lastLength;
        idx[size] = i;
        bind[size++] = b;
    }

    private static long key(int i, Binding b) { return ((long) i << 32) | (b.id & 0xFFFFFFFFL); }

    /** An object index read from the message again: re-checked, the memory may have changed since validation. */
    private int checked(int i) {
        if (Integer.compareUnsigned(i, memo.length) >= 0) throw Message.changed(-1, "reference " + Integer.toUnsignedString(i) + " out of range");
        return i;
    }

    /** The object built for (i, b), which discovery must have reached. */
    private Object built(int i, Binding b) {
        if (!has(i, b)) throw Message.changed(-1, "reference to object " + i + " that was not there when the graph was discovered");
        return get(i, b);
    }

    private Object get(int i, Binding b) {
        checked(i);
        if (memoBinding[i] == b) {
            Object o = memo[i];
            return o == PENDING ? null : o;
        }
        if (memoBinding[i] == null || extra == null) return null;
        Object o = extra.get(key(i, b));
        return o == PENDING ? null : o;
    }

    /** True once (i, b) was discovered, built or not. */
    private boolean has(int i, Binding b) {
        checked(i);
        if (memoBinding[i] == b) return true;
        return memoBinding[i] != null && extra != null && extra.containsKey(key(i, b));
    }

    private void put(int i, Binding b, Object v) {
        checked(i);
        if (memoBinding[i] == null || memoBinding[i] == b) {
            memoBinding[i] = b;
            memo[i] = v;
        } else {
            if (extra == null) extra = new HashMap<>();
            extra.put(key(i, b), v);
        }
    }

    /** Constructors of a record or class, found once per type. */
    static final class Ctors {
        MethodHandle canonical; // (Object[])Object for records
        MethodHandle noArg;     // ()Object for classes
    }

    static Ctors ctors(JType t) {
        Object s = t.materializerState;
        if (s != null) return (Ctors) s;
        Ctors c = new Ctors();
        MethodHandles.Lookup lookup = Schema.lookupFor(t.raw);
        try {
            if (t.jkind == JType.RECORD) {
                Class<?>[] types = Arrays.stream(t.raw.getRecordComponents()).map(rc -> rc.getType()).toArray(Class<?>[]::new);
                MethodHandle mh = lookup.findConstructor(t.raw, MethodType.methodType(void.class, types));
                c.canonical = mh.asSpreader(Object[].class, types.length).asType(MethodType.methodType(Object.class, Object[].class));
            } else {
                c.noArg = lookup.findConstructor(t.raw, MethodType.methodType(void.class)).asType(MethodType.methodType(Object.class));
            }
        } catch (NoSuchMethodException e) {
            throw new WireSchemaException(t.raw.getName() + " needs a no-argument constructor (any access) to be materialized", e);
        } catch (IllegalAccessException e) {
            throw Schema.inaccessible(t.raw, "the constructor");
        }
        t.materializerState = c;
        return c;
    }
}
