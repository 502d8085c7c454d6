package dev.verbatim.transport.internal;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.concurrent.locks.ReentrantLock;

/**
 * TLS 1.3 over a non-blocking socket, as a {@link TcpStream}, with the JDK's {@link SSLEngine}.
 *
 * <p>Data path. {@link #read} decrypts straight into the caller's buffer (the connection passes a
 * slice of its receive window for large payloads, its staging buffer otherwise); only the part of a
 * record that does not fit goes to {@code spill}, to be handed out by the next read. {@link #write}
 * encrypts from the caller's buffers (the connection's send buffer, or a region's own memory) into
 * {@code netOut}. The engine itself decrypts a record in place in {@code netIn} and copies the
 * plaintext out, and copies plaintext into {@code netOut} before encrypting it there: those two
 * copies, and the ciphers, are what a TLS connection does that a plaintext one does not.
 *
 * <p>Threads. Reads run under the connection's pump lock (one reader), writes under its send lock;
 * {@code outLock} orders everything that touches {@code netOut} and the socket's output, because a
 * reader must sometimes write too: a KeyUpdate from the peer asks for one back. The reader then
 * sets {@code wrapWanted} and wraps only if it gets {@code outLock} at once; a writer that
 * releases {@code outLock} looks at {@code wrapWanted} after, so the answer is never forgotten.
 * Bytes the socket would not take stay in {@code netOut}, whole records, until a later write or
 * {@link #flush()}.
 *
 * <p>KeyUpdate: the engine renews its keys by itself once a key has protected its limit
 * ({@code jdk.tls.keyLimits}); {@code keyUpdateBytes} (property {@code verbatim.tls.keyUpdateBytes},
 * for tests) asks for one after that many bytes sent. Users never see either.
 */
