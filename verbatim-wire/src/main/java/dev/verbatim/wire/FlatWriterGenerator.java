package dev.verbatim.wire;

import java.lang.classfile.ClassBuilder;
import java.lang.classfile.ClassFile;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

import static dev.verbatim.wire.Bytecode.*;
import static java.lang.constant.ConstantDescs.CD_Object;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_long;

/**
 * Adds {@code writeFlat} to a flat type's {@link StructWriter} (see {@link StructWriter#flat}): a whole message whose
 * root references only leaves (strings, boxes, primitive arrays and structs of primitives and enums only, such as
 * {@code Instant} and {@code UUID}), written in one straight pass with no identity index, no queue and no dispatch per
 * object: the bytes the general writer writes. For a root of aligned size {@code A} with leaves {@code l1..lr} (its
 * reference fields in layout order), the generated code is:
 * <pre>{@code
 * long pos = base + HEADER_LENGTH;
 * if (pos + A > limit) return -1;
 * int next = 1;                                  // object 0 is the root
 * w.entries[0] = entryType | HEADER_LENGTH;
 * // the root's words, fields read in layout order as the general writer reads them; a leaf, at its field's turn:
 * Object l1 = symbol(root);                      // read once, numbered in layout order as the queue would
 * if (l1 == null) i1 = -1;
 * else i1 = next++;
 * ... Object l2 = venue(root);
 * if (l2 == null) i2 = -1;
 * else if (l2 == l1) { i2 = i1; l2 = null; }     // shared with an earlier leaf of its class: written once
 * else i2 = next++;
 * seg.set(I64, pos + 0, ...);                    // each word with its fields and leaf numbers
 * pos += A;
 * if (l1 != null) {                               // the leaves in index order, each 8-aligned
 *     w.entries[i1] = (long) T_STRING << 32 | (pos - base);
 *     pos = w.flatString(l1, seg, base, pos, limit); if (pos < 0) return -1;
 * }
 * ...                                             // a struct leaf: its words, as writeRun would store them
 * return w.finishFlat(seg, base, pos, next, limit);
 * }</pre>
 * Leaves of one class are compared by identity, so shared ones are written once, as the identity index would. A leaf's
 * type is final, so a leaf is of its field's class exactly, as the general writer's queue would type it.
 *
 * <p>Thread-safe: stateless.
 */
final class FlatWriterGenerator {
    private FlatWriterGenerator() {}

    /**
     * At most this many reference fields for a flat root: its objects' entries fit the writer's queue arrays, which never
     * hold fewer than 64 ({@code WireWriter.end}, {@code growQueue}).
     */
    static final int MAX_LEAVES = 32;
    /**
     * The most bytes of code a {@code writeFlat} may have: HotSpot does not compile a method of more than 8,000
     * ({@code -XX:HugeMethodLimit}), and interpreted it would be slower than the general writer (a root of 31 strings
     * and a record: 6,700 ns against 980). Its code grows with the leaves' fields and, for leaves of one class, with
     * the square of their number (each compared with the earlier ones); a type past this is written the general way.
     */
    static final int MAX_CODE_BYTES = 7_000;

    /** Whether the {@code writeFlat} of writer class {@code classBytes} is small enough for the JIT ({@link #MAX_CODE_BYTES}). */
    static boolean compiles(byte[] classBytes) {
        for (java.lang.classfile.MethodModel m : ClassFile.of().parse(classBytes).methods()) {
            if (m.methodName().equalsString("writeFlat")) {
                return m.findAttribute(java.lang.classfile.Attributes.code())
                        .map(c -> c.codeLength() <= MAX_CODE_BYTES).orElse(false);
            }
        }
        return false;
    }

    /**
     * Whether {@code t} is a flat type: a record or class (the caller checks the root's exact class) whose reference
     * fields are at most {@link #MAX_LEAVES} leaves of a final type that the general writer writes without a look at
     * further objects: a string, a box, a primitive array, or a final record or class whose fields are all primitives
     * or enums.
     */
    static boolean isFlat(JType t) {
        if (t.jkind != JType.RECORD && t.jkind != JType.CLASS) return false;
        int leaves = 0;
        for (JType.JField f : t.fields) {
            Shape s = f.type.shape;
            if (s.isInline() || s.isPrimitive()) continue;
            if (!isLeaf(f.type) || ++leaves > MAX_LEAVES) return false;
        }
        return true;
    }

    private static boolean isLeaf(JType t) {
        if (!Modifier.isFinal(t.raw.getModifiers())) return false;
        return switch (t.jkind) {
            case JType.STRING, JType.BOXED, JType.PRIM_ARRAY -> true;
            case JType.RECORD, JType.CLASS -> {
                for (JType.JField f : t.fields) {
                    if (f.getter == null || !(f.type.shape.isPrimitive() || f.type.shape.kind == Shape.ENUM)) yield false;
                }
                yield true;
            }
            default -> false;
        };
    }

