package dev.verbatim.rpc.internal;

import java.lang.foreign.MemorySegment;

/**
 * What a layer above RPC (the object layer, {@code dev.verbatim.objects}) adds to a node: references
 * that name an object node-wide instead of per connection ({@link RpcDescriptor#T_SHARED} values), and
 * calls to such objects ({@link RpcDescriptor#TO_SHARED}). A node without an extension refuses both as
 * malformed, and pays nothing for them: the plain call path never consults it (only a value declared as
 * a {@code Remote} interface, a {@code TO_SHARED} call, or a {@code T_SHARED} value does).
 *
 * <p>Implementations are thread-safe; {@link #encode} may run under a connection's send lock, so it
 * must not wait for a reply of that connection.
 */
public interface NodeExtension {
    /** Whether {@code value}, passed where a {@code Remote} interface is declared, travels as a shared reference. */
    boolean shares(Object value);

    /**
     * The payload of a {@code T_SHARED} value for {@code value}, sent over {@code over} where
     * {@code declared} is declared: a parameter's or result's type, which the receiver {@linkplain #decode decodes}
     * it as, or null where it reads it as no particular type ({@code Remote}: an entry of a value's reference
     * table). May count what it hands out (a weight) before the message is sent.
     */
    byte[] encode(Object value, Class<?> declared, Endpoint over);

    /**
     * The object a {@code T_SHARED} payload that arrived over {@code over} names, as {@code declared}.
     *
     * @throws IllegalArgumentException if the payload is malformed or forged (the connection is then
     *         dropped with that reason, as for any unreadable argument)
     */
    Object decode(MemorySegment payload, Class<?> declared, Endpoint over);

    /**
     * A {@code T_SHARED} payload of a message dropped unread (a call refused before its arguments were
     * read, a reply nobody waits for): what it carried must not leak.
     */
    void dropped(MemorySegment payload, Endpoint over);

    /**
     * Whether the peer's answer to a call carrying {@code payload}, a {@code T_SHARED} value {@link #encode} made, is to
     * be reported ({@link #answered}). Asked once per such value of a call, as it is sent.
     */
    default boolean wantsAnswer(MemorySegment payload) {
        return false;
    }

    /**
     * The peer at the far end of {@code over} answered ({@code REPLY} or {@code THROWN}: it ran the method) a call
     * that carried {@code payload}, one {@link #wantsAnswer} asked about: it read that value. Called on the thread
     * that reads the answer, before the call completes; must not block.
     */
    default void answered(MemorySegment payload, Endpoint over) {}

    /**
     * A {@code T_SHARED} payload {@link #encode} made for a message that was never sent (it failed before it was
     * committed): what encoding counted (a weight split or granted) must come back, or the owner never frees the
     * object. May run under the connection's send lock: must not wait for a reply.
     */
    default void unsent(MemorySegment payload, Endpoint over) {}

    /**
     * Connection {@code over} closed (either side closed it, or the peer died): called once, after its
     * pending calls failed, on the thread that closed it; must not block.
     */
    default void closed(Endpoint over) {}

    /** The shared object a {@code TO_SHARED} call names, or null if there is none. */
    Target target(int id);

    /**
     * A shared object and the interfaces it may be called as (a method id is looked up in each, in
     * order); {@code virtualThreads}: its calls run on virtual threads of their own.
     */
    record Target(Object impl, RemoteInterface[] interfaces, boolean virtualThreads) {
        /** The interface declaring method {@code id}, or null. */
        public RemoteInterface declaring(long id) {
            for (RemoteInterface ri : interfaces) {
                if (ri.byId(id) != null) {
                    return ri;
                }
            }
            return null;
        }
    }
}
