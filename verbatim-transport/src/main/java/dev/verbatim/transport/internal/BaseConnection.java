package dev.verbatim.transport.internal;

import dev.verbatim.transport.Claim;
import dev.verbatim.transport.Connection;
import dev.verbatim.transport.ConnectionOptions;
import dev.verbatim.transport.ConnectionStats;
import dev.verbatim.transport.Delivery;
import dev.verbatim.transport.DeliveryHandler;
import dev.verbatim.transport.TransportException;
import dev.verbatim.transport.TransportException.Reason;
import dev.verbatim.transport.spin.SpinPause;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Objects;

import static dev.verbatim.transport.internal.AreaDescriptor.TYPE_DATA;
import static dev.verbatim.transport.internal.AreaDescriptor.TYPE_REGION;

/**
 * What both transports share: the two API levels on top of four primitives (reserve space, the
 * segment to write, publish, read the next record), bounded waiting (spin, then park), the mapping of
 * failures to exceptions, and counters; the claim flyweight is {@link ClaimFlyweight}, whether and why the
 * connection ended is {@link ConnectionEnd}'s. Fields are grouped by the thread that writes them.
 */
public abstract class BaseConnection implements Connection {
    /** The longest a waiting sender sleeps before it looks again (a freed area wakes it sooner). */
    private static final long PARK_SLICE_NANOS = 100_000_000L;
    /**
     * The longest a waiting receiver sleeps before it looks again. Everything that ends a wait wakes it: a message
     * (the sender wakes a parked receiver), {@code close()}, the peer's end (the watchdog on shm, the socket on tcp);
     * the slice only bounds the cost of a wake-up that got lost. Long, because every wake-up costs CPU: 70-90 µs of
     * thread CPU time per timed park on this project's virtual machine, so 0.1 s slices kept an idle receiver at
     * ~0.1% of a core.
     */
    private static final long RECEIVE_PARK_SLICE_NANOS = 1_000_000_000L;
    /** The last {@link #take} found nothing before its deadline, and nothing was received since (receiving thread only). */
    private boolean receiverIdle;
    /** A receiver waiting in {@link #take} parks at once, never spins ({@link #receiveWithoutSpin}). */
    private volatile boolean receiveWithoutSpin;
    /** {@link #wakeup()} was called and no {@link #take} has returned for it yet. */
    private volatile boolean wakeupPending;

    protected final ConnectionOptions options;
    protected final String description;
    protected final AreaReader reader;

    // any thread
    /** Whether the connection ended and why: the per-message paths read only its {@link ConnectionEnd#ended()}. */
    private final ConnectionEnd end;
    /** Parks of the sending and of the receiving thread: one writer each. */
    protected volatile long sendParks;
    protected volatile long receiveParks;

    // sending thread (the claim flyweight counts what it commits here)
    private final ClaimFlyweight claim = new ClaimFlyweight(this);
    int pendingRegions;
    long messagesSent;
    long bytesSent;
    long regionsSent;
    private long backPressured;

    protected BaseConnection(ConnectionOptions options, String description, AreaReader reader) {
        this.options = options;
        this.description = description;
        this.reader = reader;
        this.end = new ConnectionEnd(description);
    }

    // ------------------------------------------------------------------ what a transport provides

    /** Makes room for a record of {@code payload} bytes at the peer; false when back-pressured. */
    protected abstract boolean tryReserve(int payload);

    /**
     * The memory the payload of the reserved record of {@code length} bytes is written into (the
     * peer's window on shm, the send buffer on tcp); the payload starts at {@link #reservedOffset}.
     */
    protected abstract MemorySegment reservedWindow(int length);

    /**
     * Where in {@link #reservedWindow} the payload of the reserved record starts; the caller may
     * write {@code length} bytes from there, and publish fewer or nothing.
     */
    protected abstract long reservedOffset(int length);

    /** The payload of the reserved record, as a slice. */
    protected final MemorySegment reservedSegment(int length) {
        return reservedWindow(length).asSlice(reservedOffset(length), length);
    }

