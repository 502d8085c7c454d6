package dev.verbatim.transport.internal;

import dev.verbatim.transport.ConnectionOptions;
import dev.verbatim.transport.TransportException;
import dev.verbatim.transport.TransportException.Reason;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.concurrent.locks.ReentrantLock;

import static dev.verbatim.transport.internal.FrameDescriptor.HEADER;
import static dev.verbatim.transport.internal.FrameDescriptor.NOTICE;

/**
 * A connection over TCP (Java NIO, non-blocking, {@code TCP_NODELAY}), plaintext or TLS: the bytes
 * go through a {@link TcpStream}. The sender mirrors the peer's receive window with a
 * {@link Placement} and spends the areas the peer announced free ({@link TcpAreas}); the receiver's
 * {@link TcpFrameReader} files frames into its own off-heap window (large payloads straight from
 * the stream into place) and records are read from it exactly as on {@code shm}. No
 * thread of its own: the receiving thread reads the socket when it polls; a sender short of areas
 * reads it too, for the notices. Two locks: {@code pumpLock} (reading the socket) is always taken
 * before {@code sendLock} (writing it), never the other way round. Which areas of either window are
 * free, what each side must tell the other of them, and the pages the window gives back when idle are
 * {@link TcpAreas}'. A {@link TcpHeartbeat} keeps the peer's liveness (heartbeats, silence) when
 * either side asked for it.
 */
public final class TcpConnection extends BaseConnection {
    private static final int NEXT_SPAN = TcpSendBuffer.NEXT_SPAN;
    private static final long WAIT_SLICE_MS = 10;

    private final TcpStream stream;
    /** The areas of both windows: our freed ones the next frame announces (piggy-back), the peer's it announced. */
    private final TcpAreas areas;
    private final TcpHeartbeat heartbeat;
    /** Frames written (under sendLock): the heartbeat sends only when this stands still. */
    private long framesOut;

    // sending (under sendLock for the socket; placement by the sending thread)
    private final ReentrantLock sendLock = new ReentrantLock();
    private final Placement placement;
    private final int peerMax;
    /** The frames written next, held ones included (under sendLock; placement by the sending thread). */
    private final TcpSendBuffer out;
    /** A NOTICE frame of its own ({@link #noticeNow}): never in the send buffer, which may hold frames. */
    private final MemorySegment noticeFrame = java.lang.foreign.Arena.ofAuto().allocate(HEADER, 8);

    // receiving (under pumpLock)
    private final ReentrantLock pumpLock = new ReentrantLock();
    private final TcpFrameReader frames;
    /** The socket's waits and readiness hook, on the process's one selector thread (no selector of its own). */
    private final TcpReadiness.Watch watch;

    /**
     * @param peerTimeoutMs what the peer announced in its handshake message: it declares this side
     *                      gone after that long without a frame (0: never)
     */
    public TcpConnection(ConnectionOptions options, String description, TcpStream stream,
                         int peerAreaCount, int peerAreaSize, int peerTimeoutMs) throws IOException {
        this(options, description, stream, new TcpAreas(options.areaCount(), options.areaSize(), peerAreaCount),
                new TcpConnection[1], peerAreaCount, peerAreaSize, peerTimeoutMs);
    }

    private TcpConnection(ConnectionOptions options, String description, TcpStream stream, TcpAreas areas,
                          TcpConnection[] self, int peerAreaCount, int peerAreaSize, int peerTimeoutMs)
            throws IOException {
        super(options, description, new AreaReader(areas.segment(), options.areaCount(), options.areaSize(), area -> {
            areas.freed(area);
            if (self[0] != null) {
                self[0].flushNotices(); // a frame going out carries it; else a NOTICE of its own
            }
        }));
        self[0] = this;
        this.stream = stream;
        this.areas = areas;
        this.placement = new Placement(peerAreaCount, peerAreaSize);
        this.peerMax = AreaDescriptor.maxPayload(peerAreaSize);
        this.out = new TcpSendBuffer(peerMax);
        this.frames = new TcpFrameReader(stream, new FrameEvents(), areas.segment(), options.areaCount(), options.areaSize());
        this.watch = TcpReadiness.watch(stream.socket());
        this.heartbeat = TcpHeartbeat.watch(new Liveness(), options.peerTimeout().toMillis(), peerTimeoutMs);
    }

