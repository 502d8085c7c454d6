package dev.verbatim.objects.internal;

import dev.verbatim.objects.Shared;
import dev.verbatim.rpc.Remote;

/**
 * What every base exports under {@link #NAME}, as RPC (docs/objects.md §5): the handshake that tells a
 * base's incarnation, weight going home or asked for, a first reference by name, and remote construction,
 * static calls and copies on the base. A {@code Shared} parameter or result is a shared reference
 * ({@code T_SHARED}): weights travel inside it.
 */
public interface BaseService extends Remote {
    /** The name the service is exported under. */
    String NAME = "verbatim.base";

    /** This base's incarnation: a connection to an address checks it before it is used. */
    long incarnation();

    /** This base's addresses, one per line. */
    String addresses();

    /** Gives back the weight {@code ref} carries (the reference itself, coming home, does it). */
    void release(Shared ref);

    /** More weight of {@code ref} for a holder that has no more to split (the reference carries none). */
    long grant(Shared ref);

    /** The object bound under {@code name} on this base, or null. */
    Shared named(String name);

    /** A new object of the allowed class {@code type}, by its constructor {@code signature}, with arguments ({@link Arguments}). */
    Shared construct(String type, String signature, byte[] arguments);

    /** Runs the static method {@code signature} of the allowed class {@code type}; its result ({@link Arguments}). */
    byte[] invokeStatic(String type, String signature, byte[] arguments);

    /** A copy made here of an object of the allowed class {@code type}, from its state (a wire message). */
    Shared adopt(String type, byte[] state);

    /** A copy of {@code object} (one of this base's, coming home) on the base {@code target} at {@code addresses}. */
    Shared cloneTo(Shared object, long target, String addresses);
}
