package dev.verbatim.objects;

/**
 * A base, one run of it: a random non-zero 64-bit number drawn when the base starts (its
 * <em>incarnation</em>). A base restarted at the same address has another id, so references to the objects
 * of the old one can never reach the new one: they fail with {@code RemoteException.Reason.GONE}.
 *
 * @param incarnation the random number (never 0)
 */
public record BaseId(long incarnation) {
    public BaseId {
        if (incarnation == 0) {
            throw new IllegalArgumentException("a base id is never 0");
        }
    }

    @Override
    public String toString() {
        return String.format("base-%016x", incarnation);
    }
}