    /** What the {@link TcpHeartbeat} does with this connection (on its own thread; never waits). */
    private final class Liveness implements TcpHeartbeat.Peer {
        @Override
        public long pumpAndCount() {
            pumpIfFree();
            return frames.bytesIn();
        }

        @Override
        public long framesOut() {
            return framesOut; // a racy read: a stale value only delays a heartbeat by one period
        }

        @Override
        public boolean sendHeartbeat() {
            if (isClosed() || !sendLock.tryLock()) {
                return false;
            }
            try {
                return noticeNow(true); // with any freed areas; a full socket is the send timeout's business
            } finally {
                sendLock.unlock();
            }
        }

        @Override
        public void silent(String reason) {
            peerEnded(false, reason);
            TcpClosing.sendCloseNow(stream, sendLock, reason); // a peer that is only stopped learns why when it wakes
        }

        @Override
        public boolean open() {
            return isOpen();
        }
    }

    @Override
    public int maxMessageLength() {
        return peerMax;
    }

    // ------------------------------------------------------------------ send

    @Override
    protected boolean tryReserve(int payload) {
        if (placement.fits(payload)) {
            return true;
        }
        int k = areas.takePeerFree(placement.area());
        if (k < 0) {
            pumpIfFree();
            k = areas.takePeerFree(placement.area());
            if (k < 0) {
                if (out.held() > 0) {
                    writeHeld(); // before waiting for the peer to free an area: it may wait for what is held
                }
                return false;
            }
        }
        if (out.pendingNext() >= 0) {
            writeFrames(-1, 0); // an aborted claim left a NEXT unsent: it goes first
        }
        out.owe(k);
        placement.moveTo(k);
        return true;
    }

    @Override
    protected MemorySegment reservedWindow(int length) {
        if (out.holdFull(length)) {
            writeHeld(); // enough held: it goes now, and this frame starts a new batch
        }
        if (out.tooSmall(length)) {
            sendLock.lock(); // (a flush or close may write what is held meanwhile)
            try {
                out.grow(length);
            } finally {
                sendLock.unlock();
            }
        }
        return out.window();
    }

    /** After the frames held: a NEXT frame if one is due, then the frame's header, then the payload. */
    @Override
    protected long reservedOffset(int length) {
        return out.payloadOffset();
    }

    /**
     * The message committed next waits in the send buffer and leaves with the next commit that is not held, or
     * at {@link #flush}: many callers' calls, or many answers, in one {@code write} (one system call, one
     * segment on the wire) instead of one each. The sending thread must see that one of those follows.
     */
    @Override
    public boolean holdsCommits() {
        return true;
    }

    @Override
    public void holdNextCommit() {
        out.holdNext();
    }

    /** Writes the frames held commits left in the send buffer, in one write; nothing if none. */
    @Override
    public void flush() {
        out.takeHoldNext(false);
        if (out.held() > 0) {
            writeHeld();
        }
    }

    /** Writes the frames held in the send buffer (the sending thread, or closing). */
    private void writeHeld() {
        sendLock.lock();
        try {
            if (out.held() > 0) {
                writeFully(out.window().asSlice(0, out.held()).asByteBuffer());
                out.written();
                framesOut++;
            }
        } finally {
            sendLock.unlock();
        }
    }

    @Override
    protected void publish(int type, int length) {
        writeFrames(type, length);
        placement.advance(length);
    }

