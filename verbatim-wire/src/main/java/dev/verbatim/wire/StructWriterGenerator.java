package dev.verbatim.wire;

import java.lang.classfile.ClassFile;
import java.lang.classfile.CodeBuilder;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.lang.invoke.MethodHandles;
import java.util.ArrayList;
import java.util.List;

import static dev.verbatim.wire.Bytecode.*;
import static java.lang.constant.ConstantDescs.CD_Object;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_long;
import static java.lang.constant.ConstantDescs.CD_void;

/**
 * Generates the {@link StructWriter} of a record, class or accessor interface with the {@code java.lang.classfile}
 * API, once per type: {@code writeRun} (runs of objects of the type, one 8-byte store per word of its layout),
 * {@code sizeRun} (the same run, references only, for sizing) and, for a flat type (a record of leaves, such as a
 * trade), {@code writeFlat} ({@link FlatWriterGenerator}), or for a chain type (a linked list's node),
 * {@code writeChain}. Field reads are method handles loaded as dynamic constants from the class data, so the JIT
 * inlines them like direct field accesses.
 *
 * <p>Thread-safe: callers publish the writer through a volatile field; generating twice is harmless.
 */
final class StructWriterGenerator {
    private StructWriterGenerator() {}

    /**
     * A writer of runs of a record, class or accessor interface (see {@link StructWriter#writeRun}). The
     * generated loop, for the layout's aligned size {@code A}:
     * <pre>{@code
     * long pos = w.pos;
     * do {
     *     if (pos + A > limit) return -1;
     *     Object o = w.objects[i];
     *     w.entries[i] = entryType | (pos - base);
     *     // each 8-byte word of the layout, its fields packed little-endian (holes and padding zero), e.g. a Node:
     *     seg.set(I64, pos + 0, w.ref(next(o), T_next) & 0xFFFFFFFFL | (value(o) & 0xFFFFFFFFL) << 32);
     *     pos += A;
     *     i++;
     * } while (i < w.count && w.typeSerials[i] == T.serial);
     * w.pos = pos;
     * return i;
     * }</pre>
     */
    static StructWriter structWriter(JType t) {
        for (JType.JField f : t.fields) {
            if (f.getter == null) throw Schema.inaccessible(t.raw, "field " + f.name);
        }
        ClassDesc self = ClassDesc.of(Bytecode.class.getPackageName() + ".StructWriter$" + simple(t.raw) + "$" + nextSerial());
        List<Object> data = new ArrayList<>();
        byte[] bytes = null;
        if (FlatWriterGenerator.isFlat(t)) {
            try {
                bytes = classBytes(t, self, data, true);
            } catch (IllegalArgumentException tooLarge) {
                // a method past the class file's 64 KiB of code: written the general way (bytes stays null)
            }
            if (bytes != null && !FlatWriterGenerator.compiles(bytes)) {
                bytes = null; // a writeFlat the JIT would leave to the interpreter: the general writer is faster
            }
        }
        if (bytes == null) {
            data.clear();
            bytes = classBytes(t, self, data, false);
        }
        try {
            MethodHandles.Lookup hidden = defineHidden(bytes, data);
            return (StructWriter) hidden.findConstructor(hidden.lookupClass(), java.lang.invoke.MethodType.methodType(void.class)).invoke();
        } catch (Throwable e) {
            throw new IllegalStateException("generating the writer of " + t.raw.getName() + " failed", e);
        }
    }

