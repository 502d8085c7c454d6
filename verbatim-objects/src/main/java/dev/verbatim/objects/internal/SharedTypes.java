package dev.verbatim.objects.internal;

import dev.verbatim.objects.Shared;
import dev.verbatim.rpc.RemoteException;
import dev.verbatim.rpc.internal.RemoteInterface;

import dev.verbatim.wire.Schema;

import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Which interfaces a shared object offers, and what a name on the wire may resolve to (docs/objects.md §1).
 *
 * <ul>
 *   <li>An object offers every public interface of its class (and superclasses) that extends
 *       {@link Shared}; its proxies implement exactly those. One that offers none cannot be shared.</li>
 *   <li>A name from a message is resolved with {@code Class.forName(name, false, loader)}: loaded if the
 *       loader can find it, never initialised, and accepted only if it is a public interface extending
 *       {@code Shared}; any other name is ignored (the proxy does not offer it). No class named in a
 *       message is ever instantiated.</li>
 *   <li>A value by copy that holds shared objects (in a field, an element, a map value) crosses with
 *       them as references in RPC calls and results, in a remote construction's arguments and in the state
 *       {@code cloneOn} copies (docs/objects.md §1).</li>
 * </ul>
 *
 * Thread-safe (results are cached per class).
 */
final class SharedTypes {
    private SharedTypes() {}

    /**
     * The shared interfaces an object offers, their names and their RPC analyses, and the names as a reference to it
     * carries them from its own base (no address: {@link ReferenceDescriptor#SENDER}), encoded once per class.
     */
    record Offer(Class<?>[] interfaces, List<String> names, RemoteInterface[] remotes, ReferenceDescriptor.Strings strings) {}

    private static final ClassValue<Object> OFFERS = new ClassValue<>() {
        @Override
        protected Object computeValue(Class<?> c) {
            try {
                return offerOf(c);
            } catch (RuntimeException e) {
                return e;
            }
        }
    };

    /**
     * What an object of class {@code c} offers.
     *
     * @throws RemoteException {@code ARGUMENT} if it offers no shared interface, or one of them passes a
     *         shared object nested in a copied value
     */
    static Offer offer(Class<?> c) {
        Object o = OFFERS.get(c);
        if (o instanceof RuntimeException e) {
            throw e;
        }
        return (Offer) o;
    }

    private static Offer offerOf(Class<?> c) {
        Set<Class<?>> found = new LinkedHashSet<>();
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            collect(k, found);
        }
        if (found.isEmpty()) {
            throw new RemoteException(RemoteException.Reason.ARGUMENT, c.getName()
                    + " implements no public interface extending " + Shared.class.getName() + ": it cannot be shared");
        }
        Class<?>[] interfaces = found.toArray(Class<?>[]::new);
        RemoteInterface[] remotes = new RemoteInterface[interfaces.length];
        List<String> names = new ArrayList<>();
        for (int i = 0; i < interfaces.length; i++) {
            remotes[i] = RemoteInterface.of(interfaces[i]);
            names.add(interfaces[i].getName());
        }
        List<String> all = List.copyOf(names);
        return new Offer(interfaces, all, remotes, ReferenceDescriptor.Strings.of(List.of(), all));
    }

    private static void collect(Class<?> k, Set<Class<?>> found) {
        for (Class<?> i : k.getInterfaces()) {
            if (i != Shared.class && Shared.class.isAssignableFrom(i) && Modifier.isPublic(i.getModifiers())) {
                found.add(i);
            }
            collect(i, found);
        }
    }

    /**
     * The interfaces a proxy of a reference naming {@code names}, arriving where {@code declared} is
     * declared, implements: the names that resolve (as the class comment says), and {@code declared}
     * unless one of them extends it. The result's first element's loader defines the proxy class.
     */
    static Class<?>[] resolve(List<String> names, Class<?> declared, ClassLoader loader) {
        Set<Class<?>> out = new LinkedHashSet<>();
        for (String n : names) {
            Class<?> c;
            try {
                c = Class.forName(n, false, loader);
            } catch (ClassNotFoundException | LinkageError e) {
                continue; // not known here: the proxy does not offer it
            }
            if (c.isInterface() && c != Shared.class && Shared.class.isAssignableFrom(c) && Modifier.isPublic(c.getModifiers())) {
                out.add(c);
            }
        }
        boolean covered = false;
        for (Class<?> c : out) {
            covered |= declared.isAssignableFrom(c);
        }
        if (!covered) {
            out.add(declared);
        }
        return out.toArray(Class<?>[]::new);
    }
}
