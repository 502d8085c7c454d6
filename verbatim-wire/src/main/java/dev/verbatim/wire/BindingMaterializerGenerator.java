package dev.verbatim.wire;

import java.lang.classfile.ClassFile;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.DirectMethodHandleDesc;
import java.lang.constant.DynamicConstantDesc;
import java.lang.constant.MethodHandleDesc;
import java.lang.constant.MethodTypeDesc;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.List;

import static dev.verbatim.wire.Bytecode.*;
import static java.lang.constant.ConstantDescs.CD_Object;
import static java.lang.constant.ConstantDescs.CD_boolean;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_long;
import static java.lang.constant.ConstantDescs.CD_void;

/**
 * Generates the {@link BindingMaterializer} of a record or class binding, once per binding: a hidden class whose methods read
 * the type's fields at constant offsets and call its constructor and setters through method handles loaded as
 * constants from the class data (so the JIT inlines them into plain {@code new} and {@code putfield}), with no
 * boxing, no argument array and no per-field dispatch. For a class {@code Node { int value; Node next; }}:
 * <pre>{@code
 * Object create() { return NEW_NODE.invokeExact(); }
 * void fill(Materializer m, Object t, long o) {
 *     MemorySegment seg = m.seg;
 *     while (true) {
 *         long w0 = seg.get(I64, o);                                  // one read per 8-byte word of the layout
 *         Object next = m.chain((int) w0, CODE_Node);                 // CODE_Node: a dynamic constant
 *         SET_next.invokeExact(t, next);
 *         SET_value.invokeExact(t, (int) (w0 >>> 32));
 *         int at = m.chained();                                       // the next node was new: fill it now
 *         if (at < 0) return;
 *         t = next;
 *         o = at;
 *     }
 * }
 * }</pre>
 * and for a record {@code Order(long id, String symbol, int quantity)}:
 * <pre>{@code
 * Object construct(Materializer m, long o) {
 *     MemorySegment seg = m.seg;
 *     long w0 = seg.get(I64, o), w1 = seg.get(I64, o + 8);
 *     return NEW_ORDER.invokeExact(w0, m.str((int) (w1 >>> 32), CODE_String), (int) w1);
 * }
 * }</pre>
 * The codes of other bindings are dynamic constants resolved on first execution ({@link #codeOf}), so recursive
 * and mutually recursive types need no ordering. Fields the writer lacks read as defaults (records) or keep what
 * the constructor set (classes); fields the reader lacks are never read.
 *
 * <p>Thread-safe: called under {@link BindingMaterializer}'s lock.
 */
final class BindingMaterializerGenerator {
    private BindingMaterializerGenerator() {}

    static final ClassDesc CD_BindingMaterializer = ClassDesc.of(BindingMaterializer.class.getName());
    static final ClassDesc CD_Materializer = ClassDesc.of(Materializer.class.getName());
    static final ClassDesc CD_Binding = ClassDesc.of(Binding.class.getName());
    private static final ClassDesc CD_Self = ClassDesc.of(BindingMaterializerGenerator.class.getName());
    private static final MethodTypeDesc MTD_INIT = MethodTypeDesc.of(CD_void, CD_Binding);
    private static final MethodTypeDesc MTD_HELPER = MethodTypeDesc.of(CD_Object, CD_int, CD_BindingMaterializer);
    private static final DirectMethodHandleDesc BSM_CODE = MethodHandleDesc.ofMethod(DirectMethodHandleDesc.Kind.STATIC, CD_Self, "codeOf",
            MethodTypeDesc.of(CD_BindingMaterializer, ConstantDescs.CD_MethodHandles_Lookup, ConstantDescs.CD_String, ConstantDescs.CD_Class, CD_int));

    /** Bootstrap of the dynamic constant that names the code of another binding. */
    static BindingMaterializer codeOf(MethodHandles.Lookup lookup, String name, Class<?> type, int bindingId) {
        return BindingMaterializer.of(Binding.byId(bindingId));
    }

    private static DynamicConstantDesc<Object> codeConstant(Binding b) {
        return DynamicConstantDesc.ofNamed(BSM_CODE, "code", CD_BindingMaterializer, b.id);
    }

