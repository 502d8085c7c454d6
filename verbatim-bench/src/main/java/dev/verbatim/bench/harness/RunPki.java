package dev.verbatim.bench.harness;

import dev.verbatim.transport.ThrowawayPki;

import java.nio.file.Path;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

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
            return new RunPki(withCheapKeyStores(() -> ThrowawayPki.create(base.resolve(KEY))).dir(), null);
        } catch (RuntimeException e) {
            return new RunPki(null, e);
        }
    }

    /**
     * The JDK's PKCS#12 properties that set how many PBKDF2 iterations protect a key store this JVM writes
     * (its MAC, its keys, its certificates): 10,000 each by default, which a child JVM pays in interpreted
     * code for every store it loads (~1 s of CPU per store when the JVM has just started: a TLS contender's
     * process loads two, and 6 of a run's 34 children are TLS ones). The run's throwaway CA lives in its
     * private scratch directory for the run only, so one iteration protects it enough.
     */
    static final List<String> ITERATION_PROPERTIES = List.of("keystore.pkcs12.macIterationCount",
            "keystore.pkcs12.keyPbeIterationCount", "keystore.pkcs12.certPbeIterationCount");

    /**
     * Runs {@code make} with {@link #ITERATION_PROPERTIES} set to 1 (the key stores it writes in this JVM
     * load cheaply in the children), then puts the properties back as they were. The key stores the CA's
     * {@code keytool} processes write keep the default (only this JVM reads them).
     */
    static <T> T withCheapKeyStores(Supplier<T> make) {
        synchronized (ITERATION_PROPERTIES) {
            Map<String, String> before = new HashMap<>();
            for (String p : ITERATION_PROPERTIES) {
                before.put(p, System.getProperty(p));
                System.setProperty(p, "1");
            }
            try {
                return make.get();
            } finally {
                before.forEach((p, v) -> {
                    if (v == null) {
                        System.clearProperty(p);
                    } else {
                        System.setProperty(p, v);
                    }
                });
            }
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
