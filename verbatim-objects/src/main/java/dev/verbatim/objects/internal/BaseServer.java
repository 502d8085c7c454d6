package dev.verbatim.objects.internal;

import dev.verbatim.objects.Shared;
import dev.verbatim.rpc.internal.NodeAccess;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;

/**
 * The base service of one base (what {@link BaseService} says), over its {@link ObjectSpace}. Weight checks
 * happen as the references arrive (a forged one drops the connection before any method here runs); a
 * class name is only looked up among the allowed classes.
 */
final class BaseServer implements BaseService, WeightService {
    private final ObjectSpace space;

    BaseServer(ObjectSpace space) {
        this.space = space;
    }

    @Override
    public long incarnation() {
        return space.id();
    }

    @Override
    public String addresses() {
        return String.join("\n", space.addresses());
    }

    @Override
    public void hello(Shared caller) {
        // the introduction was read as it arrived (ObjectSpace.decode)
    }

    @Override
    public void release(Shared ref) {
        // the weight came back as the reference arrived (ObjectSpace.decode)
    }

    @Override
    public long grant(Shared ref, long caller) {
        NodeAccess.quietArrival(); // the holder's connection for weight requests (Peers.grants): no spin after each
        return space.grantMore(ref, caller);
    }

    @Override
    public Shared named(String name) {
        return (Shared) space.named(name);
    }

    @Override
    public Shared construct(long caller, String type, String signature, byte[] arguments) {
        Class<?> c = space.construction().allowedClass(type, BaseIds.name(space.id()));
        Constructor<?> k = Construction.constructor(c, signature);
        Object o = run(() -> k.newInstance(Arguments.decode(space, k.getParameterTypes(), arguments, caller)));
        if (!(o instanceof Shared s)) {
            throw new IllegalArgumentException(c.getName() + " is not shared: construct it where it is used");
        }
        return s;
    }

    @Override
    public byte[] invokeStatic(long caller, String type, String signature, byte[] arguments) {
        Class<?> c = space.construction().allowedClass(type, BaseIds.name(space.id()));
        Method m = Construction.staticMethod(c, signature);
        Object r = run(() -> m.invoke(null, Arguments.decode(space, m.getParameterTypes(), arguments, caller)));
        if (m.getReturnType() == void.class) {
            return new byte[0];
        }
        return Arguments.encode(space, new Class<?>[] {m.getReturnType()}, new Object[] {r}, caller);
    }

    @Override
    public Shared adopt(long caller, String type, byte[] state) {
        return (Shared) space.adopt(space.construction().allowedClass(type, BaseIds.name(space.id())), state, caller);
    }

    @Override
    public Shared cloneTo(Shared object, long target, String addresses) {
        return (Shared) space.cloneOn(object, target, List.of(addresses.split("\n")));
    }

    @Override
    public boolean died(long base) {
        return space.census().told(base);
    }

    @Override
    public String peers() {
        return space.census().peersText();
    }

    @Override
    public long[] censusHolds(long owner, long[] dead) {
        return space.census().holds(owner, dead);
    }

    @Override
    public long[] censusSent(long owner) {
        return space.census().sent(owner);
    }

    @FunctionalInterface
    private interface Reflective {
        Object run() throws ReflectiveOperationException;
    }

    /** Runs a reflective call; what the constructor or method threw is rethrown as itself. */
    private static Object run(Reflective r) {
        try {
            return r.run();
        } catch (InvocationTargetException e) {
            Throwable t = e.getCause();
            if (t instanceof RuntimeException re) {
                throw re;
            }
            if (t instanceof Error er) {
                throw er;
            }
            throw new IllegalStateException(t);
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException(e.toString(), e);
        }
    }
}
