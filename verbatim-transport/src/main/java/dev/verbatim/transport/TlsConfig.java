package dev.verbatim.transport;

import dev.verbatim.transport.internal.TlsMaterial;

import javax.net.ssl.SSLContext;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.Objects;

/**
 * Mutual TLS 1.3 for {@code tcp://} connections ({@link ConnectionOptions#withTls(TlsConfig)}): the
 * frames of a connection are encrypted and integrity-protected by the JDK's own {@code SSLEngine},
 * and the peers authenticate each other with certificates before the connection is handed out.
 * Immutable; start from {@link #of(SSLContext)}, {@link #fromPkcs12} or {@link #fromPem}.
 *
 * <p>Invariants, whichever way it was made:
 * <ul>
 *   <li>Only TLS 1.3 is offered and accepted.</li>
 *   <li>Mutual by default: a listener requires a client certificate signed by a CA it trusts; a
 *       connector checks the listener's certificate against its trusted CAs and the host name of
 *       the address it connects to (or {@link #withHostName(String)}), or, with
 *       {@link #withPinnedCertificate(X509Certificate)}, that the listener presents exactly that
 *       certificate (then no CA or host name is needed).</li>
 *   <li>{@link #oneWay()}: the listener does not ask for a client certificate (the connector needs
 *       no key material); the connector still checks the listener.</li>
 * </ul>
 * Both sides of a connection must use TLS: a TLS side and a plaintext side fail at once with
 * {@link TransportException.Reason#AUTH}, as does every failed check of the handshake.
 *
 * @param context         the keys and trust of this side
 * @param mutual          whether a listener requires (and checks) a client certificate
 * @param hostName        the name a connector expects in the listener's certificate, or {@code null}
 *                        for the host of the address it connects to
 * @param pinned          the exact certificate a connector accepts from the listener, or {@code null}
 */
public record TlsConfig(SSLContext context, boolean mutual, String hostName, X509Certificate pinned) {

    public TlsConfig {
        Objects.requireNonNull(context, "context");
    }

    /** Mutual TLS with the keys and trust of {@code context} (a TLS or TLSv1.3 context). */
    public static TlsConfig of(SSLContext context) {
        return new TlsConfig(context, true, null, null);
    }

    /**
     * Key and trust material from PKCS#12 keystores: {@code keyStore} holds this side's private key
     * and certificate chain (one key entry), {@code trustStore} the CA certificates it accepts
     * peers from. Either may be {@code null}: a one-way connector needs no key store; a connector
     * that pins the listener's certificate needs no trust store.
     */
    public static TlsConfig fromPkcs12(Path keyStore, char[] keyPassword, Path trustStore, char[] trustPassword) {
        return of(TlsMaterial.fromPkcs12(keyStore, keyPassword, trustStore, trustPassword, null));
    }

    /**
     * Key and trust material from PEM files: {@code certificateChain} (this side's certificate
     * first, then its CAs), {@code privateKey} (unencrypted PKCS#8, {@code BEGIN PRIVATE KEY}:
     * RSA, EC or EdDSA) and {@code trustedCertificates} (the CAs it accepts peers from). Key files
     * may be {@code null} (a one-way connector), and so may the trusted certificates (a connector
     * that pins the listener's certificate).
     */
    public static TlsConfig fromPem(Path certificateChain, Path privateKey, Path trustedCertificates) {
        return of(TlsMaterial.fromPem(certificateChain, privateKey, trustedCertificates, null));
    }

    /** The listener does not ask connectors for certificates; connectors still check the listener. */
    public TlsConfig oneWay() {
        return new TlsConfig(context, false, hostName, pinned);
    }

    /** A connector expects {@code name} in the listener's certificate instead of its address's host. */
    public TlsConfig withHostName(String name) {
        return new TlsConfig(context, mutual, Objects.requireNonNull(name, "name"), pinned);
    }

    /**
     * A connector accepts the listener only if it presents exactly {@code certificate} (still within
     * its validity dates), instead of checking its CA and host name. A context this config was made
     * from PKCS#12 or PEM trusts the pinned certificate by itself when no trust material was given;
     * one given by {@link #of(SSLContext)} must still trust it (the pin is checked after its checks).
     */
    public TlsConfig withPinnedCertificate(X509Certificate certificate) {
        Objects.requireNonNull(certificate, "certificate");
        return new TlsConfig(context, mutual, null, certificate);
    }

    /**
     * Like {@link #fromPkcs12} with a pinned listener certificate trusted by the context itself (no
     * CA needed): for a connector that knows the listener's self-signed certificate.
     */
    public static TlsConfig pinnedPkcs12(Path keyStore, char[] keyPassword, X509Certificate listener) {
        return new TlsConfig(TlsMaterial.fromPkcs12(keyStore, keyPassword, null, null, listener), true, null, listener);
    }

    /** Like {@link #fromPem} with a pinned listener certificate trusted by the context itself. */
    public static TlsConfig pinnedPem(Path certificateChain, Path privateKey, X509Certificate listener) {
        return new TlsConfig(TlsMaterial.fromPem(certificateChain, privateKey, null, listener), true, null, listener);
    }

    @Override
    public String toString() {
        return "TlsConfig[" + (mutual ? "mutual" : "one-way")
                + (pinned != null ? ", pinned " + pinned.getSubjectX500Principal().getName()
                : hostName != null ? ", host name " + hostName : "") + "]";
    }
}
