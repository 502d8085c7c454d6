package dev.verbatim.transport.internal;

import dev.verbatim.buffer.Buffer;
import dev.verbatim.transport.ConnectionOptions;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

import static dev.verbatim.transport.internal.AreaDescriptor.RECEIVER_PARKED_OFFSET;
import static dev.verbatim.transport.internal.AreaDescriptor.SENDER_PARKED_OFFSET;
import static dev.verbatim.transport.internal.AreaDescriptor.TYPE_REGION;
import static dev.verbatim.transport.internal.AreaDescriptor.STATE_FREE;
import static dev.verbatim.transport.internal.AreaDescriptor.STATE_SENDER;
import static dev.verbatim.transport.internal.AreaDescriptor.areaStateOffset;

/**
 * A connection over shared memory. Each side maps its own receive window (which it created) and
 * the peer's (into which it writes messages directly); the files were unlinked at the handshake,
 * so nothing is left behind whatever happens to either process. No system call on the critical
 * path: a send is a copy and a release store, plus a futex wake only when the receiver sleeps.
 * The peer's liveness comes from the {@link ShmWatchdog}.
 */
public final class ShmConnection extends BaseConnection {
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    private final Buffer own;
    private final Buffer peer;
    private final MemorySegment ownWindow;
    private final MemorySegment peerWindow;
    private final AreaWriter writer;
    private final int peerMaxMessage;
    private final SocketChannel control;
    /** The peer only spins: a publish needs no fence and no look at its parked word. */
    private final boolean peerNeverParks;

    public ShmConnection(ConnectionOptions options, String description, Buffer own, Buffer peer,
                         int peerAreaCount, int peerAreaSize, SocketChannel control) throws IOException {
        this(options, description, own, own.segment(), peer, peerAreaCount, peerAreaSize, control);
    }

    private ShmConnection(ConnectionOptions options, String description, Buffer own, MemorySegment ownWindow,
                          Buffer peer, int peerAreaCount, int peerAreaSize, SocketChannel control) throws IOException {
        super(options, description, new AreaReader(ownWindow, options.areaCount(), options.areaSize(),
                area -> freed(ownWindow, area)));
        this.own = own;
        this.peer = peer;
        this.ownWindow = ownWindow;
        this.peerWindow = peer.segment();
        this.writer = new AreaWriter(peerWindow, peerAreaCount, peerAreaSize);
        this.peerMaxMessage = AreaDescriptor.maxPayload(peerAreaSize);
        this.control = control;
        this.peerNeverParks = peerWindow.get(ValueLayout.JAVA_INT, AreaDescriptor.RECEIVER_NEVER_PARKS_OFFSET) == 1;
        ShmWatchdog.instance().watch(control, this);
    }

    /** The receiver's side of flow control: the area is the sender's again; wake it if it waits. */
    private static void freed(MemorySegment window, int area) {
        try {
            INT.setRelease(window, areaStateOffset(area), STATE_FREE);
            VarHandle.fullFence();
            if ((int) INT.getVolatile(window, SENDER_PARKED_OFFSET) != 0
                    && INT.compareAndSet(window, SENDER_PARKED_OFFSET, 1, 0)) {
                Futex.wake(window, SENDER_PARKED_OFFSET, Integer.MAX_VALUE);
            }
        } catch (InternalError truncated) {
            // the peer truncated our window (from a delivery's release, say): the next receive fails the connection
        }
    }

    @Override
    public int maxMessageLength() {
        return peerMaxMessage;
    }

    // ------------------------------------------------------------------ send

    @Override
    protected boolean tryReserve(int payload) {
        Placement p = writer.placement;
        if (p.fits(payload)) {
            return true;
        }
        int free = takeFreeArea();
        if (free < 0) {
            return false;
        }
        writer.nextRelease(free);
        return true;
    }

    private int takeFreeArea() {
        Placement p = writer.placement;
        for (int i = 1; i < p.areaCount; i++) {
            int k = (p.area() + i) % p.areaCount;
            if ((int) INT.getAcquire(peerWindow, areaStateOffset(k)) == STATE_FREE) {
                INT.setRelease(peerWindow, areaStateOffset(k), STATE_SENDER);
                return k;
            }
        }
        return -1;
    }

    private boolean anyFreeArea() {
        Placement p = writer.placement;
        for (int k = 0; k < p.areaCount; k++) {
            if (k != p.area() && (int) INT.getAcquire(peerWindow, areaStateOffset(k)) == STATE_FREE) {
                return true;
            }
        }
        return false;
    }

    @Override
    protected MemorySegment reservedWindow(int length) {
        return peerWindow;
    }

    @Override
    protected long reservedOffset(int length) {
        return writer.payloadOffset(length);
    }

    /** Bytes published since the last message (its regions and itself): what {@link #publish} warms ahead for. */
    private long batchBytes;
    /** Messages received (a racy read of the reader's count) when the last large message was published. */
    private long receivedAtLastLarge;

