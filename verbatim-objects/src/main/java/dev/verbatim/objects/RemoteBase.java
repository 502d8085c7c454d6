package dev.verbatim.objects;

import dev.verbatim.objects.internal.ObjectSpace;
import dev.verbatim.objects.internal.Remotes;

import java.util.List;

/**
 * Another base, as seen from this one (the paper's {@code getBase}): where objects can be created and
 * static methods run, for the classes that base allows ({@link Base#allow}). Thread-safe.
 */
public final class RemoteBase {
    private final ObjectSpace space;
    private final Object peer;
    private final BaseId id;
    private final List<String> addresses;

    RemoteBase(ObjectSpace space, Object peer) {
        this.space = space;
        this.peer = peer;
        this.id = new BaseId(Remotes.incarnation(peer));
        this.addresses = Remotes.addresses(peer);
    }

    public BaseId id() {
        return id;
    }

    public List<String> addresses() {
        return addresses;
    }

    /**
     * Creates an object of class {@code type} on this base, with the public constructor that takes
     * {@code args} (primitives, values by copy, shared objects by reference), and returns a reference to
     * it as {@code as} (the paper's {@code B.remote(new T(...))}).
     *
     * @throws IllegalArgumentException if this base does not allow {@code type}, or no single constructor fits
     */
    public <T> T create(Class<T> as, Class<? extends T> type, Object... args) {
        return as.cast(Remotes.construct(space, peer, type, args));
    }

    /**
     * Runs the public static method {@code method} of {@code type} on this base with {@code args}; its
     * result (a shared object by reference, anything else by copy), or null for {@code void}.
     */
    public Object call(Class<?> type, String method, Object... args) {
        return Remotes.invokeStatic(space, peer, type, method, args);
    }

    /** The object bound under {@code name} on this base, as {@code type}; null if none. */
    public <T> T named(String name, Class<T> type) {
        return type.cast(Remotes.named(peer, name));
    }

    @Override
    public String toString() {
        return id + " at " + addresses;
    }
}
