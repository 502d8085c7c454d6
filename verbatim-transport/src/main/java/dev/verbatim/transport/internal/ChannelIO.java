package dev.verbatim.transport.internal;

import dev.verbatim.transport.TransportException;
import dev.verbatim.transport.TransportException.Reason;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;

/** Deadline-bounded reads and writes on a non-blocking socket channel (handshakes, slow paths); quiet closes. */
public final class ChannelIO {
    private ChannelIO() {}

    /**
     * Closes {@code c} (nothing if null) on a path that is failing or dropping it anyway: an {@link IOException}
     * from the close has nothing left to report (the descriptor, and any lock through it, is gone either way).
     */
    public static void closeQuietly(java.io.Closeable c) {
        if (c != null) {
            try {
                c.close();
            } catch (IOException ignored) {
                // dropped either way
            }
        }
    }

    /** Reads until {@code buffer} is full or the deadline ({@link System#nanoTime()}) passes. */
    public static void readFully(SocketChannel channel, ByteBuffer buffer, long deadline, String what)
            throws IOException {
        try (Selector selector = Selector.open()) {
            channel.register(selector, SelectionKey.OP_READ);
            while (buffer.hasRemaining()) {
                int n = channel.read(buffer);
                if (n < 0) {
                    throw new TransportException(Reason.CONNECT, "the peer closed the connection during " + what);
                }
                if (n == 0) {
                    await(selector, deadline, what);
                }
            }
        }
    }

    /** Writes all of {@code buffer} before the deadline. */
    public static void writeFully(SocketChannel channel, ByteBuffer buffer, long deadline, String what)
            throws IOException {
        Selector selector = null;
        try {
            while (buffer.hasRemaining()) {
                if (channel.write(buffer) == 0) {
                    if (selector == null) {
                        selector = Selector.open();
                        channel.register(selector, SelectionKey.OP_WRITE);
                    }
                    await(selector, deadline, what);
                }
            }
        } finally {
            if (selector != null) {
                selector.close();
            }
        }
    }

    static void await(Selector selector, long deadline, String what) throws IOException {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            throw new TransportException(Reason.TIMEOUT, "timed out during " + what);
        }
        selector.select(Math.max(1, left / 1_000_000));
        selector.selectedKeys().clear();
    }
}