    /** The code of a record or class binding; a {@link WireSchemaException} if the type cannot be constructed or filled. */
    static BindingMaterializer generate(Binding b) {
        JType t = b.r;
        boolean isRecord = t.jkind == JType.RECORD;
        List<Object> data = new ArrayList<>();
        MethodHandles.Lookup lookup = Schema.lookupFor(t.raw);
        try {
            if (t.factory != null) {
                data.add(t.factory);
            } else if (isRecord) {
                var rc = t.raw.getRecordComponents();
                Class<?>[] types = new Class<?>[rc.length];
                Class<?>[] erased = new Class<?>[rc.length];
                for (int i = 0; i < rc.length; i++) {
                    types[i] = rc[i].getType();
                    erased[i] = types[i].isPrimitive() ? types[i] : Object.class;
                }
                MethodHandle ctor = lookup.findConstructor(t.raw, MethodType.methodType(void.class, types));
                data.add(ctor.asType(MethodType.methodType(Object.class, erased)));
            } else {
                MethodHandle ctor = lookup.findConstructor(t.raw, MethodType.methodType(void.class));
                data.add(ctor.asType(MethodType.methodType(Object.class)));
            }
        } catch (NoSuchMethodException e) {
            throw new WireSchemaException(t.raw.getName() + (isRecord ? " has no canonical constructor" : " needs a no-argument constructor (any access)")
                    + " to be materialized", e);
        } catch (IllegalAccessException e) {
            throw Schema.inaccessible(t.raw, "the constructor");
        }
        if (!isRecord) {
            for (int i = 0; i < t.fields.length; i++) {
                if (b.source[i] != null && t.fields[i].setter == null) throw Schema.inaccessible(t.raw, "field " + t.fields[i].name);
            }
        }
        ClassDesc self = ClassDesc.of(Bytecode.class.getPackageName() + ".BindingMaterializer$" + simple(t.raw) + "$" + nextSerial());
        byte[] bytes = ClassFile.of().build(self, cb -> {
            cb.withFlags(ClassFile.ACC_FINAL | ClassFile.ACC_SYNTHETIC);
            cb.withSuperclass(CD_BindingMaterializer);
            cb.withMethodBody(ConstantDescs.INIT_NAME, MTD_INIT, 0, code -> code
                    .aload(0).aload(1).invokespecial(CD_BindingMaterializer, ConstantDescs.INIT_NAME, MTD_INIT).return_());
            if (isRecord) {
                cb.withMethodBody("construct", MethodTypeDesc.of(CD_Object, CD_Materializer, CD_long), ClassFile.ACC_FINAL,
                        code -> construct(code, b, data));
                if (BindingMaterializer.recordFields(b) > 0) {
                    cb.withMethodBody("descend", MethodTypeDesc.of(CD_boolean, CD_Materializer, CD_long), ClassFile.ACC_FINAL,
                            code -> descend(code, b));
                }
            } else {
                cb.withMethodBody("create", MethodTypeDesc.of(CD_Object), ClassFile.ACC_FINAL, code -> code
                        .ldc(classDataAt(CD_MethodHandle, 0))
                        .invokevirtual(CD_MethodHandle, "invokeExact", MethodTypeDesc.of(CD_Object))
                        .areturn());
                cb.withMethodBody("fill", MethodTypeDesc.of(CD_void, CD_Materializer, CD_Object, CD_long), ClassFile.ACC_FINAL,
                        code -> fill(code, b, data));
            }
        });
        try {
            MethodHandles.Lookup hidden = defineHidden(bytes, data);
            MethodHandle init = hidden.findConstructor(hidden.lookupClass(), MethodType.methodType(void.class, Binding.class));
            return (BindingMaterializer) init.invoke(b);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("generating the materializer of " + t.raw.getName() + " failed", e);
        }
    }

    // Locals of construct and descend: 0 this, 1 m, 2-3 o, 4 seg, then the words read. Of fill: 0 this, 1 m, 2 target,
    // 3-4 o, 5 seg, 6 the chained child, 7 its offset, then the words read.

