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
 *
 * @param dir the CA's directory, or null when no contender needs one or it could not be made
 * @param failure why it could not be made, or null
 */
public record RunPki(Path dir, RuntimeException failure) {
    /** Session property: the directory of the run's throwaway CA. */
    public static final String KEY = "pki";

    /**
     * When one of {@code contenders} talks TLS, makes the CA under {@code base} (a run's scratch
     * directory), else nothing. Takes a few seconds (one {@code keytool} process per certificate).
     * Does not throw: a CA that could not be made fails the TLS contenders alone, at {@link #addTo}.
     */
    public static RunPki forRun(Collection<? extends Contender> contenders, Path base) {
        if (contenders.stream().noneMatch(c -> c.medium() == Medium.TLS)) {
            return new RunPki(null, null);
        }
        try {
            return new RunPki(ThrowawayPki.create(base.resolve(KEY)).dir(), null);
        } catch (RuntimeException e) {
            return new RunPki(null, e);
        }
    }

    /**
     * Adds the CA's directory to {@code common}, the properties of {@code contender}'s children, when
     * it talks TLS; throws why the CA could not be made then.
     */
    public void addTo(Contender contender, Map<String, String> common) {
        if (contender.medium() != Medium.TLS) {
            return;
        }
        if (failure != null) {
            throw failure;
        }
        common.put(KEY, dir.toString());
    }

    /** The run's CA as the session of a TLS contender's side names it. */
    public static ThrowawayPki of(Session session) {
        return ThrowawayPki.at(Path.of(session.require(KEY)));
    }
}
