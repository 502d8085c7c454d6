package dev.verbatim.wire;

import java.lang.classfile.ClassFile;
import java.lang.classfile.CodeBuilder;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.DynamicConstantDesc;
import java.lang.constant.MethodTypeDesc;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static java.lang.constant.ConstantDescs.CD_Object;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_long;
import static java.lang.constant.ConstantDescs.CD_void;

/**
 * Generates the per-type code of the wire format with the {@code java.lang.classfile} API, once per type:
 * struct writers, with a chain writer for linked-list types (hidden classes in this package whose field reads
 * are method handles loaded as dynamic constants from the class data, so the JIT inlines them like direct field
 * accesses), struct validators (offsets, sizes and declared types as constants, one compiled loop per shape)
 * and view classes.
 *
 * <p>Thread-safe: callers publish results through volatile fields; generating twice is harmless.
 */
final class Codegen {
    private Codegen() {}

    private static final AtomicInteger SERIAL = new AtomicInteger();
    static final ClassDesc CD_MemorySegment = ClassDesc.of(MemorySegment.class.getName());
    static final ClassDesc CD_MethodHandle = ClassDesc.of(MethodHandle.class.getName());
    static final ClassDesc CD_StructWriter = ClassDesc.of(StructWriter.class.getName());
    static final ClassDesc CD_WireWriter = ClassDesc.of(WireWriter.class.getName());
    static final ClassDesc CD_JType = ClassDesc.of(JType.class.getName());
    static final ClassDesc CD_MessageDescriptor = ClassDesc.of(MessageDescriptor.class.getName());

    /** The {@code MessageDescriptor} layout field and the descriptors of {@code MemorySegment.get/set} per primitive kind. */
    static final String[] LAYOUT_FIELD = {"I8", "I8", "U16", "I16", "I32", "I64", "F32", "F64"};
    static final ClassDesc[] LAYOUT_CD = {
            ClassDesc.of(ValueLayout.OfByte.class.getName()), ClassDesc.of(ValueLayout.OfByte.class.getName()),
            ClassDesc.of(ValueLayout.OfChar.class.getName()), ClassDesc.of(ValueLayout.OfShort.class.getName()),
            ClassDesc.of(ValueLayout.OfInt.class.getName()), ClassDesc.of(ValueLayout.OfLong.class.getName()),
            ClassDesc.of(ValueLayout.OfFloat.class.getName()), ClassDesc.of(ValueLayout.OfDouble.class.getName())};
    /** The stack value type of the segment accessor per kind (booleans travel as bytes). */
    static final ClassDesc[] VALUE_CD = {ConstantDescs.CD_byte, ConstantDescs.CD_byte, ConstantDescs.CD_char, ConstantDescs.CD_short,
            CD_int, CD_long, ConstantDescs.CD_float, ConstantDescs.CD_double};
    static final ClassDesc[] PRIM_CD = {ConstantDescs.CD_boolean, ConstantDescs.CD_byte, ConstantDescs.CD_char, ConstantDescs.CD_short,
            CD_int, CD_long, ConstantDescs.CD_float, ConstantDescs.CD_double};

    static void loadLayout(CodeBuilder code, int kind) {
        code.getstatic(CD_MessageDescriptor, LAYOUT_FIELD[kind], LAYOUT_CD[kind]);
    }

    static DynamicConstantDesc<Object> classDataAt(ClassDesc type, int index) {
        return DynamicConstantDesc.ofNamed(ConstantDescs.BSM_CLASS_DATA_AT, ConstantDescs.DEFAULT_NAME, type, index);
    }

