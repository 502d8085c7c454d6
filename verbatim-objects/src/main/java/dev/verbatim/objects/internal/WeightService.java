package dev.verbatim.objects.internal;

import dev.verbatim.objects.Shared;
import dev.verbatim.rpc.Remote;

/**
 * What every base exports under {@link #NAME} for the connection a holder asks it for weight over (docs/objects.md
 * §3, {@link Peers#grants}): the handshake's incarnation and {@link #grant}, nothing else, served inline on
 * that connection's dispatcher (neither waits for anything but the owned table's lock), where the base service runs
 * every call on a virtual thread of its own: a request then costs the owner one wake-up (its quiet dispatcher's), not
 * two (the dispatcher's and a carrier thread's for the virtual thread).
 */
public interface WeightService extends Remote {
    /** The name the service is exported under. */
    String NAME = "verbatim.base.weight";

    /** This base's incarnation: the connection checks it before it is used. */
    long incarnation();

    /** More weight of {@code ref} for base {@code caller}, a holder that has no more to split (the reference carries none). */
    long grant(Shared ref, long caller);
}
