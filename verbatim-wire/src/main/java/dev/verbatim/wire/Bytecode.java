package dev.verbatim.wire;

import java.lang.classfile.ClassBuilder;
import java.lang.classfile.ClassFile;
import java.lang.classfile.CodeBuilder;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.DynamicConstantDesc;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static java.lang.constant.ConstantDescs.CD_Object;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_long;

/**
 * What the code generators of this package share ({@link StructWriterGenerator}, {@link StructValidatorGenerator},
 * {@link ViewGenerator}, {@link BindingMaterializerGenerator}): the descriptors of the classes generated code calls,
 * the segment accessors per primitive kind, class-data constants, and the definition of a hidden class.
 *
 * <p>Every generated class is a hidden class defined in this package ({@link #defineHidden}): it reaches the
 * package-private members of {@link Message}, {@link WireWriter}, {@link WireReader} and {@link Materializer} that
 * are its interface, and its method handles and shapes come from its class data, loaded as dynamic constants, so
 * the JIT sees them as constants.
 *
 * <p>Thread-safe: constants and stateless helpers.
 */
final class Bytecode {
    private Bytecode() {}

    private static final AtomicInteger SERIAL = new AtomicInteger();
    static final ClassDesc CD_Optional = ClassDesc.of("java.util.Optional");
    static final ClassDesc CD_MemorySegment = ClassDesc.of(MemorySegment.class.getName());
    static final ClassDesc CD_MethodHandle = ClassDesc.of(MethodHandle.class.getName());
    static final ClassDesc CD_StructWriter = ClassDesc.of(StructWriter.class.getName());
    static final ClassDesc CD_WireWriter = ClassDesc.of(WireWriter.class.getName());
    static final ClassDesc CD_JType = ClassDesc.of(JType.class.getName());
    static final ClassDesc CD_MessageDescriptor = ClassDesc.of(MessageDescriptor.class.getName());
    static final ClassDesc CD_Shape = ClassDesc.of(Shape.class.getName());
    static final ClassDesc CD_Message = ClassDesc.of(Message.class.getName());

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

    /** A number for the name of a generated class, unique in this process. */
    static int nextSerial() { return SERIAL.incrementAndGet(); }

    /**
     * Defines {@code bytes} as a hidden class of this package, initialised at once, with {@code data} as its class
     * data (the method handles, types and shapes its code loads as constants).
     */
    static MethodHandles.Lookup defineHidden(byte[] bytes, List<Object> data) throws IllegalAccessException {
        return MethodHandles.lookup().defineHiddenClassWithClassData(bytes, List.copyOf(data), true);
    }

    static JType.JField field(JType t, String name) {
        for (JType.JField f : t.fields) if (f.name.equals(name)) return f;
        throw new IllegalStateException(t.raw.getName() + " has no field " + name);
    }

    /** Starts a generated class: final, synthetic, extending {@code sup} with a no-argument constructor calling its own. */
    static void finalSubclass(ClassBuilder cb, ClassDesc sup) {
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