    /**
     * The object's fields are read a word at a time: each 8-byte word of the layout that holds a field to read is
     * loaded once into a local (objects start 8-aligned and the tables start 8-aligned after them, so a whole word
     * of a validated object lies inside the message), and the fields are cut out of it. One segment access (with its
     * bounds and liveness checks) per word instead of per field.
     */
    private static final class Words {
        final int[] slot; // per word of the layout, its local, or -1 if nothing in it is read
        final int next;   // the first free local after them

        Words(Binding b, int firstSlot) {
            int words = (int) (MessageDescriptor.align8(b.w.objectSize) / 8);
            slot = new int[words];
            java.util.Arrays.fill(slot, -1);
            int s = firstSlot;
            for (Shape.Field src : b.source) {
                if (src == null) continue;
                int w = src.offset / 8;
                if (slot[w] < 0) {
                    slot[w] = s;
                    s += 2;
                }
            }
            next = s;
        }

        void load(CodeBuilder code, int oSlot, int segSlot) {
            for (int w = 0; w < slot.length; w++) {
                if (slot[w] < 0) continue;
                code.aload(segSlot);
                loadLayout(code, Shape.I64);
                code.lload(oSlot);
                if (w != 0) code.ldc((long) w * 8).ladd();
                code.invokeinterface(CD_MemorySegment, "get", MethodTypeDesc.of(CD_long, LAYOUT_CD[Shape.I64], CD_long));
                code.lstore(slot[w]);
            }
        }

        /** Pushes the primitive of {@code kind} at {@code offset} (as the segment accessor of its kind would return it). */
        void push(CodeBuilder code, int kind, int offset) {
            code.lload(slot[offset / 8]);
            int shift = 8 * (offset % 8);
            if (shift != 0) code.loadConstant(shift).lushr();
            switch (kind) {
                case Shape.I8 -> code.l2i().i2b();
                case Shape.U16 -> code.l2i().i2c();
                case Shape.I16 -> code.l2i().i2s();
                case Shape.I32 -> code.l2i();
                case Shape.F32 -> code.l2i().invokestatic(ConstantDescs.CD_Float, "intBitsToFloat", MethodTypeDesc.of(ConstantDescs.CD_float, CD_int));
                case Shape.F64 -> code.invokestatic(ConstantDescs.CD_Double, "longBitsToDouble", MethodTypeDesc.of(ConstantDescs.CD_double, CD_long));
                case Shape.BOOL -> code.l2i().loadConstant(0xFF).iand()
                        .invokestatic(CD_Materializer, "bool", MethodTypeDesc.of(CD_boolean, CD_int));
                default -> { } // I64
            }
        }
    }

    private static void construct(CodeBuilder code, Binding b, List<Object> data) {
        JType t = b.r;
        code.aload(1).getfield(CD_Materializer, "seg", CD_MemorySegment).astore(4);
        Words words = new Words(b, 5);
        words.load(code, 2, 4);
        code.ldc(classDataAt(CD_MethodHandle, 0));
        int n = t.fields.length;
        int[] byComponent = new int[n];
        for (int i = 0; i < n; i++) byComponent[t.fields[i].componentIndex] = i;
        ClassDesc[] params = new ClassDesc[n];
        for (int k = 0; k < n; k++) {
            int i = byComponent[k];
            JType ft = t.fields[i].type;
            params[k] = ft.jkind == JType.PRIM ? PRIM_CD[ft.shape.kind] : CD_Object;
            Shape.Field src = b.source[i];
            if (src == null) { // a field the writer lacks: its default
                if (ft.jkind == JType.OPTIONAL) code.invokestatic(CD_Optional, "empty", MethodTypeDesc.of(CD_Optional), false);
                else if (ft.jkind != JType.PRIM) code.aconst_null();
                else switch (ft.shape.kind) {
                    case Shape.I64 -> code.lconst_0();
                    case Shape.F32 -> code.fconst_0();
                    case Shape.F64 -> code.dconst_0();
                    default -> code.iconst_0();
                }
            } else {
                loadValue(code, ft, src, b.children[i], words, helperFor(ft));
            }
        }
        code.invokevirtual(CD_MethodHandle, "invokeExact", MethodTypeDesc.of(CD_Object, params)).areturn();
    }

