package dev.verbatim.transport.internal;

import dev.verbatim.transport.Connection;
import dev.verbatim.transport.ConnectionOptions;
import dev.verbatim.transport.Listener;
import dev.verbatim.transport.ListenerStats;
import dev.verbatim.transport.TransportException;
import dev.verbatim.transport.TransportException.Reason;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import javax.net.ssl.SSLException;

/**
 * Opening {@code tcp://HOST:PORT} connections: connect, listen, with TLS options the
 * {@link TlsHandshake} first, then the {@link Hello} exchange (inside TLS when on) and, when the
 * options carry a shared secret, the {@link SecretExchange}. Everything of a connection's setup
 * runs within its connect timeout.
 */
public final class TcpTransport {
    private TcpTransport() {}

    public static Connection connect(InetSocketAddress address, String text, ConnectionOptions options) {
        long deadline = System.nanoTime() + options.connectTimeout().toNanos();
        byte[] secret = options.sharedSecret();
        SocketChannel channel = null;
        try {
            channel = SocketChannel.open();
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            try {
                channel.socket().connect(address, (int) Math.max(1, options.connectTimeout().toMillis()));
            } catch (IOException e) {
                throw new TransportException(Reason.CONNECT, "cannot connect to " + text + ": " + e.getMessage(), e);
            }
            channel.configureBlocking(false);
            TcpStream stream = options.tls() == null ? new PlainStream(channel)
                    : TlsHandshake.connect(channel, options.tls(), address, text, deadline);
            Hello hello = ownHello(Hello.KIND_HELLO, options, secret != null);
            byte[] helloBytes = bytes(hello.encode());
            byte[] nonceC = secret == null ? new byte[0] : SecretExchange.nonce();
            stream.writeFully(ByteBuffer.allocate(helloBytes.length + nonceC.length).put(helloBytes).put(nonceC).flip(),
                    deadline, "the tcp handshake");
            Received welcome = readHello(stream, null, Hello.KIND_WELCOME, deadline);
            if (welcome.hello().busy()) {
                throw new TransportException(Reason.BUSY, "the listener at " + text + " holds its limit of connections"
                        + " and refused this one (try again once some have closed)");
            }
            if (welcome.hello().requiresTls()) {
                throw new TransportException(Reason.AUTH, "the listener at " + text + " requires TLS and this side does"
                        + " not use it (ConnectionOptions.withTls)");
            }
            if (welcome.hello().requiresSecret() && secret == null) {
                throw new TransportException(Reason.AUTH, "the listener at " + text + " requires a shared secret and this"
                        + " side has none (ConnectionOptions.withSharedSecret)");
            }
            if (secret != null) {
                if (!welcome.hello().requiresSecret()) {
                    throw new TransportException(Reason.AUTH, "the listener at " + text + " does not use a shared secret,"
                            + " so it cannot prove it holds this side's: refusing the connection");
                }
                authenticateListener(stream, text, secret, nonceC, helloBytes, welcome.bytes(), deadline);
            }
            Hello w = welcome.hello();
            return new TcpConnection(options, text + " (connector)", stream, w.areaCount(), w.areaSize(),
                    w.peerTimeoutMs());
        } catch (ProtocolViolation v) {
            ChannelIO.closeQuietly(channel);
            throw new TransportException(Reason.CONNECT, text + " refused the handshake: " + v.getMessage());
        } catch (SSLException e) { // after the TLS handshake: the listener refused this side's certificate
            ChannelIO.closeQuietly(channel);
            throw new TransportException(Reason.AUTH, "the TLS handshake with " + text + " failed: "
                    + TlsHandshake.describe(e), e);
        } catch (IOException e) {
            ChannelIO.closeQuietly(channel);
            throw new TransportException(Reason.IO, "connecting to " + text + " failed: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            ChannelIO.closeQuietly(channel);
            throw e;
        }
    }

    /**
     * The connector's half of the {@link SecretExchange}, after a WELCOME that asks for it: reads
     * the listener's nonce, proves itself, then checks the listener's proof. A listener that
     * closes instead of proving itself refused our proof (it sends nothing else at that point).
     */
    private static void authenticateListener(TcpStream channel, String text, byte[] secret, byte[] nonceC,
                                             byte[] hello, byte[] welcome, long deadline) throws IOException {
        byte[] nonceL = new byte[SecretExchange.NONCE];
        channel.readFully(ByteBuffer.wrap(nonceL), deadline, "the shared-secret exchange");
        byte[] proofC = SecretExchange.proof(secret, SecretExchange.CONNECTOR_LABEL, nonceC, nonceL, hello, welcome);
        channel.writeFully(ByteBuffer.wrap(proofC), deadline, "the shared-secret exchange");
        byte[] proofL = new byte[SecretExchange.PROOF];
        try {
            channel.readFully(ByteBuffer.wrap(proofL), deadline, "the shared-secret exchange");
        } catch (TransportException e) {
            if (e.reason() != Reason.CONNECT) {
                throw e; // TIMEOUT: a listener that says nothing is not a refusal
            }
            throw refused(text, e);
        } catch (IOException e) { // a reset: the listener closed before reading everything we sent
            throw refused(text, e);
        }
        byte[] expected = SecretExchange.proof(secret, SecretExchange.ACCEPTOR_LABEL, nonceC, nonceL, hello, welcome);
        if (!SecretExchange.matches(expected, proofL)) {
            throw new TransportException(Reason.AUTH, "the listener at " + text + " did not prove the shared secret"
                    + " (a wrong proof: it holds a different secret, or is not the listener meant)");
        }
    }

    private static TransportException refused(String text, Exception cause) {
        return new TransportException(Reason.AUTH, "the listener at " + text + " refused this side's proof of the"
                + " shared secret and closed the connection (the two sides hold different secrets?)", cause);
    }

    /**
     * This side's handshake message. With a secret, the pid is sent as 0: the peer is not
     * authenticated yet, and a tcp connection has no use for it (shm checks it against the window file).
     */
    private static Hello ownHello(int kind, ConnectionOptions options, boolean secret) {
        return new Hello(kind, secret ? 0 : ProcessHandle.current().pid(), options.areaCount(), options.areaSize(), "",
                secret ? Hello.FLAG_SECRET : 0, (int) options.peerTimeout().toMillis());
    }

    /** A handshake message and the bytes it came in, which the {@link SecretExchange} proofs cover. */
    private record Received(Hello hello, byte[] bytes) {}

    /** Reads a handshake message; {@code head}, if not null, holds its head already read. */
    private static Received readHello(TcpStream channel, ByteBuffer head, int kind, long deadline)
            throws IOException, ProtocolViolation {
        if (head == null) {
            head = ByteBuffer.allocate(Hello.HEAD);
            channel.readFully(head, deadline, "the handshake");
        }
        int n = Hello.nameLength(head);
        ByteBuffer name = ByteBuffer.allocate(n);
        channel.readFully(name, deadline, "the handshake");
        name.flip();
        Hello hello = Hello.decode(head, name.duplicate(), kind);
        return new Received(hello, ByteBuffer.allocate(Hello.HEAD + n).put(head.flip()).put(name).array());
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.get(a);
        return a;
    }

    private static byte[] read(TcpStream channel, int n, long deadline, String what) throws IOException {
        byte[] a = new byte[n];
        channel.readFully(ByteBuffer.wrap(a), deadline, what);
        return a;
    }

    public static Listener listen(InetSocketAddress address, ConnectionOptions options) {
        try {
            ServerSocketChannel server = ServerSocketChannel.open();
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            server.bind(address, 128);
            return new TcpListener(server, options);
        } catch (IOException e) {
            throw new TransportException(Reason.IO, "cannot listen at " + address + ": " + e.getMessage(), e);
        }
    }

    /** A listener at {@code tcp://HOST:PORT}. */
    static final class TcpListener implements Listener {
        private final ConnectionOptions options;
        private final String address;
        private final AtomicLong accepted = new AtomicLong();
        private final Acceptor acceptor;
        private volatile boolean closed;

        TcpListener(ServerSocketChannel server, ConnectionOptions options) throws IOException {
            this.options = options;
            InetSocketAddress local = (InetSocketAddress) server.getLocalAddress();
            String host = local.getAddress().getHostAddress();
            this.address = "tcp://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + local.getPort();
            this.acceptor = new Acceptor(address, server, options, this::handshake);
        }

        @Override
        public String address() {
            return address;
        }

        @Override
        public Connection accept(Duration timeout) {
            return acceptor.accept(timeout);
        }

        @Override
        public ListenerStats stats() {
            return acceptor.stats();
        }

        /**
         * The listener's half: the {@link Hello} exchange and, when either side announces a secret,
         * the {@link SecretExchange}. A configuration mismatch is answered with our WELCOME (which
         * tells the connector why) and then a close; a wrong proof with a close and nothing else. At
         * the listener's limit of connections, the WELCOME says {@link Hello#FLAG_BUSY} instead (no
         * nonce) and the listener closes.
         */
        private Connection handshake(Acceptor.Attempt attempt) {
            SocketChannel channel = attempt.channel();
            long deadline = attempt.deadline();
            try {
                channel.configureBlocking(false);
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                byte[] secret = options.sharedSecret();
                TcpStream stream = open(channel, deadline);
                ByteBuffer head = ByteBuffer.allocate(Hello.HEAD);
                stream.readFully(head, deadline, "the handshake");
                if (options.tls() == null && head.get(0) == TlsHandshake.TLS_HANDSHAKE) {
                    throw TlsHandshake.refuseTls((PlainStream) stream, head, ownHello(Hello.KIND_WELCOME, options, false), deadline);
                }
                Received hello = readHello(stream, head, Hello.KIND_HELLO, deadline);
                boolean offered = hello.hello().requiresSecret();
                // A flagged HELLO is followed by its nonce: read it even when refusing, so that our
                // close finds nothing unread and ends in a FIN, not a reset that could discard the WELCOME.
                byte[] nonceC = offered ? read(stream, SecretExchange.NONCE, deadline, "the shared-secret exchange") : null;
                if (attempt.overLimit()) {
                    Hello busy = new Hello(Hello.KIND_WELCOME, 0, options.areaCount(), options.areaSize(), "", Hello.FLAG_BUSY);
                    stream.writeFully(busy.encode(), deadline, "the tcp handshake");
                    throw new TransportException(Reason.BUSY, "refused: this listener holds its limit of "
                            + options.maxConnections() + " connections");
                }
                byte[] welcome = bytes(ownHello(Hello.KIND_WELCOME, options, secret != null).encode());
                byte[] nonceL = secret == null ? new byte[0] : SecretExchange.nonce();
                stream.writeFully(ByteBuffer.allocate(welcome.length + nonceL.length).put(welcome).put(nonceL).flip(),
                        deadline, "the tcp handshake");
                if (secret != null && !offered) {
                    throw new TransportException(Reason.AUTH, "the peer did not prove the shared secret: it has none"
                            + " (this listener requires one)");
                }
                if (secret == null && offered) {
                    throw new TransportException(Reason.AUTH, "the peer requires a shared secret and this listener has none");
                }
                if (secret != null) {
                    byte[] proofC = read(stream, SecretExchange.PROOF, deadline, "the shared-secret exchange");
                    byte[] expected = SecretExchange.proof(secret, SecretExchange.CONNECTOR_LABEL, nonceC, nonceL,
                            hello.bytes(), welcome);
                    if (!SecretExchange.matches(expected, proofC)) {
                        throw new TransportException(Reason.AUTH, "the peer did not prove the shared secret (a wrong proof)");
                    }
                    stream.writeFully(ByteBuffer.wrap(SecretExchange.proof(secret, SecretExchange.ACCEPTOR_LABEL,
                            nonceC, nonceL, hello.bytes(), welcome)), deadline, "the shared-secret exchange");
                }
                Hello h = hello.hello();
                return new TcpConnection(options, address + " (accepted #" + accepted.incrementAndGet() + ")", stream,
                        h.areaCount(), h.areaSize(), h.peerTimeoutMs());
            } catch (SSLException e) { // after the TLS handshake: the peer refused this side's certificate
                ChannelIO.closeQuietly(channel);
                attempt.drop("AUTH: the TLS handshake failed: " + TlsHandshake.describe(e));
                return null;
            } catch (ProtocolViolation | IOException | TransportException e) {
                ChannelIO.closeQuietly(channel);
                attempt.drop(e.getMessage() != null ? e.getMessage() : e.toString());
                return null;
            }
        }

        /**
         * The stream of an accepted socket: the socket itself, or, with TLS, the TLS handshake run
         * after a look at the first byte (a plaintext HELLO is answered with a WELCOME saying TLS
         * is required, and refused).
         */
        private TcpStream open(SocketChannel channel, long deadline) throws IOException {
            PlainStream plain = new PlainStream(channel);
            if (options.tls() == null) {
                return plain;
            }
            ByteBuffer first = ByteBuffer.allocate(1);
            plain.readFully(first, deadline, "the TLS handshake");
            if (first.get(0) != TlsHandshake.TLS_HANDSHAKE) {
                Hello refusal = new Hello(Hello.KIND_WELCOME, 0, options.areaCount(), options.areaSize(), "", Hello.FLAG_TLS);
                throw TlsHandshake.refusePlaintext(plain, first, refusal, deadline);
            }
            return TlsHandshake.accept(channel, options.tls(), first.flip(), deadline);
        }

        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            acceptor.close();
        }
    }
}
