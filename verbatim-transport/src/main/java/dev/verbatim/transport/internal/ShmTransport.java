package dev.verbatim.transport.internal;

import dev.verbatim.buffer.Buffer;
import dev.verbatim.transport.Connection;
import dev.verbatim.transport.ConnectionOptions;
import dev.verbatim.transport.Listener;
import dev.verbatim.transport.ListenerStats;
import dev.verbatim.transport.TransportException;
import dev.verbatim.transport.TransportException.Reason;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Opening {@code shm:NAME} connections. The rendezvous is a Unix-domain socket
 * {@code NAME.sock} in the {@link ShmDirectory}; over it the two sides exchange {@link Hello}s naming
 * their receive window files, map each other's, unlink their own, and keep the socket open as the
 * liveness and close channel watched by the {@link ShmWatchdog}. A listener owns its name through the
 * lock on {@code NAME.lock} ({@link ShmNameLock}): taken before the socket is bound, released after
 * both files are deleted, dropped by the kernel if the process dies, so a second live listener at the
 * name fails ({@code CONNECT}) and a dead one's files are swept without a connect.
 */
public final class ShmTransport {
    private ShmTransport() {}

    private static final byte ACK = 6;

    public static Connection connect(String name, ConnectionOptions options) {
        ShmDirectory.checkName(name);
        Path dir = ShmDirectory.forConnect(name);
        ShmDirectory.sweep(dir);
        Path socket = ShmDirectory.socket(dir, name);
        long deadline = System.nanoTime() + options.connectTimeout().toNanos();
        SocketChannel channel;
        try {
            channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        } catch (IOException e) {
            throw new TransportException(Reason.IO, "cannot open a socket: " + e.getMessage(), e);
        }
        String areaName = ShmDirectory.newAreaName(name);
        Path ownFile = dir.resolve(areaName);
        Buffer own = null;
        Buffer peer = null;
        try {
            channel.configureBlocking(false);
            try {
                if (!channel.connect(UnixDomainSocketAddress.of(socket))) {
                    finishConnect(channel, deadline, name);
                }
            } catch (IOException e) {
                throw new TransportException(Reason.CONNECT, "no listener at shm:" + name + " (" + socket + ": "
                        + e.getMessage() + ")", e);
            }
            own = ShmWindows.create(ownFile, options.areaCount(), options.areaSize(), options.spinOnly());
            Hello hello = new Hello(Hello.KIND_HELLO, ProcessHandle.current().pid(), options.areaCount(),
                    options.areaSize(), areaName);
            ChannelIO.writeFully(channel, hello.encode(), deadline, "the shm handshake");
            Hello welcome = readHello(channel, Hello.KIND_WELCOME, deadline);
            if (welcome.busy()) { // a refusal names no window: checked before the name
                throw new TransportException(Reason.BUSY, "the listener at shm:" + name + " holds its limit of"
                        + " connections and refused this one (try again once some have closed)");
            }
            if (!ShmDirectory.isAreaNameOf(welcome.name(), name, welcome.pid())) {
                throw new ProtocolViolation("a welcome naming '" + welcome.name() + "', which is not a window file of"
                        + " shm:" + name + " made by process " + welcome.pid());
            }
            peer = ShmWindows.mapPeer(dir.resolve(welcome.name()), welcome);
            Files.deleteIfExists(ownFile); // the listener mapped it before welcoming us
            ChannelIO.writeFully(channel, ByteBuffer.wrap(new byte[] {ACK}), deadline, "the shm handshake");
            return new ShmConnection(options, "shm:" + name + " (connector)", own, peer,
                    welcome.areaCount(), welcome.areaSize(), channel);
        } catch (ProtocolViolation v) {
            fail(channel, own, peer, ownFile);
            throw new TransportException(Reason.CONNECT, "shm:" + name + " refused the handshake: " + v.getMessage());
        } catch (IOException e) {
            fail(channel, own, peer, ownFile);
            throw new TransportException(Reason.IO, "connecting to shm:" + name + " failed: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            fail(channel, own, peer, ownFile);
            throw e;
        }
    }

    /** Waits for a non-blocking connect (a listener whose backlog is full) until the deadline. */
    private static void finishConnect(SocketChannel channel, long deadline, String name) throws IOException {
        try (java.nio.channels.Selector selector = java.nio.channels.Selector.open()) {
            channel.register(selector, java.nio.channels.SelectionKey.OP_CONNECT);
            while (!channel.finishConnect()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new TransportException(Reason.TIMEOUT, "shm:" + name + " did not take the connection in time"
                            + " (its backlog is full)");
                }
                selector.select(Math.max(1, left / 1_000_000));
                selector.selectedKeys().clear();
            }
        }
    }

