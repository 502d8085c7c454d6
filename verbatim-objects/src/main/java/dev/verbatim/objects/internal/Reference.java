package dev.verbatim.objects.internal;

import java.util.List;

/**
 * A shared object's reference as it travels ({@link ReferenceDescriptor}): whose object it is, which,
 * the weight it carries, and for a receiver that is not the owner, where the owner listens and which
 * interfaces the object offers.
 *
 * @param owner      the owner base's incarnation
 * @param id         the object's id at its owner (node-wide, never reused by that incarnation)
 * @param weight     the weight carried (0 only on the way home)
 * @param addresses  the owner's addresses (empty on the way home)
 * @param interfaces the names of the object's shared interfaces (empty on the way home)
 */
public record Reference(long owner, int id, long weight, List<String> addresses, List<String> interfaces) {
    /** A reference going home, to its owner: no addresses or interfaces needed. */
    static Reference home(long owner, int id, long weight) {
        return new Reference(owner, id, weight, List.of(), List.of());
    }
}