    /** Publishes the reserved record. */
    protected abstract void publish(int type, int length);

    /** Reads the next record of this side's window: {@link AreaReader#nextAcquire()} plus what the transport needs. */
    protected abstract int readNext() throws ProtocolViolation;

    /**
     * Whether a record may be waiting: a cheap look that lets an idle poll return without the full
     * read. shm looks at the header word at the reader's position; a transport that cannot tell
     * without reading (tcp) says true.
     */
    protected boolean mayHaveRecord() {
        return true;
    }

    /** A record is published in the receive window and not yet read (the receiving thread; no system call). */
    @Override
    public boolean hasArrived() {
        try {
            return !isClosed() && reader.hasDataAcquire();
        } catch (IllegalStateException e) {
            return false; // the window went with the connection
        }
    }

    /** Sleeps up to {@code nanos} unless a record is already readable. */
    protected abstract void parkReceiver(long nanos);

    /** Wakes this side's receiver if it sleeps in {@link #parkReceiver} (it then sees {@link #wakeupPending()}). */
    protected abstract void wakeReceiver();

    /** Whether {@link #wakeup()} asked a waiting receiver to return: {@link #parkReceiver} does not sleep then. */
    protected final boolean wakeupPending() {
        return wakeupPending;
    }

    @Override
    public void wakeup() {
        wakeupPending = true;
        try {
            wakeReceiver();
        } catch (IllegalStateException closedConcurrently) {
            // nobody can be waiting on a closed connection
        }
    }

    /** Sleeps up to {@code nanos} unless the peer already freed an area. */
    protected abstract void parkSender(long nanos);

    /** Releases the transport's resources; called once, by {@link #close()}. */
    protected abstract void closeTransport(boolean peerStillThere);

    /** Wakes this side's threads waiting in {@link #parkReceiver} / {@link #parkSender}. */
    protected abstract void wakeLocalWaiters();

    /** The peer's largest message. */
    @Override
    public abstract int maxMessageLength();

    // ------------------------------------------------------------------ state

    @Override
    public String description() {
        return description;
    }

    @Override
    public boolean isOpen() {
        return end.open();
    }

    /** The peer closed cleanly ({@code clean}) or vanished; wakes waiters so they see it. */
    public void peerEnded(boolean clean, String reason) {
        end.peerEnded(clean, reason);
        wakeLocalWaiters();
    }

    protected boolean isClosed() {
        return end.closed();
    }

    /** The protocol failed: the connection is closed; returns the exception that says why. */
    protected TransportException protocolFailed(ProtocolViolation v) {
        TransportException e = end.protocolFailed(v);
        close();
        return e;
    }

    final void checkSendable() {
        if (end.ended()) {
            end.throwIfUnsendable();
        }
    }

    @Override
    public final ConnectionOptions options() {
        return options;
    }

    // ------------------------------------------------------------------ send

    @Override
    public Claim tryClaim(int length) {
        boolean interrupted = Thread.currentThread().isInterrupted();
        checkLength(length);
        checkSendable();
        if (claim.open) {
            throw new IllegalStateException("a claim is already open on " + description + "; commit or abort it first");
        }
        try {
            if (!tryReserve(length)) {
                backPressured++;
                return null;
            }
            return claim.open(reservedWindow(length), reservedOffset(length), length, TYPE_DATA);
        } catch (IllegalStateException | InternalError e) {
            throw failed(e, interrupted);
        }
    }

    @Override
    public Claim claim(int length) {
        boolean interrupted = Thread.currentThread().isInterrupted();
        try {
            Claim c = tryClaim(length);
            if (c != null) {
                return c;
            }
            awaitSpace(length);
            return claim.open(reservedWindow(length), reservedOffset(length), length, TYPE_DATA);
        } catch (IllegalStateException | InternalError e) {
            throw failed(e, interrupted);
        }
    }