    static Hello readHello(SocketChannel channel, int kind, long deadline) throws IOException, ProtocolViolation {
        ByteBuffer head = ByteBuffer.allocate(Hello.HEAD);
        ChannelIO.readFully(channel, head, deadline, "the handshake");
        int n = Hello.nameLength(head);
        ByteBuffer nameBytes = ByteBuffer.allocate(n);
        ChannelIO.readFully(channel, nameBytes, deadline, "the handshake");
        nameBytes.flip();
        return Hello.decode(head, nameBytes, kind);
    }

    private static void fail(SocketChannel channel, Buffer own, Buffer peer, Path ownFile) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // failing anyway
        }
        if (peer != null) {
            peer.release();
        }
        if (own != null) {
            own.release();
        }
        try {
            Files.deleteIfExists(ownFile);
        } catch (IOException ignored) {
            // the sweep removes it once this process is gone
        }
    }

    public static Listener listen(String name, ConnectionOptions options) {
        ShmDirectory.checkName(name);
        Path dir = ShmDirectory.directory();
        ShmDirectory.sweep(dir);
        Path socket = ShmDirectory.socket(dir, name);
        if (socket.toString().length() > 100) {
            throw new IllegalArgumentException("the shm socket path " + socket + " is too long for a Unix-domain socket"
                    + " (set -Dverbatim.shm.dir to a shorter directory)");
        }
        ShmNameLock lock = ShmNameLock.acquire(dir, name, System.nanoTime() + options.connectTimeout().toNanos());
        ServerSocketChannel server = null;
        ShmListener listener = null;
        try {
            server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            server.bind(UnixDomainSocketAddress.of(socket), 128);
            listener = new ShmListener(name, lock, server, dir, options);
            return listener;
        } catch (IOException e) {
            throw new TransportException(Reason.IO, "cannot listen at shm:" + name + ": " + e.getMessage(), e);
        } finally {
            if (listener == null) {
                ChannelIO.closeQuietly(server);
                lock.close();
            }
        }
    }

    /** A listener at {@code shm:NAME}. */
    static final class ShmListener implements Listener {
        private final String name;
        private final ShmNameLock lock;
        private final ServerSocketChannel server;
        private final Path dir;
        private final ConnectionOptions options;
        private final AtomicLong accepted = new AtomicLong();
        private final Acceptor acceptor;
        private volatile boolean closed;

        ShmListener(String name, ShmNameLock lock, ServerSocketChannel server, Path dir, ConnectionOptions options)
                throws IOException {
            this.name = name;
            this.lock = lock;
            this.server = server;
            this.dir = dir;
            this.options = options;
            this.acceptor = new Acceptor("shm:" + name, server, options, this::handshake);
        }

        @Override
        public String address() {
            return "shm:" + name;
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
         * Completes one connector's handshake, or drops it (returning null) with the reason logged. At the
         * listener's limit of connections the WELCOME says {@link Hello#FLAG_BUSY} (naming no window) and
         * the listener closes, before mapping or creating any window.
         */
        private Connection handshake(Acceptor.Attempt attempt) {
            SocketChannel channel = attempt.channel();
            long deadline = attempt.deadline();
            String areaName = ShmDirectory.newAreaName(name);
            Path ownFile = dir.resolve(areaName);
            Buffer own = null;
            Buffer peer = null;
            try {
                channel.configureBlocking(false);
                Hello hello = readHello(channel, Hello.KIND_HELLO, deadline);
                if (!ShmDirectory.isAreaName(hello.name())) {
                    throw new ProtocolViolation("a hello naming '" + hello.name() + "', which is not a window file");
                }
                if (attempt.overLimit()) {
                    ChannelIO.writeFully(channel, new Hello(Hello.KIND_WELCOME, 0, options.areaCount(), options.areaSize(),
                            "", Hello.FLAG_BUSY).encode(), deadline, "the shm handshake");
                    throw new TransportException(Reason.BUSY, "refused: this listener holds its limit of "
                            + options.maxConnections() + " connections");
                }
                peer = ShmWindows.mapPeer(dir.resolve(hello.name()), hello);
                own = ShmWindows.create(ownFile, options.areaCount(), options.areaSize(), options.spinOnly());
                Hello welcome = new Hello(Hello.KIND_WELCOME, ProcessHandle.current().pid(), options.areaCount(),
                        options.areaSize(), areaName);
                ChannelIO.writeFully(channel, welcome.encode(), deadline, "the shm handshake");
                ByteBuffer ack = ByteBuffer.allocate(1);
                ChannelIO.readFully(channel, ack, deadline, "the shm handshake");
                Files.deleteIfExists(ownFile);
                if (ack.get(0) != ACK) {
                    throw new ProtocolViolation("a malformed handshake acknowledgement");
                }
                return new ShmConnection(options, "shm:" + name + " (accepted #" + accepted.incrementAndGet() + ")",
                        own, peer, hello.areaCount(), hello.areaSize(), channel);
            } catch (ProtocolViolation | IOException | TransportException e) {
                fail(channel, own, peer, ownFile);
                attempt.drop(e.getMessage() != null ? e.getMessage() : e.toString());
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
            lock.close(); // deletes the socket file, then the lock file, then releases the name
        }
    }
}
