package dev.verbatim.transport.internal;

import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Builds a TLS 1.3 {@link SSLContext} from PKCS#12 keystores or PEM files (certificates, and an
 * unencrypted PKCS#8 private key), optionally trusting exactly one pinned certificate. Failures
 * are {@link IllegalArgumentException}s naming the file and what is wrong with it. Stateless.
 */
public final class TlsMaterial {
    private TlsMaterial() {}

    private static final String PROTOCOL = "TLSv1.3";

    public static SSLContext fromPkcs12(Path keyStore, char[] keyPassword, Path trustStore, char[] trustPassword,
                                        X509Certificate pinned) {
        KeyStore keys = keyStore == null ? null : load(keyStore, keyPassword);
        KeyStore trust = trustStore == null ? null : load(trustStore, trustPassword);
        return context(keys, keyPassword, trust, pinned);
    }

    public static SSLContext fromPem(Path chain, Path privateKey, Path trusted, X509Certificate pinned) {
        try {
            KeyStore keys = null;
            char[] none = new char[0];
            if (chain != null || privateKey != null) {
                if (chain == null || privateKey == null) {
                    throw new IllegalArgumentException("PEM key material needs both a certificate chain and a private key");
                }
                List<X509Certificate> certs = certificates(chain);
                keys = KeyStore.getInstance("PKCS12");
                keys.load(null, null);
                keys.setKeyEntry("key", privateKey(privateKey), none, certs.toArray(new Certificate[0]));
            }
            KeyStore trust = null;
            if (trusted != null) {
                trust = KeyStore.getInstance("PKCS12");
                trust.load(null, null);
                int i = 0;
                for (X509Certificate c : certificates(trusted)) {
                    trust.setCertificateEntry("ca" + i++, c);
                }
            }
            return context(keys, none, trust, pinned);
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException("cannot use the PEM material: " + e.getMessage(), e);
        }
    }

    /** The X.509 certificates in a PEM file, in order. */
    public static List<X509Certificate> certificates(Path pem) {
        try (InputStream in = Files.newInputStream(pem)) {
            List<X509Certificate> out = new ArrayList<>();
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                out.add((X509Certificate) c);
            }
            if (out.isEmpty()) {
                throw new IllegalArgumentException(pem + " holds no certificate");
            }
            return out;
        } catch (IOException | CertificateException e) {
            throw new IllegalArgumentException("cannot read certificates from " + pem + ": " + e.getMessage(), e);
        }
    }

    private static PrivateKey privateKey(Path pem) throws IOException {
        String text = Files.readString(pem, StandardCharsets.US_ASCII);
        String begin = "-----BEGIN PRIVATE KEY-----";
        int b = text.indexOf(begin);
        int e = text.indexOf("-----END PRIVATE KEY-----");
        if (b < 0 || e < b) {
            throw new IllegalArgumentException(pem + " holds no unencrypted PKCS#8 key (BEGIN PRIVATE KEY);"
                    + " convert one with: openssl pkcs8 -topk8 -nocrypt");
        }
        byte[] der = Base64.getMimeDecoder().decode(text.substring(b + begin.length(), e));
        for (String algorithm : List.of("RSA", "EC", "Ed25519", "Ed448", "RSASSA-PSS")) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException ignored) {
                // another algorithm
            }
        }
        throw new IllegalArgumentException(pem + ": a private key of an algorithm other than RSA, EC or EdDSA");
    }

    private static KeyStore load(Path file, char[] password) {
        try (InputStream in = Files.newInputStream(file)) {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(in, password);
            return ks;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot read the PKCS#12 keystore " + file + ": " + e.getMessage(), e);
        }
    }

    private static SSLContext context(KeyStore keys, char[] keyPassword, KeyStore trust, X509Certificate pinned) {
        try {
            KeyManager[] km = null;
            if (keys != null) {
                KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(keys, keyPassword);
                km = kmf.getKeyManagers();
            }
            TrustManager[] tm = null;
            if (trust != null) {
                TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                tmf.init(trust);
                tm = tmf.getTrustManagers();
            } else if (pinned != null) {
                tm = new TrustManager[] {new PinnedTrust(pinned)};
            }
            SSLContext context = SSLContext.getInstance(PROTOCOL);
            context.init(km, tm, null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot make a TLS context: " + e.getMessage(), e);
        }
    }

    /** Trusts exactly one certificate (within its validity dates), as the peer's own. */
    private record PinnedTrust(X509Certificate pinned) implements X509TrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            check(chain);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            check(chain);
        }

        private void check(X509Certificate[] chain) throws CertificateException {
            if (chain == null || chain.length == 0 || !chain[0].equals(pinned)) {
                throw new CertificateException("the peer's certificate is not the pinned one");
            }
            chain[0].checkValidity();
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
