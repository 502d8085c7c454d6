package dev.verbatim.transport.internal;

import dev.verbatim.transport.TransportException;
import dev.verbatim.transport.TransportException.Reason;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;

/**
 * The byte stream under a tcp connection: the socket itself ({@link PlainStream}) or TLS over it
 * ({@link TlsStream}). Non-blocking, with the socket's contract: {@code read} returns the bytes
 * it put in {@code dst} ({@code 0}: nothing yet, {@code -1}: the stream ended), {@code write} the
 * bytes it took from its sources. A TLS stream may take bytes it cannot put on the socket yet: it
 * holds them, whole records, until {@link #flush()} says none are left; and it may hold input it
 * already took from the socket ({@link #hasBufferedInput()}), so a reader must not wait for the
 * socket while that is true. A plain stream holds nothing and its {@code flush} is {@code true}.
 * Reads are made by one thread at a time, writes by one thread at a time (the connection's locks);
 * a read and a write may run at once.
 */
public interface TcpStream extends Closeable {
    SocketChannel socket();

    int read(ByteBuffer dst) throws IOException;

    int write(ByteBuffer src) throws IOException;

    long write(ByteBuffer[] srcs) throws IOException;

    /** Writes what the stream holds back, without waiting; true once nothing is held back. */
    boolean flush() throws IOException;

    /** Whether {@link #read} can return bytes (or the end) without the socket becoming readable. */
    boolean hasBufferedInput();

    /** Ends this side's output (after a TLS close_notify), keeping the input open. */
    void shutdownOutput() throws IOException;

    /** Reads until {@code buffer} is full or the deadline ({@link System#nanoTime()}) passes (handshakes). */
    default void readFully(ByteBuffer buffer, long deadline, String what) throws IOException {
        try (Selector selector = Selector.open()) {
            socket().register(selector, SelectionKey.OP_READ);
            while (buffer.hasRemaining()) {
                int n = read(buffer);
                if (n < 0) {
                    throw new TransportException(Reason.CONNECT, "the peer closed the connection during " + what);
                }
                if (n == 0 && !hasBufferedInput()) {
                    ChannelIO.await(selector, deadline, what);
                }
            }
        }
    }

    /** Writes all of {@code buffer}, and what the stream holds back, before the deadline (handshakes). */
    default void writeFully(ByteBuffer buffer, long deadline, String what) throws IOException {
        try (Selector selector = Selector.open()) {
            socket().register(selector, SelectionKey.OP_WRITE);
            while (buffer.hasRemaining() || !flush()) {
                if (write(buffer) == 0) {
                    ChannelIO.await(selector, deadline, what);
                }
            }
        }
    }
}
