package dev.verbatim.rpc.internal;

import java.lang.classfile.ClassFile;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.instruction.SwitchCase;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.AccessFlag;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The server side of an interface: a class generated once per interface (the
 * {@code java.lang.classfile} API, a hidden class) whose {@code invoke} switches on the method
 * index and calls the implementation directly, unboxing the arguments and boxing the result. No
 * reflection and no method-handle dispatch per call: the JIT sees a plain interface call.
 */
final class Stubs {
    private Stubs() {}

    /** What the generated classes implement. */
    public interface Stub {
        Object invoke(int method, Object impl, Object[] args) throws Throwable;
    }

    private static final AtomicLong SERIAL = new AtomicLong();
    private static final ClassDesc CD_STUB = ClassDesc.of(Stub.class.getName());
    private static final MethodTypeDesc MTD_INVOKE = MethodTypeDesc.of(ConstantDescs.CD_Object, ConstantDescs.CD_int,
            ConstantDescs.CD_Object, ConstantDescs.CD_Object.arrayType());

    private static final ClassValue<Stub> STUBS = new ClassValue<>() {
        @Override
        protected Stub computeValue(Class<?> iface) {
            return generate(RemoteInterface.of(iface));
        }
    };

    static Object invoke(RemoteInterface ri, int method, Object impl, Object[] args) throws Throwable {
        return ri.stub().invoke(method, impl, args);
    }

    static Stub of(Class<?> iface) {
        return STUBS.get(iface);
    }

    private static Stub generate(RemoteInterface ri) {
        ClassDesc self = ClassDesc.of(Stubs.class.getPackageName() + ".Stub$" + ri.type.getSimpleName() + "$"
                + SERIAL.incrementAndGet());
        ClassDesc iface = ClassDesc.ofDescriptor(ri.type.descriptorString());
        byte[] bytes = ClassFile.of().build(self, cb -> {
            cb.withFlags(AccessFlag.FINAL, AccessFlag.SYNTHETIC);
            cb.withInterfaceSymbols(CD_STUB);
            cb.withMethodBody(ConstantDescs.INIT_NAME, ConstantDescs.MTD_void, ClassFile.ACC_PUBLIC, code -> {
                code.aload(0);
                code.invokespecial(ConstantDescs.CD_Object, ConstantDescs.INIT_NAME, ConstantDescs.MTD_void);
                code.return_();
            });
            cb.withMethodBody("invoke", MTD_INVOKE, ClassFile.ACC_PUBLIC, code -> {
                Label fallthrough = code.newLabel();
                List<SwitchCase> cases = new ArrayList<>();
                List<Label> labels = new ArrayList<>();
                for (RemoteInterface.MethodInfo mi : ri.methods) {
                    Label l = code.newLabel();
                    labels.add(l);
                    cases.add(SwitchCase.of(mi.index, l));
                }
                code.iload(1);
                if (cases.isEmpty()) {
                    code.pop();
                } else {
                    code.tableswitch(0, cases.size() - 1, fallthrough, cases);
                }
                for (RemoteInterface.MethodInfo mi : ri.methods) {
                    code.labelBinding(labels.get(mi.index));
                    call(code, iface, mi);
                }
                code.labelBinding(fallthrough);
                ClassDesc iae = ClassDesc.of(IllegalArgumentException.class.getName());
                code.new_(iae);
                code.dup();
                code.ldc("no method with this index");
                code.invokespecial(iae, ConstantDescs.INIT_NAME, MethodTypeDesc.of(ConstantDescs.CD_void, ConstantDescs.CD_String));
                code.athrow();
            });
        });
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup().defineHiddenClass(bytes, true);
            return (Stub) lookup.findConstructor(lookup.lookupClass(), MethodType.methodType(void.class)).invoke();
        } catch (Throwable e) {
            throw new IllegalArgumentException("cannot generate the server stub of " + ri.type.getName() + ": " + e, e);
        }
    }

    /** {@code return box(((Iface) impl).m((P0) args[0], ...))}. */
    private static void call(CodeBuilder code, ClassDesc iface, RemoteInterface.MethodInfo mi) {
        Method m = mi.method;
        Class<?>[] ps = m.getParameterTypes();
        code.aload(2);
        code.checkcast(iface);
        for (int i = 0; i < ps.length; i++) {
            code.aload(3);
            code.loadConstant(i);
            code.aaload();
            if (ps[i].isPrimitive()) {
                ClassDesc w = box(ps[i]);
                code.checkcast(w);
                code.invokevirtual(w, ps[i].getName() + "Value", MethodTypeDesc.of(ClassDesc.ofDescriptor(ps[i].descriptorString())));
            } else if (ps[i] != Object.class) {
                code.checkcast(ClassDesc.ofDescriptor(ps[i].descriptorString()));
            }
        }
        MethodTypeDesc desc = MethodTypeDesc.ofDescriptor(MethodType.methodType(m.getReturnType(), ps).toMethodDescriptorString());
        code.invokeinterface(iface, m.getName(), desc);
        Class<?> r = m.getReturnType();
        if (r == void.class) {
            code.aconst_null();
        } else if (r.isPrimitive()) {
            ClassDesc w = box(r);
            code.invokestatic(w, "valueOf", MethodTypeDesc.of(w, ClassDesc.ofDescriptor(r.descriptorString())));
        }
        code.areturn();
    }

    private static ClassDesc box(Class<?> p) {
        return ClassDesc.of(MethodType.methodType(p).wrap().returnType().getName());
    }
}