    @Override
    protected void publish(int type, int length) {
        writer.publishRelease(type, length);
        if (type == TYPE_REGION) {
            // no wake-up check (a full fence and a look at the peer's parked word): the receiver acts on a region
            // only with the message that follows, whose publish wakes it; its bytes count towards that message's
            batchBytes += length;
            return;
        }
        if (!peerNeverParks) {
            VarHandle.fullFence();
            if ((int) INT.getVolatile(peerWindow, RECEIVER_PARKED_OFFSET) != 0
                    && INT.compareAndSet(peerWindow, RECEIVER_PARKED_OFFSET, 1, 0)) {
                Futex.wake(peerWindow, RECEIVER_PARKED_OFFSET, Integer.MAX_VALUE);
            }
        }
        long batch = batchBytes + length;
        batchBytes = 0;
        if (batch >= WARM_FROM) {
            warmAfter(batch);
        }
    }

    /** After a large message: warms ahead if this side received since its last large message (it is answered). */
    private void warmAfter(long batch) {
        long received = reader.messages;
        if (received != receivedAtLastLarge) {
            receivedAtLastLarge = received;
            writer.warm(Math.min(batch, WARM_MAX), reader::seemsToHaveData);
        }
    }

    /**
     * Warming ahead. A message of more than a line lands in lines of the peer's window that neither side has had in
     * cache since the sender last went round the window, and taking them for writing was most of what a large call
     * cost (an 8 KiB call's request took ~780 ns against ~160 for a small one, with the receiver not even reading the
     * bytes); a call passing a shared reference (~150-250 bytes) waited in the publish's fence for its 3-4 lines (from
     * 1 KiB only: 531-551 ns per forward in a probe of three shm bases, from 64 bytes: 471-481; the one-line null
     * call is unchanged). A sender that is answered (it received since its last large message: request and response) waits for the
     * answer after a message anyway; it spends that wait zeroing the lines where the next message of the same
     * size will go ({@link AreaWriter#warm}), a kilobyte at a time, and stops as soon as an answer arrives. A
     * streaming sender, never answered, does not warm: it would write every line twice.
     */
    static final int WARM_FROM = 64;
    /** The most a sender warms after one message. */
    static final int WARM_MAX = 16 * 1024;

    @Override
    protected void parkSender(long nanos) {
        INT.setVolatile(peerWindow, SENDER_PARKED_OFFSET, 1);
        VarHandle.fullFence();
        if (!anyFreeArea() && isOpen()) {
            sendParks++;
            Futex.await(peerWindow, SENDER_PARKED_OFFSET, 1, nanos);
        }
        INT.setVolatile(peerWindow, SENDER_PARKED_OFFSET, 0);
    }

    // ------------------------------------------------------------------ receive

    @Override
    protected int readNext() throws ProtocolViolation {
        return reader.nextAcquire();
    }

    @Override
    protected boolean mayHaveRecord() {
        return reader.hasDataAcquire();
    }

    @Override
    protected void parkReceiver(long nanos) {
        INT.setVolatile(ownWindow, RECEIVER_PARKED_OFFSET, 1);
        VarHandle.fullFence();
        if (!reader.hasDataAcquire() && isOpen() && !wakeupPending()) {
            receiveParks++;
            Futex.await(ownWindow, RECEIVER_PARKED_OFFSET, 1, nanos);
        }
        INT.setVolatile(ownWindow, RECEIVER_PARKED_OFFSET, 0);
    }

    @Override
    protected void wakeReceiver() {
        // after wakeupPending was set: a receiver that set the word later sees the flag before it sleeps
        INT.setVolatile(ownWindow, RECEIVER_PARKED_OFFSET, 0);
        Futex.wake(ownWindow, RECEIVER_PARKED_OFFSET, Integer.MAX_VALUE);
    }

    // ------------------------------------------------------------------ life

    @Override
    protected void wakeLocalWaiters() {
        wake(ownWindow, RECEIVER_PARKED_OFFSET);
        wake(peerWindow, SENDER_PARKED_OFFSET);
    }

    /** Clears a parked word and wakes its waiters; nothing to do on a window unmapped or truncated under us. */
    private static void wake(MemorySegment window, long offset) {
        try {
            INT.setVolatile(window, offset, 0);
            Futex.wake(window, offset, Integer.MAX_VALUE);
        } catch (IllegalStateException alreadyUnmapped) {
            // closed concurrently: nobody can be waiting on an unmapped window
        } catch (InternalError truncated) {
            // the peer truncated the file: a waiter on it wakes within its park slice (and finds the connection closed)
        }
    }

    @Override
    protected void closeTransport(boolean peerStillThere) {
        ShmWatchdog.instance().forget(control);
        try {
            if (peerStillThere) {
                try {
                    control.write(ByteBuffer.wrap(new byte[] {ShmWatchdog.CLOSE}));
                } catch (IOException ignored) {
                    // the peer is gone already; it learns nothing more from us
                }
            }
            control.close();
        } catch (IOException ignored) {
            // closing a socket we are done with
        }
        peer.release();
        own.release();
    }
}
