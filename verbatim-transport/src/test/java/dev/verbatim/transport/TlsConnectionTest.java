package dev.verbatim.transport;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The {@link ConnectionContract} over mutual TLS 1.3: TLS is a third transport, and everything that
 * works over tcp works over it (both API levels, regions, flow control, peer death, child processes,
 * which take the same certificates through {@code -Dverbatim.test.tls}).
 */
class TlsConnectionTest extends ConnectionContract {

    @BeforeAll
    static void childrenUseTls() {
        System.setProperty(TransportPeer.TLS_PROPERTY, TestPki.PKI.dir().toString());
    }

    @AfterAll
    static void noThreadsLeft() throws InterruptedException {
        System.clearProperty(TransportPeer.TLS_PROPERTY);
        assertNoVerbatimThreads();
    }

    @Override
    ConnectionOptions defaults() {
        return ConnectionOptions.DEFAULT.withTls(TestPki.TLS);
    }

    @Override
    String listenAddress() {
        return "tcp://:0";
    }

    @Override
    AutoCloseable silentConnector(Listener l) throws Exception {
        return TcpConnectionTest.raw(l);
    }
}
