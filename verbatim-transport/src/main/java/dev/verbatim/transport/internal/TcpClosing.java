package dev.verbatim.transport.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import static dev.verbatim.transport.internal.FrameDescriptor.CLOSE;
import static dev.verbatim.transport.internal.FrameDescriptor.HEADER;

/**
 * Ending a tcp connection's stream so the peer learns why (docs/transport.md §4.4): the
 * {@code CLOSE} frame with its reason, sent under the connection's send lock (never inside a frame
 * this thread is writing), then the FIN, and a short read of what the peer had already sent, so
 * the kernel does not answer the close with a reset that could destroy the frame. Best effort
 * throughout: a peer that cannot be told learns from the end of the stream. Stateless.
 */
final class TcpClosing {
    private TcpClosing() {}

    private static final long WAIT_SLICE_MS = 10;

    /** A CLOSE frame carrying {@code reason} (cut to {@link FrameDescriptor#MAX_REASON} bytes). */
    static ByteBuffer closeFrame(String reason) {
        byte[] r = reason.getBytes(StandardCharsets.UTF_8);
        int n = Math.min(r.length, FrameDescriptor.MAX_REASON);
        int padded = (n + 7) & ~7;
        ByteBuffer b = ByteBuffer.allocate(HEADER + padded).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(n).put((byte) CLOSE).put((byte) 0).putShort((short) 0).putLong(0).put(r, 0, n);
        return b.position(0).limit(HEADER + padded);
    }

    /** Sends CLOSE, waiting up to a second for the send lock and a second for the socket. */
    static void sendClose(TcpStream stream, ReentrantLock sendLock, TcpReadiness.Watch writes, String reason) {
        if (sendLock.isHeldByCurrentThread()) {
            return; // a frame of ours is half written: the peer learns from the end of the stream
        }
        try {
            if (!sendLock.tryLock(1, TimeUnit.SECONDS)) {
                return;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        try {
            ByteBuffer b = closeFrame(reason);
            long deadline = System.nanoTime() + 1_000_000_000L;
            while ((b.hasRemaining() || !stream.flush()) && System.nanoTime() - deadline < 0) {
                if (stream.write(b) == 0) {
                    writes.awaitWritable(WAIT_SLICE_MS * 1_000_000L);
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // the peer learns of the close from the end of the stream instead
        } finally {
            sendLock.unlock();
        }
    }

    /**
     * Sends CLOSE only if the lock is free and the socket takes it at once, then the FIN, without
     * waiting for anything (the heartbeat thread, ending a silent peer: it must not block).
     */
    static void sendCloseNow(TcpStream stream, ReentrantLock sendLock, String reason) {
        if (sendLock.tryLock()) {
            try {
                ByteBuffer b = closeFrame(reason);
                stream.write(b);
                if (b.position() == 0 || b.hasRemaining() || !stream.flush()) {
                    return; // nothing or part of it went: no FIN either, the frame would be cut (the peer sees the reset)
                }
                stream.socket().shutdownOutput();
            } catch (IOException | RuntimeException ignored) {
                // the peer learns from the end of the stream instead
            } finally {
                sendLock.unlock();
            }
        }
    }

    /**
     * Sends our FIN and reads away what the peer already sent (notices, typically): closing a socket
     * with unread bytes makes the kernel reset the connection, and a reset can destroy our CLOSE
     * frame in the peer's receive queue before the peer reads it.
     */
    static void linger(TcpStream stream, TcpReadiness.Watch reads) {
        try {
            stream.shutdownOutput(); // with TLS after a close_notify
            ByteBuffer sink = ByteBuffer.allocate(4096);
            long deadline = System.nanoTime() + 50_000_000L;
            while (System.nanoTime() - deadline < 0) {
                sink.clear();
                int n = stream.socket().read(sink); // discarded: no need to decrypt
                if (n < 0) {
                    return;
                }
                if (n == 0) {
                    reads.awaitCredits(5_000_000L);
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // the peer is gone or resetting: nothing more to save
        }
    }
}
