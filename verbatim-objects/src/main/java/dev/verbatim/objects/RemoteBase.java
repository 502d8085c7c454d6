package dev.verbatim.objects;

import dev.verbatim.objects.internal.BaseHandle;

import java.util.List;

/**
 * Another base, as seen from this one (the paper's {@code getBase}): where objects can be created and
 * static methods run, for the classes that base allows ({@link Base#allow}). Thread-safe.
 */
public final class RemoteBase {
    private final BaseHandle handle;
    private final BaseId id;

    RemoteBase(BaseHandle handle) {
        this.handle = handle;
        this.id = new BaseId(handle.incarnation());
    }

    public BaseId id() {
        return id;
    }

    public List<String> addresses() {
        return handle.addresses();
    }

    /**
     * Creates an object of class {@code type} on this base, with the public constructor that takes
     * {@code args} (primitives, values by copy, shared objects by reference), and returns a reference to
     * it as {@code as} (the paper's {@code B.remote(new T(...))}).
     *
     * @throws IllegalArgumentException if this base does not allow {@code type}, or no single constructor fits
     */
    public <T> T create(Class<T> as, Class<? extends T> type, Object... args) {
        return as.cast(handle.construct(type, args));
    }

    /**
     * Runs the public static method {@code method} of {@code type} on this base with {@code args}; its
     * result (a shared object by reference, anything else by copy), or null for {@code void}.
     */
    public Object call(Class<?> type, String method, Object... args) {
        return handle.invokeStatic(type, method, args);
    }

    /** The object bound under {@code name} on this base, as {@code type}; null if none. */
    public <T> T named(String name, Class<T> type) {
        return type.cast(handle.named(name));
    }

    @Override
    public String toString() {
        return id + " at " + handle.addresses();
    }
}
