package dev.verbatim.objects.internal;

import dev.verbatim.objects.Shared;
import dev.verbatim.rpc.Remote;

/**
 * What every base exports under {@link #NAME}, as RPC (docs/objects.md §5): the handshake that tells a
 * base's incarnation, weight going home (asked for: {@link WeightService}), a first reference by name, remote construction,
 * static calls and copies on the base, and the census after a base dies (§7). The {@code caller} parameters
 * name the calling base's incarnation, for the weights its arguments carry (the ledger, §7). A {@code Shared} parameter or result is a shared reference
 * ({@code T_SHARED}): weights travel inside it.
 */
public interface BaseService extends Remote {
    /** The name the service is exported under. */
    String NAME = "verbatim.base";

    /** This base's incarnation: a connection to an address checks it before it is used. */
    long incarnation();

    /** This base's addresses, one per line. */
    String addresses();

    /** The caller introduces itself ({@link Introduction}): the reference's arrival does it. */
    void hello(Shared caller);

    /** Gives back the weight {@code ref} carries (the reference itself, coming home, does it). */
    void release(Shared ref);

    /** The object bound under {@code name} on this base, or null. */
    Shared named(String name);

    /** A new object of the allowed class {@code type}, by its constructor {@code signature}, with arguments ({@link Arguments}). */
    Shared construct(long caller, String type, String signature, byte[] arguments);

    /** Runs the static method {@code signature} of the allowed class {@code type}; its result ({@link Arguments}). */
    byte[] invokeStatic(long caller, String type, String signature, byte[] arguments);

    /**
     * A copy made here of an object of the allowed class {@code type}, from its state ({@link Arguments#state}: the
     * shared objects its fields hold as references from base {@code caller}, with their weight).
     */
    Shared adopt(long caller, String type, byte[] state);

    /** A copy of {@code object} (one of this base's, coming home) on the base {@code target} at {@code addresses}. */
    Shared cloneTo(Shared object, long target, String addresses);

    /**
     * Base {@code base} died, says another base: true if this base agrees (it cannot reach it either, and has
     * declared it dead), false if it still answers here (docs/objects.md §7).
     */
    boolean died(long base);

    /** The bases this base knows and believes live, one per line: {@code id address...}. */
    String peers();

    /**
     * Phase 1 of a census of {@code owner}'s objects, once the bases in {@code dead} are declared dead here:
     * {@code [1, (id, hold, n, (peer, received)×n)...]}, or {@code [0]} if one of them answers here.
     */
    long[] censusHolds(long owner, long[] dead);

    /** Phase 2 of a census of {@code owner}'s objects: {@code [(id, 0, n, (peer, sent)×n)...]}. */
    long[] censusSent(long owner);
}