    private void awaitSpace(int length) {
        long start = System.nanoTime();
        long deadline = start + options.sendTimeout().toNanos();
        long pause = SpinPause.begin(start);
        for (int i = 1; ; i++) {
            if (tryReserve(length)) {
                return;
            }
            if ((i & 63) == 0) {
                checkSendable();
                long now = System.nanoTime();
                if (now - deadline >= 0) {
                    throw new TransportException(Reason.TIMEOUT, description + ": the receiver freed no space for "
                            + options.sendTimeout().toMillis() + " ms (it holds " + "its receive areas or is not reading)");
                }
                if (!options.spinOnly() && now - start > options.spinNanos()) {
                    parkSender(Math.min(deadline - now, PARK_SLICE_NANOS));
                    continue;
                }
                pause = SpinPause.pause(pause, now);
                continue;
            }
            Thread.onSpinWait();
        }
    }

    @Override
    public int writeRegion(MemorySegment src) {
        boolean interrupted = Thread.currentThread().isInterrupted();
        Objects.requireNonNull(src, "src");
        if (claim.open) {
            throw new IllegalStateException("a claim is open on " + description + "; commit or abort it first");
        }
        if (pendingRegions == AreaReader.MAX_REGIONS) {
            throw new IllegalStateException(AreaReader.MAX_REGIONS + " regions are already waiting for a message on "
                    + description);
        }
        checkLength(src.byteSize());
        int length = (int) src.byteSize();
        try {
            checkSendable();
            if (!tryReserve(length)) {
                backPressured++;
                awaitSpace(length);
            }
            writeRegionPayload(src, length);
        } catch (IllegalStateException | InternalError e) {
            throw failed(e, interrupted);
        }
        regionsSent++;
        bytesSent += length;
        return pendingRegions++;
    }

    /** Puts a reserved region's bytes at the peer: by default a copy into the reserved space and a publish. */
    protected void writeRegionPayload(MemorySegment src, int length) {
        MemorySegment.copy(src, 0, reservedSegment(length), 0, length);
        publish(TYPE_REGION, length);
    }

    /**
     * What a failure of a transport primitive means to the caller, as the exception to throw: a
     * {@link ProtocolViolation} fails the connection ({@link #protocolFailed}), an
     * {@link IllegalStateException} from memory unmapped by a concurrent close becomes
     * {@code CLOSED} ({@link ConnectionEnd#closedOr}), an {@link InternalError} from a truncated mapping fails the
     * connection ({@link #truncated}). The one mapping that every send, receive and wait path applies.
     */
    final RuntimeException failed(Throwable e) {
        return failed(e, true);
    }

    /**
     * {@link #failed(Throwable)} for a primitive that may have read or written a window that a concurrent close
     * unmapped, entered with the calling thread's interrupt flag {@code interruptedAtEntry}. The JVM's handshake that
     * closes a shared arena under a thread inside an access of it delivers the failure as an asynchronous exception
     * and, on the JDKs this project runs (JDK-8306324, fixed after JDK 25), leaves that thread's interrupt flag set:
     * nobody interrupted it, but its next interruptible operation (a channel read, a sleep) would fail. So a failure
     * from closed memory clears the flag unless it was set when the primitive began (a genuine interrupt that
     * arrives during such a primitive is lost with it; nothing in the transport waits interruptibly).
     */
    final RuntimeException failed(Throwable e, boolean interruptedAtEntry) {
        if (e instanceof ProtocolViolation v) {
            return protocolFailed(v);
        }
        if (e instanceof IllegalStateException s) {
            RuntimeException r = end.closedOr(s);
            if (r != s && !interruptedAtEntry) {
                Thread.interrupted(); // (closed under it: JDK-8306324, the close's handshake may have set it)
            }
            return r;
        }
        if (e instanceof InternalError i) {
            return truncated(i);
        }
        throw new AssertionError("not a transport failure", e);
    }

    /**
     * The JDK reports an access to a mapped file that another process truncated as an
     * {@link InternalError}: on shared memory only the peer can have done that. The JVM raises it
     * asynchronously, where the faulting thread next checks for pending exceptions (a method entry or
     * return, a loop), not always inside the method that touched the memory: so every public entry
     * point catches it around its whole body, not only around its own accesses.
     */
    private TransportException truncated(InternalError e) {
        return protocolFailed(new ProtocolViolation("the peer truncated the shared memory under the mapping ("
                + e.getMessage() + ")"));
    }

