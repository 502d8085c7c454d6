package dev.verbatim.bench.harness;

/** Where a contender's two processes talk: which figures and which JSON cases it belongs to. */
public enum Medium {
    /** Shared memory between two processes on this host (cases {@code shm/...}). */
    SHM,
    /** TCP over loopback (cases {@code tcp/...}). */
    TCP,
    /**
     * TCP over loopback inside mutual TLS 1.3 (cases {@code tls/...}): certificates of a throwaway
     * CA made once per run ({@link RunPki}).
     */
    TLS;

    /** The JSON case prefix: {@code shm}, {@code tcp} or {@code tls}. */
    public String key() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
