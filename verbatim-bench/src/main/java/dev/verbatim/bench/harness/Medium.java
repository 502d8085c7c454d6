package dev.verbatim.bench.harness;

/** Where a contender's two processes talk: which figures and which JSON cases it belongs to. */
public enum Medium {
    /** Shared memory between two processes on this host (cases {@code shm/...}). */
    SHM,
    /** TCP over loopback (cases {@code tcp/...}). */
    TCP;

    /** The JSON case prefix: {@code shm} or {@code tcp}. */
    public String key() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
