package dev.verbatim.rpc.internal;

import java.lang.classfile.ClassFile;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.TypeKind;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.AccessFlag;
import java.lang.reflect.Method;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Generates, once per interface, a proxy class (the {@code java.lang.classfile} API, a hidden
 * class): each method boxes its arguments into an array and calls {@link Invoker#invoke} with its
 * method index, then unboxes the result. No reflection per call.
 */
final class ProxyFactory {
    private ProxyFactory() {}

    private static final AtomicLong SERIAL = new AtomicLong();
    private static final ClassDesc CD_INVOKER = ClassDesc.of(Invoker.class.getName());
    private static final ClassDesc CD_PROXY_OBJECT = ClassDesc.of(ProxyObject.class.getName());
    private static final ClassDesc CD_BINDING = ClassDesc.of(Binding.class.getName());

    private static final ClassValue<MethodHandle> CONSTRUCTORS = new ClassValue<>() {
        @Override
        protected MethodHandle computeValue(Class<?> iface) {
            return generate(RemoteInterface.of(iface));
        }
    };

    /** A new proxy of {@code binding}'s interface. */
    static Object create(Binding binding) {
        try {
            return CONSTRUCTORS.get(binding.remote.type).invoke(binding);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static MethodHandle generate(RemoteInterface ri) {
        ClassDesc self = ClassDesc.of(ProxyFactory.class.getPackageName() + ".Proxy$" + ri.type.getSimpleName() + "$"
                + SERIAL.incrementAndGet());
        ClassDesc iface = ClassDesc.ofDescriptor(ri.type.descriptorString());
        byte[] bytes = ClassFile.of().build(self, cb -> {
            cb.withFlags(AccessFlag.FINAL, AccessFlag.SYNTHETIC);
            cb.withInterfaceSymbols(iface, CD_PROXY_OBJECT);
            cb.withField("binding", CD_BINDING, ClassFile.ACC_PRIVATE | ClassFile.ACC_FINAL);
            cb.withMethodBody(ConstantDescs.INIT_NAME, MethodTypeDesc.of(ConstantDescs.CD_void, CD_BINDING),
                    ClassFile.ACC_PUBLIC, code -> {
                        code.aload(0);
                        code.invokespecial(ConstantDescs.CD_Object, ConstantDescs.INIT_NAME, ConstantDescs.MTD_void);
                        code.aload(0);
                        code.aload(1);
                        code.putfield(self, "binding", CD_BINDING);
                        code.return_();
                    });
            cb.withMethodBody("verbatimBinding", MethodTypeDesc.of(CD_BINDING), ClassFile.ACC_PUBLIC, code -> {
                code.aload(0);
                code.getfield(self, "binding", CD_BINDING);
                code.areturn();
            });
            cb.withMethodBody("toString", MethodTypeDesc.of(ConstantDescs.CD_String), ClassFile.ACC_PUBLIC, code -> {
                code.aload(0);
                code.getfield(self, "binding", CD_BINDING);
                code.invokevirtual(CD_BINDING, "toString", MethodTypeDesc.of(ConstantDescs.CD_String));
                code.areturn();
            });
            for (RemoteInterface.MethodInfo mi : ri.methods) {
                Method m = mi.method;
                MethodTypeDesc desc = MethodTypeDesc.ofDescriptor(MethodType.methodType(m.getReturnType(),
                        m.getParameterTypes()).toMethodDescriptorString());
                cb.withMethodBody(m.getName(), desc, ClassFile.ACC_PUBLIC, code -> body(code, self, mi));
            }
        });
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup().defineHiddenClass(bytes, true);
            return lookup.findConstructor(lookup.lookupClass(), MethodType.methodType(void.class, Binding.class))
                    .asType(MethodType.methodType(Object.class, Binding.class));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot define the proxy of " + ri.type.getName(), e);
        }
    }

    private static void body(CodeBuilder code, ClassDesc self, RemoteInterface.MethodInfo mi) {
        Class<?>[] ps = mi.method.getParameterTypes();
        code.aload(0);
        code.getfield(self, "binding", CD_BINDING);
        code.loadConstant(mi.index);
        if (ps.length == 0) { // one shared empty array, not one per call
            code.getstatic(CD_BINDING, "NO_ARGS", ConstantDescs.CD_Object.arrayType());
        } else {
            code.loadConstant(ps.length);
            code.anewarray(ConstantDescs.CD_Object);
        }
        int slot = 1;
        for (int i = 0; i < ps.length; i++) {
            code.dup();
            code.loadConstant(i);
            TypeKind k = TypeKind.from(ps[i]);
            code.loadLocal(k, slot);
            if (ps[i].isPrimitive()) {
                box(code, ps[i]);
            }
            code.aastore();
            slot += k.slotSize();
        }
        code.invokeinterface(CD_INVOKER, "invoke", MethodTypeDesc.of(ConstantDescs.CD_Object, ConstantDescs.CD_int,
                ConstantDescs.CD_Object.arrayType()));
        Class<?> r = mi.method.getReturnType();
        if (r == void.class) {
            code.pop();
            code.return_();
        } else if (r.isPrimitive()) {
            unbox(code, r);
            code.return_(TypeKind.from(r));
        } else {
            code.checkcast(ClassDesc.ofDescriptor(r.descriptorString()));
            code.areturn();
        }
    }

    private static ClassDesc box(Class<?> p) {
        return ClassDesc.of(MethodType.methodType(p).wrap().returnType().getName());
    }

    private static void box(CodeBuilder code, Class<?> p) {
        ClassDesc w = box(p);
        code.invokestatic(w, "valueOf", MethodTypeDesc.of(w, ClassDesc.ofDescriptor(p.descriptorString())));
    }

    private static void unbox(CodeBuilder code, Class<?> p) {
        ClassDesc w = box(p);
        code.checkcast(w);
        code.invokevirtual(w, p.getName() + "Value", MethodTypeDesc.of(ClassDesc.ofDescriptor(p.descriptorString())));
    }
}
