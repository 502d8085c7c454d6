package dev.verbatim.transport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.Base64;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throwaway certificate authority for demos and tests, made with the JDK's own {@code keytool}
 * (no other dependency): a CA, and PKCS#12 keystores of certificates it signs. Never for
 * production: the keys are unprotected (one fixed password) and live in a plain directory.
 *
 * <p>{@link #create(Path)} makes the CA (its certificate {@code ca.pem}, a trust store
 * {@code trust.p12}), a listener certificate {@code listener.p12} and a connector certificate
 * {@code connector.p12}, both for {@code localhost}, {@code 127.0.0.1} and {@code ::1}. One keytool
 * run per certificate (a JVM start, about a second); the rest is done here with the JDK's
 * {@code KeyStore}. Not thread-safe.
 */
public final class ThrowawayPki {
    /** The password of every keystore made here. */
    public static final String PASSWORD = "throwaway";
    /** The subject alternative names of the listener certificate. */
    public static final String LOCAL_NAMES = "dns:localhost,ip:127.0.0.1,ip:::1";

    /** Every key, the CA's too, as keytool made them (each certificate is then copied to its own keystore). */
    private static final String ALL = "all.p12";

    private final Path dir;

    private ThrowawayPki(Path dir) {
        this.dir = dir;
    }

    /** Makes a CA and the listener and connector certificates in {@code dir} (created if absent). */
    public static ThrowawayPki create(Path dir) {
        try {
            Files.createDirectories(dir);
            ThrowawayPki pki = new ThrowawayPki(dir);
            pki.keytool("-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-dname",
                    "CN=Verbatim throwaway CA " + dir.getFileName(), "-ext", "bc:c", "-validity", "30");
            KeyStore all = pki.all();
            Certificate ca = all.getCertificate("ca");
            Files.writeString(dir.resolve("ca.pem"), pem("CERTIFICATE", ca.getEncoded()), StandardCharsets.US_ASCII);
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("ca", ca);
            pki.store(trust, "trust.p12");
            pki.issue("listener", LOCAL_NAMES, null, 30);
            pki.issue("connector", LOCAL_NAMES, null, 30);
            return pki;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot make a throwaway CA in " + dir + ": " + e.getMessage(), e);
        }
    }

    /** An existing throwaway CA in {@code dir} (made by {@link #create}, perhaps by another process). */
    public static ThrowawayPki at(Path dir) {
        return new ThrowawayPki(dir);
    }

    public Path dir() {
        return dir;
    }

    /**
     * Issues {@code name.p12}: a key and a certificate signed by this CA (chain included) for the
     * subject alternative names {@code san} (keytool syntax, {@code dns:...,ip:...}), valid from
     * {@code startDate} (keytool syntax such as {@code -10d} or {@code +5d}; null: now) for
     * {@code days}. Also writes {@code name.pem} (the chain) and {@code name.key} (PKCS#8).
     */
    public Path issue(String name, String san, String startDate, int days) {
        List<String> args = new ArrayList<>(List.of("-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname",
                "secp256r1", "-dname", "CN=" + name, "-signer", "ca", "-ext", "san=" + san, "-validity", String.valueOf(days)));
        if (startDate != null) {
            args.addAll(List.of("-startdate", startDate));
        }
        keytool(args.toArray(new String[0]));
        try {
            KeyStore all = all();
            Key key = all.getKey(name, PASSWORD.toCharArray());
            Certificate[] chain = all.getCertificateChain(name);
            KeyStore own = KeyStore.getInstance("PKCS12");
            own.load(null, null);
            own.setKeyEntry(name, key, PASSWORD.toCharArray(), chain);
            store(own, name + ".p12");
            StringBuilder certs = new StringBuilder();
            for (Certificate c : chain) {
                certs.append(pem("CERTIFICATE", c.getEncoded()));
            }
            Files.writeString(dir.resolve(name + ".pem"), certs, StandardCharsets.US_ASCII);
            Files.writeString(dir.resolve(name + ".key"), pem("PRIVATE KEY", key.getEncoded()), StandardCharsets.US_ASCII);
            return keyStore(name);
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot write the keystore of " + name + ": " + e.getMessage(), e);
        }
    }

    private KeyStore all() throws IOException, GeneralSecurityException {
        try (InputStream in = Files.newInputStream(dir.resolve(ALL))) {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(in, PASSWORD.toCharArray());
            return ks;
        }
    }

    private void store(KeyStore ks, String file) throws IOException, GeneralSecurityException {
        try (OutputStream out = Files.newOutputStream(dir.resolve(file))) {
            ks.store(out, PASSWORD.toCharArray());
        }
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    /** The keystore {@code name.p12}. */
    public Path keyStore(String name) {
        return dir.resolve(name + ".p12");
    }

    /** The trust store holding this CA's certificate. */
    public Path trustStore() {
        return dir.resolve("trust.p12");
    }

    /** Mutual TLS with {@code name}'s key and this CA's trust. */
    public TlsConfig config(String name) {
        return TlsConfig.fromPkcs12(keyStore(name), PASSWORD.toCharArray(), trustStore(), PASSWORD.toCharArray());
    }

    /** The listener's mutual TLS configuration. */
    public TlsConfig listener() {
        return config("listener");
    }

    /** The connector's mutual TLS configuration. */
    public TlsConfig connector() {
        return config("connector");
    }

    private void keytool(String... args) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-J-XX:TieredStopAtLevel=1", "-J-Xshare:auto"));
        command.addAll(List.of(args));
        command.addAll(List.of("-keystore", dir.resolve(ALL).toString(), "-storepass", PASSWORD, "-storetype", "PKCS12"));
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("keytool did not finish within 60 s: " + command);
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException("keytool failed (" + p.exitValue() + "): " + String.join(" ", args)
                        + "\n" + new String(out, StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run keytool: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running keytool", e);
        }
    }
}