    static final ClassDesc CD_Object_array = CD_Object.arrayType();
    static final ClassDesc CD_int_array = CD_int.arrayType();
    static final ClassDesc CD_long_array = CD_long.arrayType();

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
        Shape s = t.shape;
        List<Object> data = new ArrayList<>();
        for (JType.JField f : t.fields) {
            if (f.getter == null) throw Schema.inaccessible(t.raw, "field " + f.name);
        }
        long aligned = MessageDescriptor.align8(s.objectSize);
        ClassDesc self = ClassDesc.of(Codegen.class.getPackageName() + ".StructWriter$" + simple(t.raw) + "$" + SERIAL.incrementAndGet());
        MethodTypeDesc runType = MethodTypeDesc.of(CD_int, CD_WireWriter, CD_int, CD_MemorySegment, CD_long, CD_long, CD_long);
        byte[] bytes = ClassFile.of().build(self, cb -> {
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
                writeWords(code, t, data, 12, code2 -> code2.aload(1), null);
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
                            .invokevirtual(CD_WireWriter, "ref", MethodTypeDesc.of(CD_int, CD_Object, CD_JType)).pop();
                }
                code.iinc(2, 1);
                code.iload(2).aload(1).getfield(CD_WireWriter, "count", CD_int).if_icmpge(done);
                code.aload(1).getfield(CD_WireWriter, "typeSerials", CD_int_array).iload(2).iaload()
                        .ldc(t.serial).if_icmpeq(loop);
                code.labelBinding(done);
                code.iload(2).ireturn();
            });
            if (isChainType(t)) {
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
                    java.lang.classfile.Label room = code.newLabel();
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
                    code.iload(12).aload(1).getfield(CD_WireWriter, "entries", CD_long_array).arraylength().if_icmplt(room);
                    code.aload(1).invokevirtual(CD_WireWriter, "growQueue", ConstantDescs.MTD_void);
                    code.labelBinding(room);
                    code.aload(1).getfield(CD_WireWriter, "entries", CD_long_array).iload(12)
                            .lload(8).lload(10).lload(4).lsub().lor().lastore();
                    writeWords(code, t, data, 2, c -> c.aload(1), 19);
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
        try {
            MethodHandles.Lookup hidden = MethodHandles.lookup().defineHiddenClassWithClassData(bytes, List.copyOf(data), true);
            return (StructWriter) hidden.findConstructor(hidden.lookupClass(), java.lang.invoke.MethodType.methodType(void.class)).invoke();
        } catch (Throwable e) {
            throw new IllegalStateException("generating the writer of " + t.raw.getName() + " failed", e);
        }
    }

    static final ClassDesc CD_StructValidator = ClassDesc.of(StructValidator.class.getName());
    static final ClassDesc CD_WireReader = ClassDesc.of(WireReader.class.getName());
    static final ClassDesc CD_WireFormatException = ClassDesc.of(WireFormatException.class.getName());
    /** References whose last accepted target type a generated validator keeps in a local (the rest check every time). */
    private static final int CACHED_REFS = 16;

    /**
     * A validator of runs of a struct shape (see {@link StructValidator#validateRun}). The generated code, for
     * the shape's size {@code S}, aligned size {@code A}, and each reference field at offset {@code o} of
     * declared shape {@code D}:
     * <pre>{@code
     * int n = entries.length;
     * long room = tail - pos - S;
     * if (room < 0) throw overrun(pos, shape);
     * int maxEnd = (int) Math.min(n, i + room / A + 1); // n when A is 0
     * int j = i + 1; // phase 1, the run: entries at consecutive positions, objects that fit
     * for (long p = pos + A; j < maxEnd && entries[j] == (tidBits | p); j++, p += A) { }
     * int count = j - i;
     * long ok = -2; // per reference: the target type id last accepted there (none yet)
     * long at = pos;
     * for (int k = 0; k < count; k++, at += A) { // phase 2, the checks
     *     int r = m.get(I32, at + o);
     *     if (r != -1) {
     *         if (D == shape && Integer.compareUnsigned(r - i, count) < 0) continue; // into the run: of this type
     *         if (Integer.compareUnsigned(r, n) >= 0) throw refOutOfRange(at + o, r, entries);
     *         long t = entries[r] >>> 32;
     *         if (t != ok) ok = checkTarget(m, at + o, D, t, ids);
     *     }
     *     // booleans: checkBoolean(m, at + b); enum ordinals: checkOrdinal(m, at + e, count)
     * }
     * return j;
     * }</pre>
     * An object after the run that does not fit comes back as the first of the next call, which reports it.
     */
    static StructValidator structValidator(Shape s) {
        List<Object> data = new ArrayList<>(List.of(s)); // class data: 0 the shape, then the references' declared shapes
        long size = s.objectSize;
        long aligned = MessageDescriptor.align8(size);
        ClassDesc self = ClassDesc.of(Codegen.class.getPackageName() + ".StructValidator$"
                + (s.variantName != null ? s.variantName.replaceAll("[^A-Za-z0-9_]", "_") : "S") + "$" + SERIAL.incrementAndGet());
        MethodTypeDesc runType = MethodTypeDesc.of(CD_int, CD_MemorySegment, CD_long_array, CD_Shape.arrayType(), CD_int,
                CD_long, CD_long, CD_long);
        MethodTypeDesc getInt = MethodTypeDesc.of(CD_int, LAYOUT_CD[Shape.I32], CD_long);
        byte[] bytes = ClassFile.of().build(self, cb -> {
            finalSubclass(cb, CD_StructValidator);
            cb.withMethodBody("validateRun", runType, ClassFile.ACC_FINAL, code -> {
                // locals: 0 this, 1 m, 2 entries, 3 ids, 4 i, 5-6 pos, 7-8 tail, 9-10 tidBits, 11 n, 12 r, 13-14 t,
                // 15 j (the run's end), 16-17 p, 18 count, 19 k, 20-21 at, 22 maxEnd,
                // 23.. the accepted target type per cached reference (2 slots each)
                int refs = s.refOffsets.length;
                int cached = Math.min(refs, CACHED_REFS);
                java.lang.classfile.Label fits = code.newLabel();
                java.lang.classfile.Label scan = code.newLabel();
                java.lang.classfile.Label scanned = code.newLabel();
                java.lang.classfile.Label check = code.newLabel();
                code.aload(2).arraylength().istore(11);
                // Phase 1, the run: objects of this type at consecutive positions, as many as fit before the tail (one
                // that does not fit ends the run, and the caller's next call reports it).
                code.lload(7).lload(5).lsub().ldc(size).lsub().lstore(16); // room after the first object
                code.lload(16).lconst_0().lcmp().ifge(fits);
                code.lload(5).ldc(classDataAt(CD_Shape, 0))
                        .invokestatic(CD_WireReader, "overrun", MethodTypeDesc.of(CD_WireFormatException, CD_long, CD_Shape)).athrow();
                code.labelBinding(fits);
                if (aligned > 0) {
                    java.lang.classfile.Label capped = code.newLabel();
                    code.iload(4).i2l().lload(16).ldc(aligned).ldiv().ladd().lconst_1().ladd().lstore(16);
                    code.lload(16).iload(11).i2l().lcmp().ifle(capped);
                    code.iload(11).i2l().lstore(16);
                    code.labelBinding(capped);
                    code.lload(16).l2i().istore(22);
                } else {
                    code.iload(11).istore(22);
                }
                code.iload(4).iconst_1().iadd().istore(15);
                code.lload(5).ldc(aligned).ladd().lstore(16);
                code.labelBinding(scan);
                code.iload(15).iload(22).if_icmpge(scanned);
                code.aload(2).iload(15).laload().lload(9).lload(16).lor().lcmp().ifne(scanned);
                code.iinc(15, 1);
                code.lload(16).ldc(aligned).ladd().lstore(16);
                code.goto_(scan);
                code.labelBinding(scanned);
                code.iload(15).iload(4).isub().istore(18);
                // Phase 2, the checks of objects i .. j-1, a counted loop. A reference of this type's own shape into
                // the run is of this type: the run's entries say so (phase 1).
                for (int j = 0; j < cached; j++) code.ldc(-2L).lstore(23 + 2 * j);
                code.iconst_0().istore(19);
                code.lload(5).lstore(20);
                code.labelBinding(check);
                for (int j = 0; j < refs; j++) {
                    long off = s.refOffsets[j];
                    int declared = data.size();
                    data.add(s.refShapes[j]);
                    java.lang.classfile.Label skip = code.newLabel();
                    java.lang.classfile.Label inRange = code.newLabel();
                    code.aload(1);
                    loadLayout(code, Shape.I32);
                    code.lload(20).ldc(off).ladd().invokeinterface(CD_MemorySegment, "get", getInt).istore(12);
                    code.iload(12).iconst_m1().if_icmpeq(skip);
                    if (s.refShapes[j] == s) {
                        code.iload(12).iload(4).isub().iload(18)
                                .invokestatic(ConstantDescs.CD_Integer, "compareUnsigned", MethodTypeDesc.of(CD_int, CD_int, CD_int))
                                .iflt(skip);
                    }
                    code.iload(12).iload(11).invokestatic(ConstantDescs.CD_Integer, "compareUnsigned", MethodTypeDesc.of(CD_int, CD_int, CD_int))
                            .iflt(inRange);
                    code.lload(20).ldc(off).ladd().iload(12).aload(2)
                            .invokestatic(CD_WireReader, "refOutOfRange", MethodTypeDesc.of(CD_WireFormatException, CD_long, CD_int, CD_long_array))
                            .athrow();
                    code.labelBinding(inRange);
                    code.aload(2).iload(12).laload().ldc(32).lushr().lstore(13);
                    if (j < cached) code.lload(13).lload(23 + 2 * j).lcmp().ifeq(skip);
                    code.aload(1).lload(20).ldc(off).ladd().ldc(classDataAt(CD_Shape, declared)).lload(13).aload(3)
                            .invokestatic(CD_WireReader, "checkTarget",
                                    MethodTypeDesc.of(CD_long, CD_MemorySegment, CD_long, CD_Shape, CD_long, CD_Shape.arrayType()));
                    if (j < cached) code.lstore(23 + 2 * j);
                    else code.pop2();
                    code.labelBinding(skip);
                }
                for (int b : s.boolOffsets) {
                    code.aload(1).lload(20).ldc((long) b).ladd()
                            .invokestatic(CD_WireReader, "checkBoolean", MethodTypeDesc.of(CD_void, CD_MemorySegment, CD_long));
                }
                for (int j = 0; j < s.enumOffsets.length; j++) {
                    code.aload(1).lload(20).ldc((long) s.enumOffsets[j]).ladd().ldc(s.enumCounts[j])
                            .invokestatic(CD_WireReader, "checkOrdinal", MethodTypeDesc.of(CD_void, CD_MemorySegment, CD_long, CD_int));
                }
                code.lload(20).ldc(aligned).ladd().lstore(20);
                code.iinc(19, 1);
                code.iload(19).iload(18).if_icmplt(check);
                code.iload(15).ireturn();
            });
        });
        try {
            MethodHandles.Lookup hidden = MethodHandles.lookup().defineHiddenClassWithClassData(bytes, List.copyOf(data), true);
            return (StructValidator) hidden.findConstructor(hidden.lookupClass(), java.lang.invoke.MethodType.methodType(void.class)).invoke();
        } catch (Throwable e) {
            throw new IllegalStateException("generating the validator of " + s + " failed", e);
        }
    }

    /**
     * Emits the stores of one object's layout words at {@code pos} (local 10-11) into {@code seg} (local 3), the object
     * in local {@code obj}, a word in local 13-14. References go through {@code w.ref} (the writer loaded by
     * {@code loadWriter}), or, when {@code refLocal} is not null, are the int in that local.
     */
    private static void writeWords(CodeBuilder code, JType t, List<Object> data, int obj,
                                   java.util.function.Consumer<CodeBuilder> loadWriter, Integer refLocal) {
        Shape s = t.shape;
        long aligned = MessageDescriptor.align8(s.objectSize);
        Shape.Field[] order = s.layoutOrder;
        int f = 0;
        for (int word = 0; word < aligned; word += 8) {
            code.lconst_0().lstore(13);
            for (; f < order.length && order[f].offset < word + 8; f++) {
                Shape.Field sf = order[f];
                JType.JField jf = field(t, sf.name);
                int k = data.size();
                data.add(jf.getter);
                if (sf.type.isPrimitive()) {
                    int kind = sf.type.kind;
                    code.ldc(classDataAt(CD_MethodHandle, k)).aload(obj)
                            .invokevirtual(CD_MethodHandle, "invokeExact", MethodTypeDesc.of(PRIM_CD[kind], CD_Object));
                    widenToWord(code, kind);
                } else if (refLocal != null && sf.type.kind != Shape.ENUM) {
                    code.iload(refLocal);
                    widenToWord(code, Shape.I32);
                } else {
                    int tk = data.size();
                    data.add(jf.type);
                    loadWriter.accept(code);
                    code.ldc(classDataAt(CD_MethodHandle, k)).aload(obj)
                            .invokevirtual(CD_MethodHandle, "invokeExact", MethodTypeDesc.of(CD_Object, CD_Object))
                            .ldc(classDataAt(CD_JType, tk));
                    code.invokevirtual(CD_WireWriter, sf.type.kind == Shape.ENUM ? "ordinal" : "ref",
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
    }

    static final ClassDesc CD_Shape = ClassDesc.of(Shape.class.getName());
    static final ClassDesc CD_Message = ClassDesc.of(Message.class.getName());
    static final ClassDesc CD_ViewBase = ClassDesc.of(ViewBase.class.getName());
    static final ClassDesc CD_Codegen = ClassDesc.of(Codegen.class.getName());
    private static final MethodTypeDesc MTD_VIEW_INIT = MethodTypeDesc.of(CD_void, CD_Message, CD_MemorySegment, CD_long);
    private static final MethodTypeDesc MTD_MAKE_VIEW = MethodTypeDesc.of(CD_Object, CD_Message, CD_MemorySegment, CD_long);
    private static final java.lang.constant.DirectMethodHandleDesc BSM_VIEW = java.lang.constant.MethodHandleDesc.ofMethod(
            java.lang.constant.DirectMethodHandleDesc.Kind.STATIC, CD_Codegen, "bootstrapView",
            MethodTypeDesc.of(ConstantDescs.CD_CallSite, ConstantDescs.CD_MethodHandles_Lookup, ConstantDescs.CD_String,
                    ConstantDescs.CD_MethodType, CD_int));

    /** Bootstrap of the {@code invokedynamic} that builds a child view: a constant call site to its constructor. */
    static java.lang.invoke.CallSite bootstrapView(MethodHandles.Lookup lookup, String name, java.lang.invoke.MethodType type, int bindingId) {
        Binding b = Binding.byId(bindingId);
        MethodHandle ctor = b.viewCtor;
        if (ctor == null) ctor = viewCtor(b);
        return new java.lang.invoke.ConstantCallSite(ctor.asType(type));
    }

    /** The constructor (Message, MemorySegment, long)Object of the view class of an interface binding, generated once. */
    static MethodHandle viewCtor(Binding b) {
        synchronized (b) {
            if (b.viewCtor != null) return b.viewCtor;
            JType r = b.r;
            if (!java.lang.reflect.Modifier.isPublic(r.raw.getModifiers())) {
                throw new WireSchemaException("view interface " + r.raw.getName() + " must be public");
            }
            ClassDesc self = ClassDesc.of(Codegen.class.getPackageName() + ".View$" + simple(r.raw) + "$" + SERIAL.incrementAndGet());
            List<Object> data = new ArrayList<>(List.of(r)); // class data: 0 the view's type, then the children's shapes
            byte[] bytes = ClassFile.of().build(self, cb -> {
                cb.withFlags(ClassFile.ACC_FINAL | ClassFile.ACC_SYNTHETIC);
                cb.withSuperclass(CD_ViewBase);
                cb.withInterfaceSymbols(ClassDesc.ofDescriptor(r.raw.descriptorString()));
                cb.withMethodBody(ConstantDescs.INIT_NAME, MTD_VIEW_INIT, 0, code -> code
                        .aload(0).aload(1).aload(2).lload(3)
                        .invokespecial(CD_ViewBase, ConstantDescs.INIT_NAME, MTD_VIEW_INIT).return_());
                cb.withMethodBody("viewType", MethodTypeDesc.of(CD_JType), ClassFile.ACC_FINAL, code -> code
                        .ldc(classDataAt(CD_JType, 0)).areturn());
                cb.withMethodBody("make", MethodTypeDesc.of(CD_ViewBase, CD_Message, CD_MemorySegment, CD_long), ClassFile.ACC_FINAL,
                        code -> code.new_(self).dup().aload(1).aload(2).lload(3)
                                .invokespecial(self, ConstantDescs.INIT_NAME, MTD_VIEW_INIT).areturn());
                for (int i = 0; i < r.fields.length; i++) {
                    JType.JField f = r.fields[i];
                    Shape.Field src = b.source[i];
                    Binding child = b.children[i];
                    ClassDesc ret = ClassDesc.ofDescriptor(f.type.raw.descriptorString());
                    cb.withMethodBody(f.name, MethodTypeDesc.of(ret), ClassFile.ACC_PUBLIC | ClassFile.ACC_FINAL,
                            code -> viewAccessor(code, f, src, child, ret, data));
                }
            });
            try {
                MethodHandles.Lookup hidden = MethodHandles.lookup().defineHiddenClassWithClassData(bytes, List.copyOf(data), true);
                MethodHandle ctor = hidden.findConstructor(hidden.lookupClass(),
                        java.lang.invoke.MethodType.methodType(void.class, Message.class, MemorySegment.class, long.class));
                ctor = ctor.asType(java.lang.invoke.MethodType.methodType(Object.class, Message.class, MemorySegment.class, long.class));
                b.prototype = (ViewBase) (Object) ctor.invokeExact((Message) null, (MemorySegment) null, 0L);
                b.viewCtor = ctor;
                return ctor;
            } catch (ReflectiveOperationException | LinkageError e) {
                throw new WireSchemaException("cannot generate a view of " + r.raw.getName() + " (is it public and visible to "
                        + "module dev.verbatim.wire?): " + e, e);
            } catch (RuntimeException e) {
                throw e;
            } catch (Throwable e) {
                throw new IllegalStateException("constructing the view prototype of " + r.raw.getName() + " failed", e);
            }
        }
    }

    private static void loadField(CodeBuilder code, int kind, int offset) {
        code.aload(0).getfield(CD_ViewBase, "seg", CD_MemorySegment);
        loadLayout(code, kind);
        code.aload(0).getfield(CD_ViewBase, "off", CD_int).i2l().ldc((long) offset).ladd()
                .invokeinterface(CD_MemorySegment, "get", MethodTypeDesc.of(VALUE_CD[kind], LAYOUT_CD[kind], CD_long));
    }

    private static void viewAccessor(CodeBuilder code, JType.JField f, Shape.Field src, Binding child, ClassDesc ret, List<Object> data) {
        JType t = f.type;
        if (src == null) { // a field the writer's version lacks: its default
            if (t.jkind != JType.PRIM) code.aconst_null().areturn();
            else switch (t.shape.kind) {
                case Shape.I64 -> code.lconst_0().lreturn();
                case Shape.F32 -> code.fconst_0().freturn();
                case Shape.F64 -> code.dconst_0().dreturn();
                default -> code.iconst_0().ireturn();
            }
            return;
        }
        if (t.jkind == JType.PRIM) {
            int kind = t.shape.kind;
            loadField(code, kind, src.offset);
            switch (kind) {
                case Shape.BOOL -> {
                    java.lang.classfile.Label no = code.newLabel();
                    code.ifeq(no).iconst_1().ireturn().labelBinding(no).iconst_0().ireturn();
                }
                case Shape.I64 -> code.lreturn();
                case Shape.F32 -> code.freturn();
                case Shape.F64 -> code.dreturn();
                default -> code.ireturn();
            }
            return;
        }
        if (t.jkind == JType.ENUM) {
            code.aload(0).getfield(CD_ViewBase, "msg", CD_Message);
            loadField(code, Shape.I32, src.offset);
            code.ldc(child.id).invokevirtual(CD_Message, "enumAt", MethodTypeDesc.of(CD_Object, CD_int, CD_int))
                    .checkcast(ret).areturn();
            return;
        }
        if (t.jkind == JType.IFACE) {
            java.lang.classfile.Label nonNull = code.newLabel();
            loadField(code, Shape.I32, src.offset);
            code.istore(1).iload(1).iconst_m1().if_icmpne(nonNull).aconst_null().areturn().labelBinding(nonNull);
            int shapeAt = data.size();
            data.add(child.w);
            code.aload(0).getfield(CD_ViewBase, "msg", CD_Message)
                    .aload(0).getfield(CD_ViewBase, "seg", CD_MemorySegment)
                    .aload(0).getfield(CD_ViewBase, "msg", CD_Message)
                    .iload(1).ldc(classDataAt(CD_Shape, shapeAt)).ldc(MessageDescriptor.align8(child.w.objectSize))
                    .invokevirtual(CD_Message, "structAt", MethodTypeDesc.of(CD_long, CD_int, CD_Shape, CD_long))
                    .invokedynamic(java.lang.constant.DynamicCallSiteDesc.of(BSM_VIEW, "view", MTD_MAKE_VIEW, child.id))
                    .checkcast(ret).areturn();
            return;
        }
        code.aload(0).getfield(CD_ViewBase, "msg", CD_Message);
        loadField(code, Shape.I32, src.offset);
        code.ldc(child.id).invokevirtual(CD_Message, "readRef", MethodTypeDesc.of(CD_Object, CD_int, CD_int))
                .checkcast(ret).areturn();
    }

    static JType.JField field(JType t, String name) {
        for (JType.JField f : t.fields) if (f.name.equals(name)) return f;
        throw new IllegalStateException(t.raw.getName() + " has no field " + name);
    }

    /** Starts a generated class: final, synthetic, extending {@code sup} with a no-argument constructor calling its own. */
    private static void finalSubclass(java.lang.classfile.ClassBuilder cb, ClassDesc sup) {
        cb.withFlags(ClassFile.ACC_FINAL | ClassFile.ACC_SYNTHETIC);
        cb.withSuperclass(sup);
        cb.withMethodBody(ConstantDescs.INIT_NAME, ConstantDescs.MTD_void, 0, code -> code
                .aload(0).invokespecial(sup, ConstantDescs.INIT_NAME, ConstantDescs.MTD_void).return_());
    }

    static String simple(Class<?> c) {
        String n = c.getSimpleName();
        return n.isEmpty() ? "Anon" : n.replaceAll("[^A-Za-z0-9_]", "_");
    }
}
