package dev.verbatim.transport.internal;

import dev.verbatim.transport.TlsConfig;
import dev.verbatim.transport.TransportException;
import dev.verbatim.transport.TransportException.Reason;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLPeerUnverifiedException;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.PKIXReason;
import java.util.Map;

/**
 * The TLS half of a tcp connection's setup (docs/transport.md §5.2): the engine for each side
 * (TLS 1.3 only; the listener requires a client certificate unless one-way; the connector checks
 * the host name, or the pinned certificate), the handshake within the connect deadline, and the
 * answer to a peer that speaks the other language (a plaintext hello at a TLS listener, a
 * ClientHello at a plaintext one): a plaintext {@code WELCOME} and a close, so both sides fail at
 * once. Every failed check becomes {@code AUTH} with a message naming it ({@link #describe}).
 * Stateless.
 */
public final class TlsHandshake {
    private TlsHandshake() {}

    private static final String[] TLS13 = {"TLSv1.3"};
    /** The first byte of a TLS handshake record (a ClientHello). */
    static final byte TLS_HANDSHAKE = 0x16;

    /** The connector's TLS handshake: a stream ready for the {@link Hello} exchange, or {@code AUTH}/{@code TIMEOUT}. */
    static TlsStream connect(SocketChannel channel, TlsConfig config, InetSocketAddress address, String text,
                             long deadline) throws IOException {
        String host = config.hostName() != null ? config.hostName() : address.getHostString();
        SSLEngine engine = config.context().createSSLEngine(host, address.getPort());
        engine.setUseClientMode(true);
        SSLParameters p = engine.getSSLParameters();
        p.setProtocols(TLS13);
        if (config.pinned() == null) {
            p.setEndpointIdentificationAlgorithm("HTTPS");
        }
        engine.setSSLParameters(p);
        TlsStream stream = new TlsStream(channel, engine, null);
        try {
            stream.handshake(deadline);
        } catch (SSLException e) {
            if (stream.peerSentPlaintextHello()) {
                throw new TransportException(Reason.AUTH, "the listener at " + text + " does not use TLS (it answered"
                        + " in plaintext) and this side requires it");
            }
            throw new TransportException(Reason.AUTH, "the TLS handshake with " + text + " failed: " + describe(e), e);
        } catch (EOFException e) {
            throw new TransportException(Reason.AUTH, "the listener at " + text + " closed the connection during the TLS"
                    + " handshake (it does not use TLS, or refused this side)", e);
        }
        if (config.pinned() != null) {
            try {
                if (!config.pinned().equals(engine.getSession().getPeerCertificates()[0])) {
                    throw new TransportException(Reason.AUTH, "the TLS handshake with " + text + " failed: the"
                            + " listener's certificate is not the pinned one");
                }
            } catch (SSLPeerUnverifiedException e) {
                throw new TransportException(Reason.AUTH, "the listener at " + text + " presented no certificate", e);
            }
        }
        return stream;
    }

    /** The listener's TLS handshake, after {@code first} (the peer's first bytes, not a plaintext hello). */
    static TlsStream accept(SocketChannel channel, TlsConfig config, ByteBuffer first, long deadline) throws IOException {
        SSLEngine engine = config.context().createSSLEngine();
        engine.setUseClientMode(false);
        SSLParameters p = engine.getSSLParameters();
        p.setProtocols(TLS13);
        p.setNeedClientAuth(config.mutual());
        engine.setSSLParameters(p);
        TlsStream stream = new TlsStream(channel, engine, first);
        try {
            stream.handshake(deadline);
        } catch (SSLException e) {
            throw new TransportException(Reason.AUTH, "the TLS handshake failed: " + describe(e), e);
        } catch (EOFException e) {
            throw new TransportException(Reason.AUTH, "the peer closed the connection during the TLS handshake"
                    + " (it refused this side's certificate, or does not use TLS)", e);
        }
        return stream;
    }

    /**
     * A plaintext hello at a TLS listener ({@code first} holds its first byte): reads the rest of
     * it, answers with a plaintext WELCOME that says TLS is required ({@link Hello#FLAG_TLS}) and
     * throws {@code AUTH}; the caller closes. The connector fails at once with a reason.
     */
    static TransportException refusePlaintext(PlainStream plain, ByteBuffer first, Hello welcome, long deadline)
            throws IOException {
        ByteBuffer head = ByteBuffer.allocate(Hello.HEAD).put(first.flip());
        plain.readFully(head, deadline, "the handshake");
        try {
            int n = Hello.nameLength(head.flip());
            int nonce = (head.getShort(Hello.FLAGS_OFFSET) & Hello.FLAG_SECRET) != 0 ? SecretExchange.NONCE : 0;
            plain.readFully(ByteBuffer.allocate(n + nonce), deadline, "the handshake");
            plain.writeFully(welcome.encode(), deadline, "the handshake");
        } catch (ProtocolViolation v) {
            return new TransportException(Reason.CONNECT, "not a Verbatim connection: " + v.getMessage());
        }
        return new TransportException(Reason.AUTH, "the peer did not use TLS (a plaintext hello) and this listener"
                + " requires it");
    }