    /**
     * Writes the pending NEXT frame (if any) and a frame of {@code type} whose payload of
     * {@code length} bytes is already in the send buffer ({@code type < 0}: only the NEXT), after the frames
     * held there, all in one write; or, if this commit is held ({@link #holdNextCommit}), leaves them held.
     */
    private void writeFrames(int type, int length) {
        boolean hold = out.takeHoldNext(type >= 0);
        sendLock.lock();
        long notices = 0;
        int next = out.pendingNext();
        try {
            notices = areas.takeNotices();
            int end = out.assemble(type, length, notices);
            if (hold) {
                out.hold(end); // leaves with the next write
            } else {
                writeFully(out.window().asSlice(0, end).asByteBuffer());
                out.written();
                framesOut++;
            }
        } catch (TransportException e) {
            restore(notices, next); // nothing of the frames went out (else the connection is closed)
            throw e;
        } finally {
            sendLock.unlock();
        }
        flushNotices();
    }

    private void restore(long notices, int next) {
        if (notices != 0) {
            areas.restoreNotices(notices);
        }
        if (next >= 0) {
            out.owe(next);
        }
    }

    @Override
    protected void writeRegionPayload(MemorySegment src, int length) {
        if (src.isNative() || src.heapBase().orElse(null) instanceof byte[]) {
            writeRegionDirect(src, length);
        } else { // a heap segment over another array type cannot be a ByteBuffer: copy it
            super.writeRegionPayload(src, length);
        }
    }

    private void writeRegionDirect(MemorySegment src, int length) {
        // one-sided write: the region goes from the caller's memory to the socket (gathering write),
        // without a copy into the send buffer
        if (out.held() > 0) {
            writeHeld(); // the frames held go ahead of the region (it belongs to the next message)
        }
        sendLock.lock();
        long notices = 0;
        int next = out.pendingNext();
        long written = 0;
        try {
            notices = areas.takeNotices();
            int start = out.prefixNext(notices);
            long carried = start == 0 ? 0 : notices;
            out.header(NEXT_SPAN, length, FrameDescriptor.REGION, carried);
            int padded = (length + 7) & ~7;
            ByteBuffer[] parts = {
                    out.window().asSlice(start, NEXT_SPAN + HEADER - start).asByteBuffer(),
                    src.asByteBuffer(),
                    ByteBuffer.allocate(padded - length)
            };
            long total = NEXT_SPAN + HEADER - start + padded;
            long deadline = System.nanoTime() + options.sendTimeout().toNanos();
            while (written < total || !stream.flush()) { // TLS: until its records are on the socket
                long n = stream.write(parts);
                written += n;
                if (n == 0) {
                    awaitWritable(deadline, written > 0);
                }
            }
            framesOut++;
        } catch (IOException e) {
            throw lost(e);
        } catch (TransportException e) {
            if (written == 0) {
                restore(notices, next);
            }
            throw e;
        } finally {
            sendLock.unlock();
        }
        flushNotices();
        placement.advance(length);
    }

    /**
     * Writes all of {@code b}, waiting up to the send timeout for the socket. A frame is all or
     * nothing on the stream: if the wait runs out with part of it written, the stream cannot go on
     * and the connection is closed; with nothing written the caller may try again later.
     */
    private void writeFully(ByteBuffer b) {
        try {
            int start = b.position();
            long deadline = 0;
            while (true) {
                stream.write(b);
                if (!b.hasRemaining() && stream.flush()) { // TLS: its records are on the socket
                    return;
                }
                if (deadline == 0) {
                    deadline = System.nanoTime() + options.sendTimeout().toNanos();
                }
                awaitWritable(deadline, b.position() > start);
            }
        } catch (IOException e) {
            throw lost(e);
        }
    }

