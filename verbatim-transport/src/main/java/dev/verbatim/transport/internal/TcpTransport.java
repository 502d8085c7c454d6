package dev.verbatim.transport.internal;

import dev.verbatim.transport.Connection;
import dev.verbatim.transport.ConnectionOptions;
import dev.verbatim.transport.Listener;
import dev.verbatim.transport.TransportException;
import dev.verbatim.transport.TransportException.Reason;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** Opening {@code tcp://HOST:PORT} connections: connect, listen, and the {@link Hello} exchange. */
public final class TcpTransport {
    private TcpTransport() {}

    public static Connection connect(InetSocketAddress address, String text, ConnectionOptions options) {
        long deadline = System.nanoTime() + options.connectTimeout().toNanos();
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
            Hello hello = new Hello(Hello.KIND_HELLO, ProcessHandle.current().pid(), options.areaCount(),
                    options.areaSize(), "");
            ChannelIO.writeFully(channel, hello.encode(), deadline, "the tcp handshake");
            Hello welcome = ShmTransport.readHello(channel, Hello.KIND_WELCOME, deadline);
            return new TcpConnection(options, text + " (connector)", channel, welcome.areaCount(), welcome.areaSize());
        } catch (ProtocolViolation v) {
            close(channel);
            throw new TransportException(Reason.CONNECT, text + " refused the handshake: " + v.getMessage());
        } catch (IOException e) {
            close(channel);
            throw new TransportException(Reason.IO, "connecting to " + text + " failed: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            close(channel);
            throw e;
        }
    }

    private static void close(SocketChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // failing anyway
            }
        }
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
            this.acceptor = new Acceptor(address, server, this::handshake);
        }

        @Override
        public String address() {
            return address;
        }

        @Override
        public Connection accept(Duration timeout) {
            return acceptor.accept(timeout);
        }

        private Connection handshake(SocketChannel channel) {
            long deadline = System.nanoTime() + options.connectTimeout().toNanos();
            try {
                channel.configureBlocking(false);
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                Hello hello = ShmTransport.readHello(channel, Hello.KIND_HELLO, deadline);
                Hello welcome = new Hello(Hello.KIND_WELCOME, ProcessHandle.current().pid(), options.areaCount(),
                        options.areaSize(), "");
                ChannelIO.writeFully(channel, welcome.encode(), deadline, "the tcp handshake");
                return new TcpConnection(options, address + " (accepted #" + accepted.incrementAndGet() + ")", channel,
                        hello.areaCount(), hello.areaSize());
            } catch (ProtocolViolation | IOException | TransportException e) {
                TcpTransport.close(channel);
                Rejections.record(address, e.getMessage());
                return null;
            }
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
