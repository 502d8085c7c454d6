package dev.verbatim.wire;

import java.lang.classfile.ClassFile;
import java.lang.classfile.CodeBuilder;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.util.ArrayList;
import java.util.List;

import static dev.verbatim.wire.Bytecode.*;
import static java.lang.constant.ConstantDescs.CD_Object;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_long;
import static java.lang.constant.ConstantDescs.CD_void;

/**
 * Generates the view class of an accessor interface binding with the {@code java.lang.classfile} API, once per
 * binding: a subclass of {@link ViewBase} implementing the interface, whose accessors read their field at a
 * constant offset (primitives), or resolve a reference through the message (an enum constant, a child view built
 * by an {@code invokedynamic} whose call site is the child's constructor, or anything else through
 * {@link Message#readRef}). A field the writer's version lacks reads as its default.
 *
 * <p>The binding was checked to name only types this package can access ({@link Binding#of}), so the generated
 * class links. Thread-safe: generated under the binding's lock, published through its volatile fields.
 */
final class ViewGenerator {
    private ViewGenerator() {}

    private static final ClassDesc CD_ViewBase = ClassDesc.of(ViewBase.class.getName());
    private static final ClassDesc CD_Self = ClassDesc.of(ViewGenerator.class.getName());
    private static final MethodTypeDesc MTD_VIEW_INIT = MethodTypeDesc.of(CD_void, CD_Message, CD_MemorySegment, CD_long);
    private static final MethodTypeDesc MTD_MAKE_VIEW = MethodTypeDesc.of(CD_Object, CD_Message, CD_MemorySegment, CD_long);
    private static final java.lang.constant.DirectMethodHandleDesc BSM_VIEW = java.lang.constant.MethodHandleDesc.ofMethod(
            java.lang.constant.DirectMethodHandleDesc.Kind.STATIC, CD_Self, "bootstrapView",
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
            ClassDesc self = ClassDesc.of(Bytecode.class.getPackageName() + ".View$" + simple(r.raw) + "$" + nextSerial());
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
                MethodHandles.Lookup hidden = defineHidden(bytes, data);
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
            if (t.jkind == JType.OPTIONAL) code.invokestatic(CD_Optional, "empty", MethodTypeDesc.of(CD_Optional), false).areturn();
            else if (t.jkind != JType.PRIM) code.aconst_null().areturn();
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
        if (t.jkind == JType.ENUM || t.jkind == JType.REF) {
            code.aload(0).getfield(CD_ViewBase, "msg", CD_Message);
            loadField(code, Shape.I32, src.offset);
            code.ldc(child.id).invokevirtual(CD_Message, t.jkind == JType.REF ? "slotAt" : "enumAt", MethodTypeDesc.of(CD_Object, CD_int, CD_int))
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
        if (t.jkind == JType.CHARSEQ) { // a string read in place: no binding to look up
            code.aload(0).getfield(CD_ViewBase, "msg", CD_Message);
            loadField(code, Shape.I32, src.offset);
            code.invokevirtual(CD_Message, "stringView", MethodTypeDesc.of(ret, CD_int)).areturn();
            return;
        }
        code.aload(0).getfield(CD_ViewBase, "msg", CD_Message);
        loadField(code, Shape.I32, src.offset);
        code.ldc(child.id).invokevirtual(CD_Message, "readRef", MethodTypeDesc.of(CD_Object, CD_int, CD_int))
                .checkcast(ret).areturn();
    }}