    /** The writer class of {@code t}, with {@code writeFlat} if {@code flat}; its constants appended to {@code data}. */
    static byte[] classBytes(JType t, ClassDesc self, List<Object> data, boolean flat) {
        Shape s = t.shape;
        long aligned = MessageDescriptor.align8(s.objectSize);
        MethodTypeDesc runType = MethodTypeDesc.of(CD_int, CD_WireWriter, CD_int, CD_MemorySegment, CD_long, CD_long, CD_long);
        return ClassFile.of().build(self, cb -> {
            finalSubclass(cb, CD_StructWriter);
            cb.withMethodBody("writeRun", runType, ClassFile.ACC_FINAL, code -> {
                // locals: 0 this, 1 w, 2 i, 3 seg, 4-5 base, 6-7 limit, 8-9 entryType, 10-11 pos, 12 o, 13-14 word
                java.lang.classfile.Label loop = code.newLabel();
                java.lang.classfile.Label fits = code.newLabel();
                java.lang.classfile.Label done = code.newLabel();
                code.aload(1).getfield(CD_WireWriter, "pos", CD_long).lstore(10);
                code.labelBinding(loop);
                code.lload(10).ldc(aligned).ladd().lload(6).lcmp().ifle(fits).iconst_m1().ireturn();
                code.labelBinding(fits);
                code.aload(1).getfield(CD_WireWriter, "objects", CD_Object_array).iload(2).aaload().astore(12);
                code.aload(1).getfield(CD_WireWriter, "entries", CD_long_array).iload(2)
                        .lload(8).lload(10).lload(4).lsub().lor().lastore();
                // One 8-byte store per word of the layout: its fields are packed into a long (local 13-14), the
                // layout's holes and the padding stay zero, so no stale byte leaks into a message.
                writeWords(code, t, data, 12, code2 -> code2.aload(1), f -> null);
                code.lload(10).ldc(aligned).ladd().lstore(10);
                code.iinc(2, 1);
                code.iload(2).aload(1).getfield(CD_WireWriter, "count", CD_int).if_icmpge(done);
                code.aload(1).getfield(CD_WireWriter, "typeSerials", CD_int_array).iload(2).iaload()
                        .ldc(t.serial).if_icmpeq(loop);
                code.labelBinding(done);
                code.aload(1).lload(10).putfield(CD_WireWriter, "pos", CD_long);
                code.iload(2).ireturn();
            });
            // sizeRun: the same run, references only (in the same order), for sizing without writing.
            cb.withMethodBody("sizeRun", MethodTypeDesc.of(CD_int, CD_WireWriter, CD_int), ClassFile.ACC_FINAL, code -> {
                // locals: 0 this, 1 w, 2 i, 3 o
                java.lang.classfile.Label loop = code.newLabel();
                java.lang.classfile.Label done = code.newLabel();
                code.labelBinding(loop);
                code.aload(1).getfield(CD_WireWriter, "objects", CD_Object_array).iload(2).aaload().astore(3);
                for (Shape.Field sf : s.layoutOrder) {
                    if (!sf.type.isReference()) continue;
                    JType.JField jf = field(t, sf.name);
                    int k = data.size();
                    data.add(jf.getter);
                    data.add(jf.type);
                    code.aload(1).ldc(classDataAt(CD_MethodHandle, k)).aload(3)
                            .invokevirtual(CD_MethodHandle, "invokeExact", MethodTypeDesc.of(CD_Object, CD_Object))
                            .ldc(classDataAt(CD_JType, k + 1))
                            .invokevirtual(CD_WireWriter, sf.type.kind == Shape.OPTIONAL ? "optional" : "ref",
                                    MethodTypeDesc.of(CD_int, CD_Object, CD_JType)).pop();
                }
                code.iinc(2, 1);
                code.iload(2).aload(1).getfield(CD_WireWriter, "count", CD_int).if_icmpge(done);
                code.aload(1).getfield(CD_WireWriter, "typeSerials", CD_int_array).iload(2).iaload()
                        .ldc(t.serial).if_icmpeq(loop);
                code.labelBinding(done);
                code.iload(2).ireturn();
            });
            if (flat) {
                FlatWriterGenerator.addWriteFlat(cb, t, data);
            } else if (isChainType(t)) {
                cb.withMethodBody("chains", MethodTypeDesc.of(ConstantDescs.CD_boolean), ClassFile.ACC_FINAL, code -> code.iconst_1().ireturn());
                JType.JField next = null;
                for (JType.JField f : t.fields) if (f.type == t) next = f;
                int nextAt = data.size();
                data.add(next.getter);
                int rawAt = data.size();
                data.add(t.raw);
                MethodTypeDesc chainType = MethodTypeDesc.of(CD_int, CD_WireWriter, CD_Object, CD_MemorySegment, CD_long, CD_long, CD_long);
                cb.withMethodBody("writeChain", chainType, ClassFile.ACC_FINAL, code -> {
                    // locals: 0 this, 1 w, 2 o, 3 seg, 4-5 base, 6-7 limit, 8-9 entryType, 10-11 pos, 12 k, 13-14 word,
                    // 15 next, 16 saved (Brent's tortoise), 17 power, 18 steps since saved, 19 ref
                    java.lang.classfile.Label loop = code.newLabel();
                    java.lang.classfile.Label write = code.newLabel();
                    java.lang.classfile.Label sameClass = code.newLabel();
                    java.lang.classfile.Label unseen = code.newLabel();
                    java.lang.classfile.Label keep = code.newLabel();
                    java.lang.classfile.Label giveUp = code.newLabel();
                    code.lload(4).ldc((long) MessageDescriptor.HEADER_LENGTH).ladd().lstore(10);
                    code.iconst_0().istore(12);
                    code.aload(2).astore(16);
                    code.iconst_1().istore(17);
                    code.iconst_0().istore(18);
                    code.labelBinding(loop);
                    code.lload(10).ldc(aligned).ladd().lload(6).lcmp().ifgt(giveUp);
                    code.ldc(classDataAt(CD_MethodHandle, nextAt)).aload(2)
                            .invokevirtual(CD_MethodHandle, "invokeExact", MethodTypeDesc.of(CD_Object, CD_Object)).astore(15);
                    code.iconst_m1().istore(19);
                    code.aload(15).ifnull(write);
                    code.aload(15).invokevirtual(CD_Object, "getClass", MethodTypeDesc.of(ConstantDescs.CD_Class))
                            .ldc(classDataAt(ConstantDescs.CD_Class, rawAt)).if_acmpeq(sameClass).goto_(giveUp);
                    code.labelBinding(sameClass);
                    code.aload(15).aload(16).if_acmpne(unseen).goto_(giveUp);
                    code.labelBinding(unseen);
                    code.iinc(18, 1);
                    code.iload(18).iload(17).if_icmpne(keep);
                    code.aload(15).astore(16).iload(17).iconst_1().ishl().istore(17).iconst_0().istore(18);
                    code.labelBinding(keep);
                    code.iload(12).iconst_1().iadd().istore(19);
                    code.labelBinding(write);
                    // no object-table entry is kept: node k's is (entryType | HEADER + k * A), which the writer's
                    // finishChain stores into the table once the count is known
                    writeWords(code, t, data, 2, c -> c.aload(1), f -> c -> c.iload(19));
                    code.lload(10).ldc(aligned).ladd().lstore(10);
                    code.iinc(12, 1);
                    code.aload(15).astore(2);
                    code.aload(2).ifnonnull(loop);
                    code.iload(12).ireturn();
                    code.labelBinding(giveUp);
                    code.ldc(StructWriter.NOT_A_CHAIN).ireturn();
                });
            }
        });
    }

