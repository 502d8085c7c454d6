package dev.verbatim.transport;

import dev.verbatim.transport.TransportException.Reason;
import dev.verbatim.transport.internal.Rejections;
import dev.verbatim.transport.internal.TlsMaterial;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Who may connect over TLS, and how each refusal looks on both sides: every failed check of the
 * handshake fails the connector at once with {@code AUTH} and a message naming the check, the
 * listener records (logs) why it dropped the peer, and then serves a good connector. The limit on
 * the failures' time is far below the connect timeout (10 s), so a failure by timeout is red.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TlsHandshakeTest extends TcpTestBase {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final Duration AT_ONCE = Duration.ofSeconds(5);
    private static final ConnectionOptions BASE = ConnectionOptions.DEFAULT.withConnectTimeout(Duration.ofSeconds(10));
    private static final ConnectionOptions GOOD_LISTENER = BASE.withTls(TestPki.PKI.listener());
    private static final ConnectionOptions GOOD_CONNECTOR = BASE.withTls(TestPki.PKI.connector());
    private static final Executor PEERS = Executors.newVirtualThreadPerTaskExecutor();


    private static ConnectionOptions tls(TlsConfig config) {
        return BASE.withTls(config);
    }

    /** Connects and exchanges a message both ways: the listener serves a good connector. */
    private void servesAGoodConnector(Listener l, ConnectionOptions connector) throws Exception {
        CompletableFuture<Connection> c = CompletableFuture.supplyAsync(() -> Transport.connect(l.address(), connector), PEERS);
        Connection accepted = closing(l.accept(WAIT));
        assertNotNull(accepted, "no connection accepted");
        Connection client = closing(c.get(30, TimeUnit.SECONDS));
        client.send(new byte[] {1, 2, 3}, 0, 3);
        assertArrayEquals(new byte[] {1, 2, 3}, accepted.receive(WAIT));
        accepted.send(new byte[] {4}, 0, 1);
        assertArrayEquals(new byte[] {4}, client.receive(WAIT));
    }

    /**
     * Connects with {@code connector} to a listener with {@code listener} options, expecting both
     * to fail: the connector at once with AUTH and {@code connectorSays}, the listener with an AUTH
     * rejection saying {@code listenerSays}; then the listener serves {@code good} (null: no
     * connector can be served by a listener whose own certificate is bad).
     */
    private void refused(ConnectionOptions listener, ConnectionOptions connector, String connectorSays,
                         String listenerSays, ConnectionOptions good) throws Exception {
        Listener l = listen(listener);
        long before = Rejections.count();
        long t0 = System.nanoTime();
        TransportException e = assertThrows(TransportException.class, () -> Transport.connect(l.address(), connector));
        long took = System.nanoTime() - t0;
        assertEquals(Reason.AUTH, e.reason(), e.getMessage());
        assertTrue(e.getMessage().contains(connectorSays), e.getMessage());
        assertTrue(took < AT_ONCE.toNanos(), "failed after " + took / 1_000_000 + " ms: " + e.getMessage());
        String why = rejection(before, AT_ONCE);
        assertTrue(why.contains("AUTH") && why.contains(listenerSays), why);
        assertNull(l.accept(Duration.ofMillis(100)), "the refused connector was not queued");
        if (good != null) {
            servesAGoodConnector(l, good);
        }
    }

    // ------------------------------------------------------------------ what connects

    @Test
    void mutualTlsConnectsWithPkcs12AndPemMaterial() throws Exception {
        Listener l = listen(GOOD_LISTENER);
        servesAGoodConnector(l, GOOD_CONNECTOR);
        var dir = TestPki.PKI.dir();
        TlsConfig pem = TlsConfig.fromPem(dir.resolve("connector.pem"), dir.resolve("connector.key"), dir.resolve("ca.pem"));
        servesAGoodConnector(l, tls(pem));
        Listener pemListener = listen(tls(TlsConfig.fromPem(dir.resolve("listener.pem"), dir.resolve("listener.key"),
                dir.resolve("ca.pem"))));
        servesAGoodConnector(pemListener, GOOD_CONNECTOR);
    }

    @Test
    void aConnectorMayNameTheHostItExpectsOrPinTheListenersCertificate() throws Exception {
        Listener l = listen(tls(TestPki.PKI.config("wronghost")));
        servesAGoodConnector(l, tls(TestPki.PKI.connector().withHostName("elsewhere.example")));
        X509Certificate listener = TlsMaterial.certificates(TestPki.PKI.dir().resolve("listener.pem")).getFirst();
        // a connector that trusts no CA at all, only the listener's own certificate
        TlsConfig pinned = TlsConfig.pinnedPkcs12(TestPki.PKI.keyStore("connector"), TestPki.password(), listener);
        Listener good = listen(GOOD_LISTENER);
        servesAGoodConnector(good, tls(pinned));
        refused(GOOD_LISTENER.withTls(TestPki.PKI.config("wronghost")), tls(pinned), "not the pinned one",
                "the peer refused this side's certificate", GOOD_CONNECTOR.withTls(TestPki.PKI.connector()
                        .withHostName("elsewhere.example")));
    }

    @Test
    void oneWayTlsNeedsNoClientCertificateAndMutualTlsRefusesAConnectorWithout() throws Exception {
        TlsConfig trustOnly = TlsConfig.fromPkcs12(null, null, TestPki.PKI.trustStore(), TestPki.password());
        Listener oneWay = listen(tls(TestPki.PKI.listener().oneWay()));
        servesAGoodConnector(oneWay, tls(trustOnly));
        refused(GOOD_LISTENER, tls(trustOnly), "the peer requires a client certificate",
                "the peer sent no certificate and this side requires one", GOOD_CONNECTOR);
    }

    // ------------------------------------------------------------------ what is refused, on both sides

    @Test
    void aListenerSignedByAnUnknownCaIsRefused() throws Exception {
        refused(GOOD_LISTENER, tls(TestPki.mixed(TestPki.PKI, "connector", TestPki.ROGUE)),
                "not signed by a CA this side trusts (unknown CA)", "the peer refused this side's certificate",
                GOOD_CONNECTOR);
    }

    @Test
    void aConnectorSignedByAnUnknownCaIsRefused() throws Exception {
        refused(GOOD_LISTENER, tls(TestPki.mixed(TestPki.ROGUE, "connector", TestPki.PKI)),
                // the listener names the CAs it accepts, so the JDK's connector sends no certificate at all
                "the peer requires a client certificate signed by a CA it trusts",
                "the peer sent no certificate and this side requires one", GOOD_CONNECTOR);
    }

    @Test
    void anExpiredListenerCertificateIsRefused() throws Exception {
        refused(tls(TestPki.PKI.config("expired")), GOOD_CONNECTOR, "the peer's certificate has expired",
                "the peer found this side's certificate expired or not yet valid", null);
    }

    @Test
    void anExpiredConnectorCertificateIsRefused() throws Exception {
        refused(GOOD_LISTENER, tls(TestPki.PKI.config("expired")), "outside its validity dates",
                "the peer's certificate has expired", GOOD_CONNECTOR);
    }

    @Test
    void aNotYetValidCertificateIsRefusedOnEitherSide() throws Exception {
        refused(tls(TestPki.PKI.config("future")), GOOD_CONNECTOR, "the peer's certificate is not yet valid",
                "the peer refused this side's certificate", null);
        refused(GOOD_LISTENER, tls(TestPki.PKI.config("future")), "outside its validity dates",
                "the peer's certificate is not yet valid", GOOD_CONNECTOR);
    }

    @Test
    void aListenerCertificateForAnotherHostIsRefused() throws Exception {
        refused(tls(TestPki.PKI.config("wronghost")), GOOD_CONNECTOR, "wrong host name",
                "the peer refused this side's certificate",
                GOOD_CONNECTOR.withTls(TestPki.PKI.connector().withHostName("elsewhere.example")));
    }

    @Test
    void aPlaintextConnectorAtATlsListenerFailsBothSidesAtOnce() throws Exception {
        refused(GOOD_LISTENER, BASE, "requires TLS and this side does not use it",
                "the peer did not use TLS (a plaintext hello)", GOOD_CONNECTOR);
        refused(GOOD_LISTENER, BASE.withSharedSecret(new byte[32]), "requires TLS and this side does not use it",
                "the peer did not use TLS (a plaintext hello)", GOOD_CONNECTOR);
    }

    @Test
    void aTlsConnectorAtAPlaintextListenerFailsBothSidesAtOnce() throws Exception {
        refused(BASE, GOOD_CONNECTOR, "does not use TLS", "the peer speaks TLS and this listener does not use it", BASE);
    }

    @Test
    void aConnectorThatStallsInTheTlsHandshakeIsDroppedAtTheConnectTimeout() throws Exception {
        Listener l = listen(GOOD_LISTENER.withConnectTimeout(Duration.ofMillis(500)));
        long before = Rejections.count();
        try (SocketChannel s = TcpConnectionTest.raw(l)) {
            s.write(ByteBuffer.wrap(new byte[] {0x16, 3, 1, 0, 100, 1})); // the start of a ClientHello, then nothing
            String why = rejection(before, AT_ONCE);
            assertTrue(why.contains("TIMEOUT") && why.contains("TLS handshake"), why);
        }
        servesAGoodConnector(l, GOOD_CONNECTOR);
    }

    @Test
    void tlsAndASharedSecretTogether() throws Exception {
        byte[] secret = new byte[32];
        secret[0] = 7;
        Listener l = listen(GOOD_LISTENER.withSharedSecret(secret));
        servesAGoodConnector(l, GOOD_CONNECTOR.withSharedSecret(secret));
        byte[] other = secret.clone();
        other[1] = 1;
        refused(GOOD_LISTENER.withSharedSecret(secret), GOOD_CONNECTOR.withSharedSecret(other),
                "refused this side's proof of the shared secret", "did not prove the shared secret",
                GOOD_CONNECTOR.withSharedSecret(secret));
    }

    @Test
    void unusableKeyMaterialFailsWhenTheConfigurationIsMadeNamingTheFile() throws Exception {
        var dir = TestPki.PKI.dir();
        IllegalArgumentException wrongPassword = assertThrows(IllegalArgumentException.class, () -> TlsConfig.fromPkcs12(
                dir.resolve("listener.p12"), "wrong".toCharArray(), dir.resolve("trust.p12"), TestPki.password()));
        assertTrue(wrongPassword.getMessage().contains("listener.p12"), wrongPassword.getMessage());
        // a certificate where the key should be
        IllegalArgumentException noKey = assertThrows(IllegalArgumentException.class, () -> TlsConfig.fromPem(
                dir.resolve("listener.pem"), dir.resolve("listener.pem"), dir.resolve("ca.pem")));
        assertTrue(noKey.getMessage().contains("BEGIN PRIVATE KEY"), noKey.getMessage());
        IllegalArgumentException noCert = assertThrows(IllegalArgumentException.class, () -> TlsConfig.fromPem(
                dir.resolve("listener.key"), dir.resolve("listener.key"), dir.resolve("ca.pem")));
        assertTrue(noCert.getMessage().contains("listener.key"), noCert.getMessage());
        assertTrue(GOOD_LISTENER.toString().contains("tls=TlsConfig[mutual]"), GOOD_LISTENER.toString());
    }
}