    private static void descend(CodeBuilder code, Binding b) {
        code.aload(1).getfield(CD_Materializer, "seg", CD_MemorySegment).astore(4);
        for (int i = 0; i < b.children.length; i++) {
            if (b.source[i] == null || !BindingMaterializer.mayBeRecord(b.children[i])) continue;
            Label next = code.newLabel();
            code.aload(1);
            loadPrim(code, Shape.I32, b.source[i].offset, 2, 4);
            code.ldc(codeConstant(b.children[i]))
                    .invokevirtual(CD_Materializer, "descend", MethodTypeDesc.of(CD_boolean, CD_int, CD_BindingMaterializer))
                    .ifeq(next).iconst_1().ireturn().labelBinding(next);
        }
        code.iconst_0().ireturn();
    }

    /**
     * Sets the fields of a class. A field of the class's own binding (the next node of a list) is followed in a loop
     * rather than queued: when its object is new ({@link Materializer#chain}), it is filled next, in this call.
     */
    private static void fill(CodeBuilder code, Binding b, List<Object> data) {
        JType t = b.r;
        int chainField = -1;
        for (int i = 0; i < t.fields.length && chainField < 0; i++) {
            if (b.source[i] != null && b.children[i] == b) chainField = i;
        }
        code.aload(1).getfield(CD_Materializer, "seg", CD_MemorySegment).astore(5);
        Words words = new Words(b, 8);
        Label loop = code.newLabel();
        code.labelBinding(loop);
        words.load(code, 3, 5);
        for (int i = 0; i < t.fields.length; i++) {
            Shape.Field src = b.source[i];
            if (src == null) continue; // a field the writer lacks keeps what the constructor set
            JType.JField f = t.fields[i];
            int k = data.size();
            data.add(f.setter);
            ClassDesc vt = f.type.jkind == JType.PRIM ? PRIM_CD[f.type.shape.kind] : CD_Object;
            if (i == chainField) {
                loadValue(code, f.type, src, b.children[i], words, "chain");
                code.astore(6);
                code.ldc(classDataAt(CD_MethodHandle, k)).aload(2).aload(6);
            } else {
                code.ldc(classDataAt(CD_MethodHandle, k)).aload(2);
                loadValue(code, f.type, src, b.children[i], words, helperFor(f.type));
            }
            code.invokevirtual(CD_MethodHandle, "invokeExact", MethodTypeDesc.of(CD_void, CD_Object, vt));
        }
        if (chainField >= 0) {
            Label done = code.newLabel();
            code.aload(1).invokevirtual(CD_Materializer, "chained", MethodTypeDesc.of(CD_int)).dup().istore(7).iflt(done);
            code.aload(6).astore(2).iload(7).i2l().lstore(3).goto_(loop);
            code.labelBinding(done);
        }
        code.return_();
    }

    private static String helperFor(JType ft) {
        if (ft.jkind == JType.PRIM) return null;
        return switch (BindingMaterializer.kindOf(ft)) {
            case BindingMaterializer.ENUM -> "enm";
            case BindingMaterializer.SLOT -> "slot";
            case BindingMaterializer.CLASS -> "cls";
            case BindingMaterializer.RECORD -> "rec";
            case BindingMaterializer.STRING -> "str";
            case BindingMaterializer.OPTIONAL -> "opt";
            default -> "ref";
        };
    }

    /** Pushes the value of a field, cut out of the words read (references through the materializer's {@code helper}). */
    private static void loadValue(CodeBuilder code, JType ft, Shape.Field src, Binding child, Words words, String helper) {
        if (ft.jkind == JType.PRIM) {
            words.push(code, ft.shape.kind, src.offset);
            return;
        }
        code.aload(1);
        words.push(code, Shape.I32, src.offset);
        code.ldc(codeConstant(child));
        code.invokevirtual(CD_Materializer, helper, MTD_HELPER);
    }

    private static void loadPrim(CodeBuilder code, int kind, int offset, int oSlot, int segSlot) {
        code.aload(segSlot);
        loadLayout(code, kind);
        code.lload(oSlot);
        if (offset != 0) code.ldc((long) offset).ladd();
        code.invokeinterface(CD_MemorySegment, "get", MethodTypeDesc.of(VALUE_CD[kind], LAYOUT_CD[kind], CD_long));
    }
}