    private void awaitWritable(long deadline, boolean partial) throws IOException {
        checkNotClosed();
        if (System.nanoTime() - deadline >= 0) {
            String what = description + ": the peer read nothing for " + options.sendTimeout().toMillis() + " ms (stalled)";
            if (partial) {
                peerEnded(false, "it stalled in the middle of a frame");
                close();
                throw new TransportException(Reason.TIMEOUT, what + "; a frame was half sent, so the connection was closed");
            }
            throw new TransportException(Reason.TIMEOUT, what);
        }
        pumpIfFree(); // read what the peer sends us meanwhile, so two writers never block each other
        watch.awaitWritable(WAIT_SLICE_MS * 1_000_000);
    }

    private void checkNotClosed() {
        if (isClosed()) {
            throw new TransportException(Reason.CLOSED, description + " is closed");
        }
    }

    private TransportException lost(IOException e) {
        if (isClosed()) {
            return new TransportException(Reason.CLOSED, description + " is closed");
        }
        peerEnded(false, "the connection failed: " + e.getMessage());
        return new TransportException(Reason.PEER_GONE, description + ": the connection failed: " + e.getMessage(), e);
    }

    /**
     * Sends the freed areas of our window as a NOTICE unless a frame being written carries them.
     * Never waits for a full socket: if the notice does not go out at once, its bits stay for the
     * next frame (or the next flush).
     */
    private void flushNotices() {
        // never from inside a frame this thread is writing (a pump while waiting to write)
        while (areas.noticesDue() && !isClosed() && !sendLock.isHeldByCurrentThread() && sendLock.tryLock()) {
            try {
                if (!noticeNow(false)) {
                    return;
                }
            } finally {
                sendLock.unlock();
            }
        }
    }

    /**
     * Under {@code sendLock}: writes a NOTICE carrying the freed areas (or none, when {@code evenEmpty}:
     * a heartbeat) if the socket takes it at once; false if nothing went out (the socket is full: the
     * bits ride on a later frame) or the connection failed (its next operation reports it).
     */
    private boolean noticeNow(boolean evenEmpty) {
        long m = areas.takeNotices();
        if (m == 0 && !evenEmpty) {
            return false;
        }
        try {
            noticeFrame.set(ValueLayout.JAVA_LONG, 0, (long) NOTICE << 32);
            noticeFrame.set(ValueLayout.JAVA_LONG, 8, m);
            ByteBuffer b = noticeFrame.asByteBuffer();
            stream.write(b);
            if (b.position() == 0) {
                restore(m, -1);
                return false;
            }
            if (b.hasRemaining() || !stream.flush()) {
                writeFully(b); // a started frame is finished (or the connection closes)
            }
            framesOut++;
            return true;
        } catch (IOException e) {
            lost(e);
            return false;
        } catch (TransportException e) {
            return false;
        }
    }

    /** Reads the socket on the calling thread unless another thread is reading it (notices, data for the receiver). */
    private void pumpIfFree() {
        if (pumpLock.tryLock()) {
            boolean deposited;
            try {
                deposited = pump();
            } catch (ProtocolViolation v) {
                throw protocolFailed(v);
            } finally {
                pumpLock.unlock();
            }
            if (deposited) {
                watch.readable(); // the receiving thread (or the readiness hook) may be waiting for what we just read
            }
        }
    }

    @Override
    protected void parkSender(long nanos) {
        sendParks++;
        watch.awaitCredits(Math.max(1_000_000, Math.min(nanos, 100_000_000)));
    }

    // ------------------------------------------------------------------ receive

    @Override
    protected int readNext() throws ProtocolViolation {
        int r = reader.nextAcquire();
        if (r != AreaReader.NONE) {
            return r;
        }
        if (deferred != null) {
            throw deferred;
        }
        pumpLock.lock();
        try {
            pump();
        } catch (ProtocolViolation v) {
            deferred = v; // the frames before the bad one are delivered first
        } finally {
            pumpLock.unlock();
        }
        flushNotices();
        r = reader.nextAcquire();
        if (r == AreaReader.NONE && deferred != null) {
            throw deferred;
        }
        return r;
    }

    private ProtocolViolation deferred;

