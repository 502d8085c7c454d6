package dev.verbatim.bench.harness;

import dev.verbatim.transport.ThrowawayPki;

import java.nio.file.Path;
import java.util.Collection;
import java.util.Map;

/**
 * The certificates of a run's {@link Medium#TLS} contenders: one throwaway CA with a listener and a
 * connector certificate (for {@code localhost} and {@code 127.0.0.1}), made once per run by the
 * parent with the JDK's {@code keytool} ({@link ThrowawayPki}) in the run's private scratch
 * directory, so it is deleted with it; the children find it through the session property
 * {@value #KEY}. Every TLS contender of the run, Verbatim's and its peers', uses the same keys
 * (EC P-256) and the same CA. Never for anything but a benchmark.
 */
public final class RunPki {
    private RunPki() {}

    /** Session property: the directory of the run's throwaway CA. */
    public static final String KEY = "pki";

    /**
     * When one of {@code contenders} talks TLS, makes the CA under {@code base} (a run's scratch
     * directory) and adds its directory to {@code common}, the properties every child gets; else
     * does nothing. Takes a few seconds (one {@code keytool} process per certificate).
     */
    public static void addIfNeeded(Collection<? extends Contender> contenders, Path base, Map<String, String> common) {
        if (contenders.stream().anyMatch(c -> c.medium() == Medium.TLS)) {
            common.put(KEY, ThrowawayPki.create(base.resolve(KEY)).dir().toString());
        }
    }

    /** The run's CA as the session of a TLS contender's side names it. */
    public static ThrowawayPki of(Session session) {
        return ThrowawayPki.at(Path.of(session.require(KEY)));
    }
}