    /**
     * Adds {@code flat()} and {@code writeFlat} for flat type {@code t} to the writer class {@code cb} builds,
     * appending the constants its code loads to {@code data}.
     */
    static void addWriteFlat(ClassBuilder cb, JType t, List<Object> data) {
        Shape s = t.shape;
        List<Shape.Field> refs = new ArrayList<>();
        for (Shape.Field sf : s.layoutOrder) {
            if (sf.isReference()) refs.add(sf);
        }
        int r = refs.size();
        // locals: 0 this, 1 w, 2 root, 3 seg, 4-5 base, 6-7 limit, 8-9 entryType, 10-11 pos, 12 next, 13-14 word,
        // 15.. the leaves (r), then their indices (r)
        int leaf0 = 15, index0 = 15 + r;
        cb.withMethodBody("flat", MethodTypeDesc.of(ConstantDescs.CD_boolean), ClassFile.ACC_FINAL, code -> code.iconst_1().ireturn());
        MethodTypeDesc type = MethodTypeDesc.of(CD_long, CD_WireWriter, CD_Object, CD_MemorySegment, CD_long, CD_long, CD_long);
        cb.withMethodBody("writeFlat", type, ClassFile.ACC_FINAL, code -> {
            Label noFit = code.newLabel();
            code.lload(4).ldc((long) MessageDescriptor.HEADER_LENGTH).ladd().lstore(10);
            long aligned = MessageDescriptor.align8(s.objectSize);
            code.lload(10).ldc(aligned).ladd().lload(6).lcmp().ifgt(noFit);
            code.iconst_1().istore(12);
            code.aload(1).getfield(CD_WireWriter, "entries", CD_long_array).iconst_0()
                    .lload(8).ldc((long) MessageDescriptor.HEADER_LENGTH).lor().lastore();
            // the root's words, each leaf read and numbered at its field's turn: the accessors are called in the
            // general writer's order (layout order, after the root's fit check)
            List<String> names = refs.stream().map(f -> f.name).toList();
            StructWriterGenerator.writeWords(code, t, data, 2, c -> c.aload(1), f -> {
                int k = names.indexOf(f.name);
                return c -> {
                    number(c, t, refs, k, leaf0, index0, data);
                    c.iload(index0 + k);
                };
            });
            code.lload(10).ldc(aligned).ladd().lstore(10);
            for (int k = 0; k < r; k++) {
                writeLeaf(code, Bytecode.field(t, refs.get(k).name).type, leaf0 + k, index0 + k, data, noFit);
            }
            code.aload(1).aload(3).lload(4).lload(10).iload(12).lload(6)
                    .invokevirtual(CD_WireWriter, "finishFlat", MethodTypeDesc.of(CD_long, CD_MemorySegment, CD_long, CD_long, CD_int, CD_long))
                    .lreturn();
            code.labelBinding(noFit);
            code.ldc(-1L).lreturn();
        });
    }

    /** Reads leaf {@code k} into its local and numbers it (see the class comment). */
    private static void number(CodeBuilder code, JType t, List<Shape.Field> refs, int k, int leaf0, int index0, List<Object> data) {
        JType.JField jf = Bytecode.field(t, refs.get(k).name);
        int getter = data.size();
        data.add(jf.getter);
        Label nonNull = code.newLabel();
        Label done = code.newLabel();
        code.ldc(classDataAt(CD_MethodHandle, getter)).aload(2)
                .invokevirtual(CD_MethodHandle, "invokeExact", MethodTypeDesc.of(CD_Object, CD_Object)).astore(leaf0 + k);
        code.aload(leaf0 + k).ifnonnull(nonNull);
        code.iconst_m1().istore(index0 + k).goto_(done);
        code.labelBinding(nonNull);
        for (int j = 0; j < k; j++) {
            if (Bytecode.field(t, refs.get(j).name).type.raw != jf.type.raw) continue; // (leaves of two classes are two objects)
            Label other = code.newLabel();
            code.aload(leaf0 + k).aload(leaf0 + j).if_acmpne(other);
            code.iload(index0 + j).istore(index0 + k).aconst_null().astore(leaf0 + k).goto_(done);
            code.labelBinding(other);
        }
        code.iload(12).istore(index0 + k).iinc(12, 1);
        code.labelBinding(done);
    }

    /** Writes leaf {@code leaf} (skipped if null: absent, or written as an earlier one) at {@code pos}, with its entry. */
    private static void writeLeaf(CodeBuilder code, JType lt, int leaf, int index, List<Object> data, Label noFit) {
        Label skip = code.newLabel();
        code.aload(leaf).ifnull(skip);
        // its object-table entry: (type id << 32) | offset; a type id assigned in the order objects are written
        code.aload(1).getfield(CD_WireWriter, "entries", CD_long_array).iload(index);
        if (lt.shape.builtinId != 0) {
            code.ldc((long) lt.shape.builtinId << 32);
        } else {
            int at = data.size();
            data.add(lt.shape);
            code.aload(1).ldc(classDataAt(CD_Shape, at)).invokevirtual(CD_WireWriter, "typeId", MethodTypeDesc.of(CD_int, CD_Shape))
                    .i2l().ldc(32).lshl();
        }
        code.lload(10).lload(4).lsub().lor().lastore();
        if (lt.jkind == JType.RECORD || lt.jkind == JType.CLASS) {
            long aligned = MessageDescriptor.align8(lt.shape.objectSize);
            code.lload(10).ldc(aligned).ladd().lload(6).lcmp().ifgt(noFit);
            StructWriterGenerator.writeWords(code, lt, data, leaf, c -> c.aload(1), f -> null);
            code.lload(10).ldc(aligned).ladd().lstore(10);
        } else {
            code.aload(1).aload(leaf).aload(3).lload(4).lload(10).lload(6);
            if (lt.jkind == JType.STRING) {
                code.invokevirtual(CD_WireWriter, "flatString", MethodTypeDesc.of(CD_long, CD_Object, CD_MemorySegment, CD_long, CD_long, CD_long));
            } else {
                int at = data.size();
                data.add(lt);
                code.ldc(classDataAt(CD_JType, at))
                        .invokevirtual(CD_WireWriter, "flatLeaf", MethodTypeDesc.of(CD_long, CD_Object, CD_MemorySegment, CD_long, CD_long, CD_long, CD_JType));
            }
            code.lstore(10);
            code.lload(10).lconst_0().lcmp().iflt(noFit);
        }
        code.labelBinding(skip);
    }
}