    @Override
    public void send(byte[] src, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, src.length);
        boolean interrupted = Thread.currentThread().isInterrupted();
        try {
            Claim c = claim(length);
            MemorySegment.copy(src, offset, c.segment(), ValueLayout.JAVA_BYTE, 0, length);
            c.commit();
        } catch (IllegalStateException | InternalError e) { // closed under the copy, or the peer truncated the window (see truncated)
            throw failed(e, interrupted);
        }
    }

    @Override
    public void send(MemorySegment src) {
        checkLength(src.byteSize()); // before the int cast below
        int length = (int) src.byteSize();
        boolean interrupted = Thread.currentThread().isInterrupted();
        try {
            Claim c = claim(length);
            MemorySegment.copy(src, 0, c.segment(), 0, length);
            c.commit();
        } catch (IllegalStateException | InternalError e) { // closed under the copy, or truncated (see truncated)
            throw failed(e, interrupted);
        }
    }

    private void checkLength(long length) {
        if (length >= 0 && length <= maxMessageLength()) {
            return;
        }
        if (length < 0) {
            throw new IllegalArgumentException("message length must not be negative: " + length);
        }
        if (length > maxMessageLength()) {
            throw new IllegalArgumentException("a message of " + length + " bytes exceeds the peer's maximum of "
                    + maxMessageLength() + " (its receive area size; raise ConnectionOptions.areaSize on the receiver)");
        }
    }

    // ------------------------------------------------------------------ receive

    private int next() {
        boolean interrupted = Thread.currentThread().isInterrupted();
        if (!end.ended()) {
            try {
                return readNext();
            } catch (ProtocolViolation | IllegalStateException | InternalError e) {
                throw failed(e, interrupted);
            }
        }
        return nextAfterEnd();
    }

    /** {@link #next()} once the connection ended: what the peer committed before it went is still delivered. */
    private int nextAfterEnd() {
        boolean interrupted = Thread.currentThread().isInterrupted();
        end.throwIfClosedOrFailed();
        int r;
        try {
            r = readNext();
            if (r == AreaReader.NONE && !end.peerOpen()) {
                r = readNext(); // what the peer committed before it closed or died is still delivered
                if (r == AreaReader.NONE) {
                    throw end.peerFailure();
                }
            }
        } catch (ProtocolViolation | IllegalStateException | InternalError e) {
            throw failed(e, interrupted);
        }
        return r;
    }

    /**
     * True when an idle poll can return at once: nothing was ended and nothing is published. The
     * polls look here first and read (in methods of their own) only when something may be there:
     * a receiver that spins calls poll far more often than a message comes, and the JIT compiles
     * the code of a call by how often each branch was taken, so reading and handling a message
     * kept inline with the spin would be compiled as a rare branch (calls not inlined, slices
     * allocated), slower each time a message does come.
     */
    private boolean idle() {
        if (end.ended()) {
            return false;
        }
        boolean interrupted = Thread.currentThread().isInterrupted();
        try {
            return !mayHaveRecord();
        } catch (IllegalStateException | InternalError e) {
            throw failed(e, interrupted);
        }
    }

    @Override
    public Delivery poll() {
        try {
            return idle() ? null : pollArrived();
        } catch (InternalError e) { // see truncated
            throw failed(e);
        }
    }

    private Delivery pollArrived() {
        if (next() != AreaReader.MESSAGE) {
            return null;
        }
        if (receiverIdle) {
            receiverIdle = false;
        }
        Delivery d = reader.retainCurrent();
        reader.afterCallback();
        return d;
    }

    @Override
    public int poll(DeliveryHandler handler, int limit) {
        Objects.requireNonNull(handler, "handler");
        try {
            return idle() ? 0 : pollArrived(handler, limit);
        } catch (InternalError e) { // see truncated (the handler's own reads of the delivery included)
            throw failed(e);
        }
    }

    private int pollArrived(DeliveryHandler handler, int limit) {
        int n = 0;
        while (n < limit) {
            int r;
            try {
                r = next();
            } catch (TransportException e) {
                if (n > 0 && e.reason() != Reason.PROTOCOL) {
                    return n;
                }
                throw e;
            }
            if (r != AreaReader.MESSAGE) {
                break;
            }
            if (receiverIdle) {
                receiverIdle = false;
            }
            DeliveryHandler.Action action;
            try {
                action = handler.onDelivery(reader.current());
            } finally {
                reader.afterCallback();
            }
            n++;
            if (action == DeliveryHandler.Action.STOP) {
                break;
            }
        }
        return n;
    }

    @Override
    public Delivery take(Duration timeout) {
        Delivery d = poll();
        if (d != null) {
            return d;
        }
        long start = System.nanoTime();
        long deadline = start + Math.max(0, timeout.toNanos());
        // a receiver spins for spinNanos after it last received, not at the start of every wait: once a wait
        // ended with nothing, the next one parks at once (a thread that takes with a timeout in a loop, such as
        // an RPC dispatcher, would otherwise spin spinNanos per timeout on an idle connection)
        // (a connection whose receiver never spins parks at once too: receiveWithoutSpin)
        boolean parkAtOnce = receiverIdle || receiveWithoutSpin;
        long spin = parkAtOnce ? 0 : options.spinNanos();
        long pause = SpinPause.begin(start); // (a spin yields once its CPU proves shared: SpinPause)
        for (int i = parkAtOnce ? 0 : 1; ; i++) {
            d = poll();
            if (d != null) {
                return d;
            }
            if ((i & 63) == 0) {
                if (wakeupPending) {
                    wakeupPending = false;
                    return null;
                }
                long now = System.nanoTime();
                if (now - deadline >= 0) {
                    receiverIdle = true;
                    return null;
                }
                if (!options.spinOnly() && now - start >= spin) {
                    boolean interrupted = Thread.currentThread().isInterrupted();
                    try {
                        parkReceiver(Math.min(deadline - now, RECEIVE_PARK_SLICE_NANOS));
                    } catch (IllegalStateException | InternalError e) {
                        throw failed(e, interrupted);
                    }
                    // past the spin: after one look, back to sleep (63 spin-waits per wake-up of an idle
                    // receiver cost ~0.1 ms of CPU on a virtual machine, where a pause may exit to the host)
                    i |= 63;
                    continue;
                }
                pause = SpinPause.pause(pause, now);
                continue;
            }
            Thread.onSpinWait();
        }
    }

    @Override
    public void receiveWithoutSpin() {
        receiveWithoutSpin = true;
    }

    @Override
    public byte[] receive(Duration timeout) {
        Delivery d = take(timeout);
        if (d == null) {
            return null;
        }
        boolean interrupted = Thread.currentThread().isInterrupted();
        try {
            return d.payload().toArray(ValueLayout.JAVA_BYTE);
        } catch (IllegalStateException | InternalError e) { // closed under the copy (see failed), or truncated
            throw failed(e, interrupted);
        } finally {
            d.release();
        }
    }

    // ------------------------------------------------------------------ life

    @Override
    public ConnectionStats stats() {
        return new ConnectionStats(messagesSent, bytesSent, reader.messages, reader.bytes, regionsSent,
                backPressured, sendParks + receiveParks, reader.heldMessages(), reader.heldBytes(), reader.heldAreas(),
                options.areaCount(), options.areaSize());
    }

    @Override
    public void close() {
        if (!end.close()) {
            return;
        }
        reader.close(); // held deliveries refuse access from here, whenever the window's memory goes
        wakeLocalWaiters();
        try {
            closeTransport(end.peerOpen());
        } finally {
            Runnable r = onClose;
            if (r != null) {
                r.run();
            }
        }
    }

    /** Run once when this connection is closed: a listener counts it out ({@link Acceptor}). Set before it is handed out. */
    private volatile Runnable onClose;

    void onClose(Runnable r) {
        onClose = r;
    }

    @Override
    public String toString() {
        return description;
    }
}