public final class TlsStream implements TcpStream {
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);
    /** KeyUpdate messages written after {@code keyUpdateBytes} asked for them, in this process (tests). */
    private static final java.util.concurrent.atomic.AtomicLong KEY_UPDATES = new java.util.concurrent.atomic.AtomicLong();

    private final SocketChannel socket;
    private final SSLEngine engine;
    private final int packet;

    // input (the reading thread)
    private final ByteBuffer netIn;
    /** Plaintext decrypted beyond what the last reader's buffer held; read mode. */
    private final ByteBuffer spill;
    private final ByteBuffer[] unwrapTo = new ByteBuffer[2];
    private boolean inputEnded;
    private volatile boolean buffered;

    // output (under outLock)
    private final ReentrantLock outLock = new ReentrantLock();
    private final ByteBuffer netOut;
    private final ByteBuffer[] one = new ByteBuffer[1];
    private final long keyUpdateBytes = Long.getLong("verbatim.tls.keyUpdateBytes", 0);
    private long sinceKeyUpdate;
    private boolean keyUpdateAsked;
    private volatile boolean wrapWanted;

    /** A stream over {@code socket}; {@code prefix} holds bytes already read from it (the listener's peek). */
    public TlsStream(SocketChannel socket, SSLEngine engine, ByteBuffer prefix) {
        this.socket = socket;
        this.engine = engine;
        this.packet = engine.getSession().getPacketBufferSize();
        this.netIn = ByteBuffer.allocateDirect(4 * packet);
        this.netOut = ByteBuffer.allocateDirect(4 * packet);
        this.spill = ByteBuffer.allocateDirect(engine.getSession().getApplicationBufferSize()).flip();
        if (prefix != null) {
            netIn.put(prefix);
        }
    }

    @Override
    public SocketChannel socket() {
        return socket;
    }

    public SSLEngine engine() {
        return engine;
    }

    /** KeyUpdate messages streams of this process wrote after {@code verbatim.tls.keyUpdateBytes} asked (tests). */
    public static long keyUpdates() {
        return KEY_UPDATES.get();
    }

    // ------------------------------------------------------------------ handshake

    /**
     * Runs the TLS handshake to its end or the deadline. On a failure, tries to send the engine's
     * alert (so the peer learns why at once) and throws: an {@link SSLException} from the engine,
     * an {@link EOFException} if the peer closed, a {@code TIMEOUT} at the deadline.
     */
    public void handshake(long deadline) throws IOException {
        try (Selector reads = Selector.open(); Selector writes = Selector.open()) {
            socket.register(reads, SelectionKey.OP_READ);
            socket.register(writes, SelectionKey.OP_WRITE);
            engine.beginHandshake();
            try {
                while (true) {
                    HandshakeStatus hs = engine.getHandshakeStatus();
                    switch (hs) {
                        case NEED_TASK -> runTasks();
                        case NEED_WRAP -> {
                            outLock.lock();
                            try {
                                engine.wrap(EMPTY, netOut);
                            } finally {
                                outLock.unlock();
                            }
                            flushBefore(writes, deadline);
                        }
                        case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> {
                            SSLEngineResult r = unwrap(null);
                            if (r.getStatus() == SSLEngineResult.Status.BUFFER_UNDERFLOW) {
                                flushBefore(writes, deadline);
                                int n = socket.read(netIn);
                                if (n < 0) {
                                    throw new EOFException("the peer closed the connection during the TLS handshake");
                                }
                                if (n == 0) {
                                    ChannelIO.await(reads, deadline, "the TLS handshake");
                                }
                            } else if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
                                throw new EOFException("the peer closed TLS during the handshake");
                            }
                        }
                        default -> { // FINISHED, NOT_HANDSHAKING
                            flushBefore(writes, deadline);
                            buffered = spill.hasRemaining() || completeRecord();
                            return;
                        }
                    }
                }
            } catch (SSLException e) {
                sendAlert(writes, Math.min(deadline, System.nanoTime() + 200_000_000L));
                throw e;
            }
        }
    }

    /** The first bytes of what the peer sent, from the start of the stream (to recognise a plaintext peer). */
    public boolean peerSentPlaintextHello() {
        return netIn.position() >= 4 && netIn.get(0) == 'V' && netIn.get(1) == 'R' && netIn.get(2) == 'B'
                && netIn.get(3) == 'H';
    }

    private void sendAlert(Selector writes, long deadline) {
        try {
            outLock.lock();
            try {
                while (engine.getHandshakeStatus() == HandshakeStatus.NEED_WRAP
                        && engine.wrap(EMPTY, netOut).bytesProduced() > 0) {
                    // the alert, and whatever else the engine still has to say
                }
            } finally {
                outLock.unlock();
            }
            flushBefore(writes, deadline);
        } catch (IOException | RuntimeException ignored) {
            // the peer learns of the failure from the close instead
        }
    }

    private void flushBefore(Selector writes, long deadline) throws IOException {
        while (!flush()) {
            ChannelIO.await(writes, deadline, "the TLS handshake");
        }
    }

    private void runTasks() {
        Runnable task;
        while ((task = engine.getDelegatedTask()) != null) {
            task.run();
        }
    }

    // ------------------------------------------------------------------ input

    /** Unwraps one record from {@code netIn} into {@code dst} (may be null) and then {@code spill}. */
    private SSLEngineResult unwrap(ByteBuffer dst) throws SSLException {
        netIn.flip();
        spill.compact();
        try {
            if (dst == null) {
                return engine.unwrap(netIn, spill);
            }
            unwrapTo[0] = dst;
            unwrapTo[1] = spill;
            return engine.unwrap(netIn, unwrapTo);
        } finally {
            unwrapTo[0] = null;
            spill.flip();
            netIn.compact();
        }
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        if (wrapWanted) {
            answerIfFree();
        }
        int start = dst.position();
        boolean socketEnded = false;
        try {
            if (spill.hasRemaining()) {
                int n = Math.min(spill.remaining(), dst.remaining());
                dst.put(dst.position(), spill, spill.position(), n);
                dst.position(dst.position() + n);
                spill.position(spill.position() + n);
            }
            while (dst.hasRemaining() && !inputEnded && !spill.hasRemaining()) {
                SSLEngineResult r = unwrap(dst);
                switch (r.getStatus()) {
                    case OK -> {
                        if (r.getHandshakeStatus() == HandshakeStatus.NEED_TASK) {
                            runTasks();
                        }
                        if (engine.getHandshakeStatus() == HandshakeStatus.NEED_WRAP) {
                            wrapWanted = true; // a KeyUpdate asks for one back
                            answerIfFree();
                        }
                    }
                    case BUFFER_UNDERFLOW -> {
                        int n = socket.read(netIn);
                        if (n < 0) {
                            socketEnded = true;
                        }
                        if (n <= 0) {
                            return ended(dst.position() - start, socketEnded);
                        }
                    }
                    case CLOSED -> inputEnded = true; // close_notify
                    case BUFFER_OVERFLOW -> throw new SSLException("a TLS record larger than the engine announced");
                }
            }
            return ended(dst.position() - start, false);
        } catch (SSLException e) {
            wrapWanted = true; // the engine's alert tells the peer why (best effort, without waiting)
            answerIfFree();
            throw e;
        } finally {
            buffered = spill.hasRemaining() || completeRecord() || inputEnded;
        }
    }

    private int ended(int n, boolean socketEnded) {
        if (n == 0 && !spill.hasRemaining() && (inputEnded || socketEnded)) {
            inputEnded = true;
            return -1;
        }
        return n;
    }

    /** Whether {@code netIn} holds a whole record (header: type, version, u16 length). */
    private boolean completeRecord() {
        int p = netIn.position();
        return p >= 5 && p >= 5 + (((netIn.get(3) & 0xFF) << 8) | (netIn.get(4) & 0xFF));
    }

    @Override
    public boolean hasBufferedInput() {
        return buffered;
    }

    // ------------------------------------------------------------------ output

    @Override
    public int write(ByteBuffer src) throws IOException {
        outLock.lock();
        try {
            one[0] = src;
            return (int) writeLocked(one);
        } finally {
            one[0] = null;
            outLock.unlock();
            answerIfWanted();
        }
    }

    @Override
    public long write(ByteBuffer[] srcs) throws IOException {
        outLock.lock();
        try {
            return writeLocked(srcs);
        } finally {
            outLock.unlock();
            answerIfWanted();
        }
    }

    private long writeLocked(ByteBuffer[] srcs) throws IOException {
        if (!flushLocked()) {
            return 0; // records of before are still waiting for the socket
        }
        long taken = 0;
        while (remaining(srcs) && netOut.remaining() >= packet) {
            SSLEngineResult r = engine.wrap(srcs, netOut);
            taken += r.bytesConsumed();
            if (r.bytesConsumed() == 0) {
                wroteHandshake(r);
            }
            if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
                throw new SSLException("TLS is closed for writing");
            }
            if (r.getHandshakeStatus() == HandshakeStatus.NEED_TASK) {
                runTasks();
            }
        }
        flushLocked();
        if (keyUpdateBytes > 0 && (sinceKeyUpdate += taken) >= keyUpdateBytes) {
            sinceKeyUpdate = 0;
            keyUpdateAsked = true;
            engine.beginHandshake(); // TLS 1.3: a KeyUpdate, wrapped before the next record
        }
        return taken;
    }

    /** A wrap that took no data: if it wrote a record after this side asked for a key update, that was the KeyUpdate. */
    private void wroteHandshake(SSLEngineResult r) {
        if (keyUpdateAsked && r.bytesProduced() > 0) {
            keyUpdateAsked = false;
            KEY_UPDATES.incrementAndGet();
        }
    }

    private static boolean remaining(ByteBuffer[] srcs) {
        for (ByteBuffer b : srcs) {
            if (b.hasRemaining()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean flush() throws IOException {
        outLock.lock();
        try {
            return flushLocked();
        } finally {
            outLock.unlock();
        }
    }

    private boolean flushLocked() throws IOException {
        if (netOut.position() == 0) {
            return true;
        }
        netOut.flip();
        try {
            socket.write(netOut);
        } finally {
            netOut.compact();
        }
        return netOut.position() == 0;
    }

    private void answerIfWanted() {
        if (wrapWanted) {
            answerIfFree();
        }
    }

    /** Wraps what the engine has to say by itself (a KeyUpdate's answer) unless another thread is writing. */
    private void answerIfFree() {
        if (!outLock.tryLock()) {
            return; // its holder looks at wrapWanted after releasing
        }
        try {
            wrapWanted = false;
            while (engine.getHandshakeStatus() == HandshakeStatus.NEED_WRAP && netOut.remaining() >= packet) {
                SSLEngineResult r = engine.wrap(EMPTY, netOut);
                if (r.bytesProduced() == 0) {
                    break;
                }
                wroteHandshake(r);
            }
            flushLocked();
        } catch (IOException e) {
            // the failure reaches the next read or write of the connection
        } finally {
            outLock.unlock();
        }
    }

    // ------------------------------------------------------------------ close

    /**
     * Sends close_notify (best effort, within a short wait) and ends the socket's output. Bytes
     * still held back go first.
     */
    @Override
    public void shutdownOutput() throws IOException {
        outLock.lock();
        try {
            engine.closeOutbound();
            long deadline = System.nanoTime() + 200_000_000L;
            while (!engine.isOutboundDone() && netOut.remaining() >= packet) {
                if (engine.wrap(EMPTY, netOut).bytesProduced() == 0) {
                    break;
                }
            }
            try (Selector writes = Selector.open()) {
                socket.register(writes, SelectionKey.OP_WRITE);
                while (!flushLocked() && System.nanoTime() - deadline < 0) {
                    writes.select(5);
                    writes.selectedKeys().clear();
                }
            }
        } finally {
            outLock.unlock();
        }
        socket.shutdownOutput();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
