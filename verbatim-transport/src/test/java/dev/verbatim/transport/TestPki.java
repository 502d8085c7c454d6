package dev.verbatim.transport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The certificates of the TLS tests, made once per test JVM with keytool ({@link ThrowawayPki}) in
 * a temporary directory removed at exit: a CA with {@code listener} and {@code connector}
 * certificates, {@code expired} (ended 9 days ago), {@code future} (starts in 10 days) and
 * {@code wronghost} (for {@code elsewhere.example} only); and a second, untrusted CA ({@link #ROGUE}).
 */
final class TestPki {
    private TestPki() {}

    static final Path DIR;
    static final ThrowawayPki PKI;
    static final ThrowawayPki ROGUE;
    /** Mutual TLS with the listener certificate: what the contract's both sides use. */
    static final TlsConfig TLS;

    static {
        try {
            DIR = Files.createTempDirectory("verbatim-pki");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(DIR)));
        PKI = ThrowawayPki.create(DIR.resolve("ca"));
        PKI.issue("expired", ThrowawayPki.LOCAL_NAMES, "-10d", 1);
        PKI.issue("future", ThrowawayPki.LOCAL_NAMES, "+10d", 5);
        PKI.issue("wronghost", "dns:elsewhere.example", null, 30);
        ROGUE = ThrowawayPki.create(DIR.resolve("rogue"));
        TLS = PKI.listener();
    }

    static char[] password() {
        return ThrowawayPki.PASSWORD.toCharArray();
    }

    /** {@code name}'s key from {@code keys}, trusting the CA of {@code trust}. */
    static TlsConfig mixed(ThrowawayPki keys, String name, ThrowawayPki trust) {
        return TlsConfig.fromPkcs12(keys.keyStore(name), password(), trust.trustStore(), password());
    }

    private static void delete(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory
        }
    }
}