    /** Reads the stream into the window unless the connection is closed; true if any record was published. */
    private boolean pump() throws ProtocolViolation {
        return !isClosed() && frames.pump();
    }

    /** What the {@link TcpFrameReader} learns that the connection's state decides. */
    private final class FrameEvents implements TcpFrameReader.Events {
        @Override
        public void notices(long notices) throws ProtocolViolation {
            areas.peerFreed(notices);
            watch.wakeSenders(); // a sender waiting for areas may be asleep
        }

        @Override
        public boolean mayEnter(int area) {
            return areas.mayEnter(area, reader);
        }

        @Override
        public void entered(int area) {
            areas.entered(area);
        }

        @Override
        public void ended(boolean clean, String why) {
            if (clean || !isClosed()) {
                peerEnded(clean, why);
            }
        }
    }

    @Override
    protected TransportException protocolFailed(ProtocolViolation v) {
        TcpClosing.sendClose(stream, sendLock, watch, "protocol violation: " + v.getMessage());
        return super.protocolFailed(v);
    }

    @Override
    protected void parkReceiver(long nanos) {
        if (reader.hasDataAcquire() || wakeupPending() || stream.hasBufferedInput()) {
            return;
        }
        receiveParks++;
        watch.awaitReceive(Math.max(1_000_000, nanos));
    }

    @Override
    protected void wakeReceiver() {
        watch.wakeReceiver(); // sticky: an unpark before the park makes it return at once
    }

    /**
     * Runs {@code r} once when a message may be readable: the socket became readable, another thread
     * pumped bytes into the window, or the connection ended (at once if one of them already holds). On
     * the process's readiness thread: {@code r} must only hand work on.
     */
    @Override
    public boolean notifyWhenReadable(Runnable r) {
        giveBackFreeAreas(); // the receiver goes idle: what a burst committed goes back
        watch.notifyWhenReadable(r);
        // (a look that changes nothing: this thread need not be the reader, and hasDataAcquire keeps what it saw for the
        // reader's next read, which another thread's look at another position made it take as a header it never had)
        if (reader.seemsToHaveData() || stream.hasBufferedInput() || !isOpen()) {
            watch.readable(); // what came before the hook was armed (the hook runs at most once)
        }
        return true;
    }

    /**
     * Gives back the pages of the free areas a burst filled ({@link TcpAreas#giveBackFree}), when the
     * receiver goes idle; under the pump lock, skipped if another thread pumps.
     */
    void giveBackFreeAreas() {
        if (!areas.anyTouched() || !LazyWindow.lazy() || !pumpLock.tryLock()) {
            return;
        }
        try {
            if (!isClosed()) {
                areas.giveBackFree(reader);
            }
        } finally {
            pumpLock.unlock();
        }
    }

    /** The resident bytes of this side's receive window (tests); -1 if it cannot tell. */
    public long residentWindowBytes() {
        return areas.residentBytes();
    }

    // ------------------------------------------------------------------ life

    @Override
    protected void wakeLocalWaiters() {
        watch.wakeAll();
    }

    @Override
    protected void closeTransport(boolean peerStillThere) {
        if (heartbeat != null) {
            heartbeat.stop();
        }
        if (peerStillThere) {
            if (out.held() > 0 && !sendLock.isHeldByCurrentThread()) {
                try {
                    writeHeld(); // what was committed goes before the close
                } catch (TransportException ignored) {
                    // the peer learns of the close from the end of the stream
                }
            }
            TcpClosing.sendClose(stream, sendLock, watch, "closed");
            TcpClosing.linger(stream, watch);
        }
        try {
            stream.close();
        } catch (IOException ignored) {
            // closing
        }
        watch.cancel(); // the selector lets go of the socket: its descriptor is freed
        pumpLock.lock();
        try {
            areas.release();
        } finally {
            pumpLock.unlock();
        }
        sendLock.lock();
        try {
            out.release();
        } finally {
            sendLock.unlock();
        }
    }
}