    /**
     * Emits the stores of one object's layout words at {@code pos} (local 10-11) into {@code seg} (local 3), the object
     * in local {@code obj}, a word in local 13-14. References go through {@code w.ref} (the writer loaded by
     * {@code loadWriter}), or are the int that the code {@code refCode} gives for the field emits, where it gives one
     * (emitted at the field's turn, the operand stack empty, so the fields are read in layout order either way).
     */
    static void writeWords(CodeBuilder code, JType t, List<Object> data, int obj,
                           java.util.function.Consumer<CodeBuilder> loadWriter,
                           java.util.function.Function<Shape.Field, java.util.function.Consumer<CodeBuilder>> refCode) {
        Shape s = t.shape;
        long aligned = MessageDescriptor.align8(s.objectSize);
        Shape.Field[] order = s.layoutOrder;
        int f = 0;
        for (int word = 0; word < aligned; word += 8) {
            code.lconst_0().lstore(13);
            for (; f < order.length && order[f].offset < word + 8; f++) {
                Shape.Field sf = order[f];
                JType.JField jf = field(t, sf.name);
                java.util.function.Consumer<CodeBuilder> own = sf.type.isPrimitive() || sf.type.isInline() ? null : refCode.apply(sf);
                int k = data.size();
                if (own == null) {
                    data.add(jf.getter); // (code the caller gives reads the field itself, if at all)
                }
                if (sf.type.isPrimitive()) {
                    int kind = sf.type.kind;
                    code.ldc(classDataAt(CD_MethodHandle, k)).aload(obj)
                            .invokevirtual(CD_MethodHandle, "invokeExact", MethodTypeDesc.of(PRIM_CD[kind], CD_Object));
                    widenToWord(code, kind);
                } else if (own != null) {
                    own.accept(code);
                    widenToWord(code, Shape.I32);
                } else {
                    int tk = data.size();
                    data.add(jf.type);
                    loadWriter.accept(code);
                    code.ldc(classDataAt(CD_MethodHandle, k)).aload(obj)
                            .invokevirtual(CD_MethodHandle, "invokeExact", MethodTypeDesc.of(CD_Object, CD_Object))
                            .ldc(classDataAt(CD_JType, tk));
                    code.invokevirtual(CD_WireWriter, sf.type.isInline() ? "ordinal" : sf.type.kind == Shape.OPTIONAL ? "optional" : "ref",
                            MethodTypeDesc.of(CD_int, CD_Object, CD_JType));
                    widenToWord(code, Shape.I32);
                }
                int shift = 8 * (sf.offset - word);
                if (shift != 0) code.ldc(shift).lshl();
                code.lload(13).lor().lstore(13);
            }
            code.aload(3);
            loadLayout(code, Shape.I64);
            code.lload(10).ldc((long) word).ladd().lload(13)
                    .invokeinterface(CD_MemorySegment, "set", MethodTypeDesc.of(CD_void, LAYOUT_CD[Shape.I64], CD_long, CD_long));
        }
    }