    /**
     * A ClientHello at a plaintext listener ({@code head} holds its first {@link Hello#HEAD} bytes):
     * reads the rest of the record so the close ends in a FIN, answers with a plaintext WELCOME (the
     * connector's engine sees it is not TLS) and returns {@code AUTH} for the caller to throw.
     */
    static TransportException refuseTls(PlainStream plain, ByteBuffer head, Hello welcome, long deadline)
            throws IOException {
        int record = 5 + (((head.get(3) & 0xFF) << 8) | (head.get(4) & 0xFF));
        if (record > Hello.HEAD) {
            plain.readFully(ByteBuffer.allocate(record - Hello.HEAD), deadline, "the handshake");
        }
        plain.writeFully(welcome.encode(), deadline, "the handshake");
        return new TransportException(Reason.AUTH, "the peer speaks TLS and this listener does not use it"
                + " (ConnectionOptions.withTls)");
    }

    private static final Map<String, String> ALERTS = Map.of(
            "unknown_ca", "the peer does not trust this side's certificate (unknown CA)",
            "certificate_expired", "the peer found this side's certificate expired or not yet valid",
            "bad_certificate", "the peer refused this side's certificate (bad_certificate)",
            "certificate_unknown", "the peer refused this side's certificate (certificate_unknown: an unknown CA,"
                    + " a wrong host name, or outside its validity dates)",
            "certificate_required", "the peer requires a client certificate signed by a CA it trusts and this side sent"
                    + " none (it has no key, or none from a CA the peer accepts)",
            "protocol_version", "the peer does not speak TLS 1.3",
            "handshake_failure", "no TLS 1.3 parameters in common with the peer",
            "bad_record_mac", "a TLS record failed its integrity check (altered on the path)",
            "decrypt_error", "a TLS record failed its integrity check (altered on the path)");

    /** Which check of the handshake failed, in words, with the engine's own message after. */
    public static String describe(Throwable e) {
        String what = null;
        for (Throwable t = e; t != null && what == null; t = t.getCause()) {
            if (t instanceof CertificateExpiredException) {
                what = "the peer's certificate has expired";
            } else if (t instanceof CertificateNotYetValidException) {
                what = "the peer's certificate is not yet valid";
            } else if (t instanceof CertPathValidatorException v) {
                what = switch (v.getReason()) {
                    case CertPathValidatorException.BasicReason.EXPIRED -> "the peer's certificate has expired";
                    case CertPathValidatorException.BasicReason.NOT_YET_VALID -> "the peer's certificate is not yet valid";
                    case PKIXReason.NO_TRUST_ANCHOR -> unknownCa();
                    default -> null;
                };
            }
        }
        for (Throwable t = e; t != null && what == null; t = t.getCause()) {
            String m = String.valueOf(t.getMessage());
            int alert = m.indexOf("Received fatal alert: ");
            if (alert >= 0) {
                String name = m.substring(alert + "Received fatal alert: ".length()).trim();
                what = ALERTS.getOrDefault(name, "the peer ended the handshake with the alert " + name);
            } else if (m.contains("unable to find valid certification path") || m.contains("No trusted certificate")) {
                what = unknownCa();
            } else if (m.contains("No subject alternative") || m.contains("No name matching")) {
                what = "the listener's certificate does not name the host connected to (wrong host name)";
            } else if (m.contains("pinned")) {
                what = "the peer's certificate is not the pinned one";
            } else if (m.contains("Empty client certificate chain") || m.contains("Empty server certificate chain")) {
                what = "the peer sent no certificate and this side requires one";
            } else if (m.contains("Unsupported or unrecognized SSL message")) {
                what = "the peer does not speak TLS (a plaintext peer?)";
            } else if (m.contains("No appropriate protocol") || m.contains("protocol_version")) {
                what = "no TLS 1.3 in common with the peer";
            }
        }
        return (what == null ? "the TLS handshake failed" : what) + " (" + e.getMessage() + ")";
    }

    private static String unknownCa() {
        return "the peer's certificate is not signed by a CA this side trusts (unknown CA)";
    }
}
