package dev.verbatim.bench.transport;

import dev.verbatim.bench.harness.Medium;
import dev.verbatim.bench.harness.Session;

import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * The TCP floor: raw Java NIO on loopback, blocking {@link SocketChannel}s with TCP_NODELAY, a
 * 4-byte length before each message (so an 8-byte message is 12 bytes on the wire), one
 * {@code write} per message and as few {@code read}s as the kernel allows. The pong reads a whole
 * frame and writes it back from the same direct buffer (its first {@link Session#replyMax()} bytes). Java's own cost over the system calls is a
 * few hundred nanoseconds at most; the rest is the kernel's loopback path.
 */
final class NioPingPong implements PingPongContender {
    static final String PORT = "port";

    @Override
    public String name() {
        return "floor";
    }

    @Override
    public Medium medium() {
        return Medium.TCP;
    }

    @Override
    public Pong pong(Session session) throws Exception {
        ServerSocketChannel server = ServerSocketChannel.open();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        session.publish(PORT, Integer.toString(((InetSocketAddress) server.getLocalAddress()).getPort()));
        return new NioPong(server, session.maxSize(), session.replyMax());
    }

    @Override
    public Ping ping(Session session) throws Exception {
        int port = Integer.parseInt(session.require(PORT));
        SocketChannel ch = SocketChannel.open(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        return new NioPing(ch, session.maxSize(), session.replyMax());
    }

    /** Reads until {@code buf} has no room left; false on a clean end of stream before any byte. */
    static boolean readFully(SocketChannel ch, ByteBuffer buf) throws IOException {
        boolean first = true;
        while (buf.hasRemaining()) {
            if (ch.read(buf) < 0) {
                if (first && buf.position() == 0) {
                    return false;
                }
                throw new EOFException("connection closed inside a frame");
            }
            first = false;
        }
        return true;
    }

    static void writeFully(SocketChannel ch, ByteBuffer buf) throws IOException {
        while (buf.hasRemaining()) {
            ch.write(buf);
        }
    }

    static final class NioPing implements Ping {
        private final SocketChannel ch;
        private final ByteBuffer out;
        private final MemorySegment outSeg;
        private final ByteBuffer in;
        private final MemorySegment inSeg;
        private final int replyMax;

        NioPing(SocketChannel ch, int max, int replyMax) {
            this.ch = ch;
            this.replyMax = replyMax;
            this.out = ByteBuffer.allocateDirect(4 + max).order(ByteOrder.LITTLE_ENDIAN);
            this.outSeg = MemorySegment.ofBuffer(out);
            this.in = ByteBuffer.allocateDirect(4 + max).order(ByteOrder.LITTLE_ENDIAN);
            this.inSeg = MemorySegment.ofBuffer(in);
        }

        @Override
        public void roundTrip(MemorySegment message, MemorySegment reply, int size) throws IOException {
            out.clear();
            out.putInt(0, size);
            MemorySegment.copy(message, 0, outSeg, 4, size);
            out.limit(4 + size);
            writeFully(ch, out);
            int r = Math.min(size, replyMax);
            in.clear().limit(4 + r);
            if (!readFully(ch, in)) {
                throw new EOFException("pong closed the connection");
            }
            if (in.getInt(0) != r) {
                throw new IOException("echo of " + in.getInt(0) + " bytes, expected " + r);
            }
            MemorySegment.copy(inSeg, 4, reply, 0, r);
        }

        @Override
        public void close() throws IOException {
            ch.close();
        }
    }

    static final class NioPong implements Pong {
        private final ServerSocketChannel server;
        private final ByteBuffer buf;
        private final int max;
        private final int replyMax;
        private SocketChannel ch;

        NioPong(ServerSocketChannel server, int max, int replyMax) {
            this.server = server;
            this.buf = ByteBuffer.allocateDirect(4 + max).order(ByteOrder.LITTLE_ENDIAN);
            this.max = max;
            this.replyMax = replyMax;
        }

        @Override
        public boolean echo() throws IOException {
            if (ch == null) {
                ch = server.accept();
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            }
            buf.clear(); // one read usually brings the whole frame: only one is in flight
            while (buf.position() < 4) {
                if (ch.read(buf) < 0) {
                    if (buf.position() == 0) {
                        return false;
                    }
                    throw new EOFException("connection closed inside a frame");
                }
            }
            int size = buf.getInt(0);
            if (size < 0 || size > max || buf.position() > 4 + size) {
                throw new IOException("bad frame: " + size + " bytes (at most " + max + "), " + buf.position() + " read");
            }
            buf.limit(4 + size);
            readFully(ch, buf);
            int r = Math.min(size, replyMax); // the first r bytes go back (all of them but in the rpc suite)
            buf.putInt(0, r);
            buf.position(0).limit(4 + r);
            writeFully(ch, buf);
            return true;
        }

        @Override
        public void close() throws IOException {
            if (ch != null) {
                ch.close();
            }
            server.close();
        }
    }
}