    /** Whether {@code t} is a chain type (see {@link StructWriter#chains}). */
    static boolean isChainType(JType t) {
        if (t.jkind != JType.RECORD && t.jkind != JType.CLASS) return false;
        if (!java.lang.reflect.Modifier.isFinal(t.raw.getModifiers())) return false;
        Shape s = t.shape;
        if (s.refOffsets.length != 1) return false;
        for (JType.JField f : t.fields) {
            if (f.type.shape.isReference() && f.type != t) return false;
        }
        return true;
    }

    /** Widens the primitive of {@code kind} on the stack to a long holding its little-endian bytes, zero-extended. */
    private static void widenToWord(CodeBuilder code, int kind) {
        switch (kind) {
            case Shape.BOOL -> {
                java.lang.classfile.Label no = code.newLabel();
                java.lang.classfile.Label done = code.newLabel();
                code.ifeq(no).lconst_1().goto_(done).labelBinding(no).lconst_0().labelBinding(done);
            }
            case Shape.I8 -> code.i2l().ldc(0xFFL).land();
            case Shape.U16 -> code.i2l();
            case Shape.I16 -> code.i2l().ldc(0xFFFFL).land();
            case Shape.I32 -> code.i2l().ldc(0xFFFF_FFFFL).land();
            case Shape.F32 -> code.invokestatic(ConstantDescs.CD_Float, "floatToRawIntBits", MethodTypeDesc.of(CD_int, ConstantDescs.CD_float))
                    .i2l().ldc(0xFFFF_FFFFL).land();
            case Shape.F64 -> code.invokestatic(ConstantDescs.CD_Double, "doubleToRawLongBits", MethodTypeDesc.of(CD_long, ConstantDescs.CD_double));
            default -> { } // I64
        }
    }}
