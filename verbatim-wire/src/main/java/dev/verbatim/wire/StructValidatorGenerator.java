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
 * Generates the {@link StructValidator} of a shape with the {@code java.lang.classfile} API, once per shape of the
 * application's own types: offsets, sizes and declared types as constants, one compiled loop per shape (shapes
 * only learned from a peer get the {@link GenericStructValidator} instead).
 *
 * <p>Thread-safe: callers publish the validator through a volatile field; generating twice is harmless.
 */
final class StructValidatorGenerator {
    private StructValidatorGenerator() {}

    static final ClassDesc CD_StructValidator = ClassDesc.of(StructValidator.class.getName());
    static final ClassDesc CD_WireReader = ClassDesc.of(WireReader.class.getName());
    static final ClassDesc CD_WireFormatException = ClassDesc.of(WireFormatException.class.getName());
    static final ClassDesc CD_ValueTypes = ClassDesc.of(ValueTypes.class.getName());
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
     * int after = i + 1; // the index after the object being checked
     * int back = 0; // Integer.MIN_VALUE once a reference names the object itself or an earlier one
     * for (int k = 0; k < count; k++, at += A, after++) { // phase 2, the checks
     *     int r = m.get(I32, at + o);
     *     if (r != -1) {
     *         if (D == shape && Integer.compareUnsigned(r - after, j - after) < 0) continue; // forward into the run: of this type
     *         if (Integer.compareUnsigned(r, n) >= 0) throw refOutOfRange(at + o, r, entries);
     *         if (r < after) back = Integer.MIN_VALUE;
     *         long t = entries[r] >>> 32;
     *         if (t != ok) ok = checkTarget(m, at + o, D, t, ids);
     *     }
     *     // booleans: checkBoolean(m, at + b); enum ordinals: checkOrdinal(m, at + e, count)
     *     // a value type's rule: ValueTypes.check(shape, m, at, entries, tail)
     * }
     * return j | back;
     * }</pre>
     * An object after the run that does not fit comes back as the first of the next call, which reports it.
     */
    static StructValidator structValidator(Shape s) {
        List<Object> data = new ArrayList<>(List.of(s)); // class data: 0 the shape, then the references' declared shapes
        long size = s.objectSize;
        long aligned = MessageDescriptor.align8(size);
        ClassDesc self = ClassDesc.of(Bytecode.class.getPackageName() + ".StructValidator$"
                + (s.variantName != null ? s.variantName.replaceAll("[^A-Za-z0-9_]", "_") : "S") + "$" + nextSerial());
        MethodTypeDesc runType = MethodTypeDesc.of(CD_int, CD_MemorySegment, CD_long_array, CD_Shape.arrayType(), CD_int,
                CD_long, CD_long, CD_long);
        MethodTypeDesc getInt = MethodTypeDesc.of(CD_int, LAYOUT_CD[Shape.I32], CD_long);
        byte[] bytes = ClassFile.of().build(self, cb -> {
            finalSubclass(cb, CD_StructValidator);
            cb.withMethodBody("validateRun", runType, ClassFile.ACC_FINAL, code -> {
                // locals: 0 this, 1 m, 2 entries, 3 ids, 4 i, 5-6 pos, 7-8 tail, 9-10 tidBits, 11 n, 12 r, 13-14 t,
                // 15 j (the run's end), 16-17 p, 18 count, 19 k, 20-21 at, 22 maxEnd,
                // 23.. the accepted target type per cached reference (2 slots each), then after, back
                int refs = s.refOffsets.length;
                int cached = Math.min(refs, CACHED_REFS);
                int after = 23 + 2 * cached, back = after + 1;
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
                code.iload(4).iconst_1().iadd().istore(after);
                code.iconst_0().istore(back);
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
                        code.iload(12).iload(after).isub().iload(15).iload(after).isub()
                                .invokestatic(ConstantDescs.CD_Integer, "compareUnsigned", MethodTypeDesc.of(CD_int, CD_int, CD_int))
                                .iflt(skip);
                    }
                    code.iload(12).iload(11).invokestatic(ConstantDescs.CD_Integer, "compareUnsigned", MethodTypeDesc.of(CD_int, CD_int, CD_int))
                            .iflt(inRange);
                    code.lload(20).ldc(off).ladd().iload(12).aload(2)
                            .invokestatic(CD_WireReader, "refOutOfRange", MethodTypeDesc.of(CD_WireFormatException, CD_long, CD_int, CD_long_array))
                            .athrow();
                    code.labelBinding(inRange);
                    java.lang.classfile.Label forward = code.newLabel();
                    code.iload(12).iload(after).if_icmpge(forward);
                    code.ldc(Integer.MIN_VALUE).istore(back);
                    code.labelBinding(forward);
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
                if (ValueTypes.isValue(s)) {
                    code.ldc(classDataAt(CD_Shape, 0)).aload(1).lload(20).aload(2).lload(7)
                            .invokestatic(CD_ValueTypes, "check", MethodTypeDesc.of(CD_void, CD_Shape, CD_MemorySegment, CD_long, CD_long_array, CD_long));
                }
                code.lload(20).ldc(aligned).ladd().lstore(20);
                code.iinc(19, 1);
                code.iinc(after, 1);
                code.iload(19).iload(18).if_icmplt(check);
                code.iload(15).iload(back).ior().ireturn();
            });
        });
        try {
            MethodHandles.Lookup hidden = defineHidden(bytes, data);
            return (StructValidator) hidden.findConstructor(hidden.lookupClass(), java.lang.invoke.MethodType.methodType(void.class)).invoke();
        } catch (Throwable e) {
            throw new IllegalStateException("generating the validator of " + s + " failed", e);
        }
    }}
