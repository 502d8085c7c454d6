package dev.verbatim.transport.internal;

import dev.verbatim.transport.Delivery;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLong;

import static dev.verbatim.transport.internal.AreaDescriptor.HEADER;
import static dev.verbatim.transport.internal.AreaDescriptor.TAIL_RESERVE;
import static dev.verbatim.transport.internal.AreaDescriptor.TYPE_DATA;
import static dev.verbatim.transport.internal.AreaDescriptor.TYPE_NEXT;
import static dev.verbatim.transport.internal.AreaDescriptor.TYPE_REGION;
import static dev.verbatim.transport.internal.AreaDescriptor.TYPE_SKIP;
import static dev.verbatim.transport.internal.AreaDescriptor.areaBase;
import static dev.verbatim.transport.internal.AreaDescriptor.frameLength;
import static dev.verbatim.transport.internal.AreaDescriptor.recordSpan;
import static dev.verbatim.transport.internal.AreaDescriptor.reservedBits;
import static dev.verbatim.transport.internal.AreaDescriptor.type;

/**
 * Reads records from this side's receive window in order, checking every header against the
 * window's bounds (the writer is untrusted), and keeps the books that decide when an area can be
 * given back to the sender.
 *
 * <p>Each area has a pin count with a {@link #SEALED} bit: a retained delivery pins the areas its
 * payload and regions lie in; the reader seals an area when it follows the {@code NEXT} record out
 * of it; the area is freed (handed to {@link Freed}) when it is sealed and unpinned, by whichever
 * thread gets there last. The area being read is never sealed, so the flyweight delivery of a
 * callback needs no pin. Reading is for one thread; pins may be dropped on any thread.
 */
public final class AreaReader {
    /** Told when an area is free again (every delivery in it released, the sender moved on). */
    public interface Freed {
        void areaFreed(int area);
    }

    static final int SEALED = 1 << 30;
    static final int MAX_REGIONS = 256;
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle PINS = MethodHandles.arrayElementVarHandle(int[].class);

    /** What {@link #nextAcquire} found. */
    public static final int NONE = 0;
    public static final int MESSAGE = 1;

    private final MemorySegment window;
    /** The window read-only, made once: a delivery's slices are cut from it (one object per slice). */
    private final MemorySegment readOnly;
    private final int areaCount;
    private final int areaSize;
    private final Freed freed;
    private final int[] pins;

    // reader thread only
    private int area;
    /** Where {@link #area} starts in the window. */
    private long areaStart;
    private long position;
    /** The header word {@link #hasDataAcquire} saw at the position, or 0: {@link #nextAcquire} need not load it again. */
    private long peeked;
    private int regionCount;
    private final int[] regionArea = new int[MAX_REGIONS];
    private final long[] regionOffset = new long[MAX_REGIONS];
    private final int[] regionLength = new int[MAX_REGIONS];
    private final Flyweight flyweight = new Flyweight();

    // any thread
    /**
     * Set by {@link #close()} when the connection closes, before its window is unmapped: held deliveries refuse
     * access from then on, even where the unmapping happens a moment later on another thread (tcp's
     * {@code ArenaCloser}), so that "gone after {@code close()} returns" does not depend on that thread.
     */
    private volatile boolean closed;
    private final AtomicLong heldMessages = new AtomicLong();
    private final AtomicLong heldBytes = new AtomicLong();
    // reader thread writes, stats() reads (a racy snapshot is fine for counters)
    long messages;
    long bytes;

    public AreaReader(MemorySegment window, int areaCount, int areaSize, Freed freed) {
        this.window = window;
        this.readOnly = window.asReadOnly();
        this.areaCount = areaCount;
        this.areaSize = areaSize;
        this.freed = freed;
        this.pins = new int[areaCount];
        this.areaStart = areaBase(0, areaSize);
    }

    /**
     * Reads up to the next message. Returns {@link #MESSAGE} with {@link #current()} describing it
     * (valid until the next call), or {@link #NONE} if nothing was published yet.
     */
    public int nextAcquire() throws ProtocolViolation {
        flyweight.invalidate();
        long at = areaStart + position;
        long word = peeked;
        if (word == 0) {
            word = (long) LONG.getAcquire(window, at);
            if (word == 0) {
                return NONE;
            }
        }
        peeked = 0;
        if ((word >>> 32) == TYPE_DATA) { // the common case, one message: no reserved bits, a frame that fits
            long payload = (word & 0xFFFF_FFFFL) - HEADER;
            long span = recordSpan(payload);
            if (payload >= 0 && position + span + TAIL_RESERVE <= areaSize) {
                position += span;
                flyweight.set(area, at + HEADER, (int) payload);
                messages++;
                bytes += payload;
                return MESSAGE;
            }
        }
        return nextRecords(word);
    }

    /** {@link #nextAcquire} for every other case, from the header {@code word} already read at the position. */
    private int nextRecords(long word) throws ProtocolViolation {
        while (true) {
            long base = areaStart;
            if (word == 0) {
                word = (long) LONG.getAcquire(window, base + position);
                if (word == 0) {
                    return NONE;
                }
            }
            int type = AreaDescriptor.type(word);
            long frame = frameLength(word) & 0xFFFF_FFFFL;
            if (reservedBits(word) != 0 || frame < HEADER) {
                throw violation("a malformed record header 0x" + Long.toHexString(word));
            }
            long payload = frame - HEADER;
            long span = recordSpan(payload);
            switch (type) {
                case TYPE_DATA, TYPE_REGION, TYPE_SKIP -> {
                    if (position + span + TAIL_RESERVE > areaSize) {
                        throw violation("a record of " + payload + " bytes that overruns the area");
                    }
                    long at = base + position + HEADER;
                    position += span;
                    word = 0;
                    if (type == TYPE_SKIP) {
                        continue;
                    }
                    if (type == TYPE_REGION) {
                        if (regionCount == MAX_REGIONS) {
                            throw violation("more than " + MAX_REGIONS + " regions ahead of one message");
                        }
                        pin(area);
                        regionArea[regionCount] = area;
                        regionOffset[regionCount] = at;
                        regionLength[regionCount] = (int) payload;
                        regionCount++;
                        continue;
                    }
                    flyweight.set(area, at, (int) payload);
                    messages++;
                    bytes += payload;
                    return MESSAGE;
                }
                case TYPE_NEXT -> {
                    if (payload != 8 || position + span > areaSize) {
                        throw violation("a malformed NEXT record");
                    }
                    if (position == 0) { // a sender moves on only for a record that did not fit: never from an empty area
                        throw violation("a NEXT record at the start of an area");
                    }
                    long target = window.get(ValueLayout.JAVA_LONG, base + position + HEADER);
                    if (target < 0 || target >= areaCount || target == area) {
                        throw violation("a NEXT record to area " + target + " of " + areaCount);
                    }
                    int next = (int) target;
                    if ((int) PINS.getVolatile(pins, next) != 0) {
                        throw violation("a NEXT record into area " + next + ", which is still in use");
                    }
                    int left = area;
                    area = next;
                    areaStart = areaBase(next, areaSize);
                    position = 0;
                    word = 0;
                    seal(left);
                }
                default -> throw violation("an unknown record type " + type);
            }
        }
    }

    /**
     * Whether a record seems to wait at the reader's position, for another thread than the reader's: no state
     * changes, and a racy look (a hint, which may be stale).
     */
    public boolean seemsToHaveData() {
        return (long) LONG.getAcquire(window, areaStart + position) != 0;
    }

    /**
     * Whether a record is published at the reader's position (a cheap peek, no checks). A word seen
     * is kept for the next {@link #nextAcquire}: a published header never changes while the reader
     * stays at its position. Reader thread only.
     */
    public boolean hasDataAcquire() {
        long word = (long) LONG.getAcquire(window, areaStart + position);
        peeked = word;
        return word != 0;
    }

    /** The message {@link #nextAcquire} found, as the reused flyweight of a callback. */
    public Flyweight current() {
        return flyweight;
    }

    /** The message {@link #nextAcquire} found, retained (pinned until released). */
    public Delivery retainCurrent() {
        return flyweight.retain();
    }

    /** Called after a callback returns: drops what a non-retained flyweight held, invalidates it. */
    public void afterCallback() {
        flyweight.invalidate();
    }

    /** Whether the area being read is {@code area} (the writer may not take it back yet). */
    public int currentArea() {
        return area;
    }

    /**
     * The connection is closing: every held delivery refuses access from now on (any thread; called before the
     * window is released). Idempotent.
     */
    public void close() {
        closed = true;
    }

    public long heldMessages() {
        return heldMessages.get();
    }

    public long heldBytes() {
        return heldBytes.get();
    }

    /** Areas pinned by held deliveries. */
    public int heldAreas() {
        int n = 0;
        for (int i = 0; i < areaCount; i++) {
            if (((int) PINS.getVolatile(pins, i) & ~SEALED) != 0) {
                n++;
            }
        }
        return n;
    }

    /** Whether the area is neither pinned nor sealed-but-unfreed (its books are clear). */
    public boolean isClear(int area) {
        return (int) PINS.getVolatile(pins, area) == 0;
    }

    private ProtocolViolation violation(String what) {
        return new ProtocolViolation("the peer wrote " + what + " at area " + area + " offset " + position);
    }

    private void pin(int a) {
        PINS.getAndAdd(pins, a, 1);
    }

    private void unpin(int a) {
        int before = (int) PINS.getAndAdd(pins, a, -1);
        if (before == SEALED + 1) {
            free(a);
        }
    }

    private void seal(int a) {
        int before = (int) PINS.getAndAdd(pins, a, SEALED);
        if (before == 0) {
            free(a);
        }
    }

    private void free(int a) {
        PINS.setVolatile(pins, a, 0);
        freed.areaFreed(a);
    }

    // ------------------------------------------------------------------ deliveries

    /** The delivery handed to a callback: reused, valid until the callback returns. */
    public final class Flyweight implements Delivery {
        private boolean valid;
        private int payloadArea;
        private long payloadOffset;
        private int payloadLength;
        private Held retained;

        void set(int a, long offset, int length) {
            valid = true;
            payloadArea = a;
            payloadOffset = offset;
            payloadLength = length;
            retained = null;
        }

        void invalidate() {
            if (valid) {
                valid = false;
                if (retained == null) {
                    for (int i = 0; i < regionCount; i++) {
                        unpin(regionArea[i]);
                    }
                }
                regionCount = 0;
                retained = null;
            }
        }

        private void check() {
            if (!valid) {
                throw new IllegalStateException("a delivery handed to a callback is valid only during the callback; "
                        + "retain() it to keep it");
            }
        }

        @Override
        public MemorySegment payload() {
            check();
            return readOnly.asSlice(payloadOffset, payloadLength);
        }

        @Override
        public long length() {
            check();
            return payloadLength;
        }

        @Override
        public int regionCount() {
            check();
            return regionCount;
        }

        @Override
        public MemorySegment region(int index) {
            check();
            if (index < 0 || index >= regionCount) {
                throw new IndexOutOfBoundsException("region " + index + " of " + regionCount);
            }
            return readOnly.asSlice(regionOffset[index], regionLength[index]);
        }

        @Override
        public Delivery retain() {
            check();
            if (retained == null) {
                retained = new Held(this);
            } else {
                retained.check(); // retain, release, retain: the second retain must not hand out a dead one
            }
            return retained;
        }

        @Override
        public void release() {
            check();
            throw new IllegalStateException("a callback's delivery is released when the callback returns; "
                    + "release() the delivery retain() returned");
        }
    }

    /** A delivery kept past its callback: pins its areas until released. Thread-safe. */
    final class Held implements Delivery {
        private static final VarHandle RELEASED;

        static {
            try {
                RELEASED = MethodHandles.lookup().findVarHandle(Held.class, "released", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final MemorySegment payload;
        private final MemorySegment[] regions;
        private final int[] pinned;
        private final long bytesHeld;
        @SuppressWarnings("unused") // through RELEASED
        private volatile int released;

        Held(Flyweight f) {
            int n = regionCount;
            payload = readOnly.asSlice(f.payloadOffset, f.payloadLength);
            pinned = new int[n + 1];
            pinned[0] = f.payloadArea;
            long total = f.payloadLength;
            if (n == 0) {
                regions = NO_REGIONS;
            } else {
                regions = new MemorySegment[n];
                for (int i = 0; i < n; i++) {
                    regions[i] = readOnly.asSlice(regionOffset[i], regionLength[i]);
                    pinned[i + 1] = regionArea[i];
                    total += regionLength[i];
                }
            }
            pin(f.payloadArea); // the region pins move from the flyweight to this delivery
            bytesHeld = total;
            heldMessages.incrementAndGet();
            heldBytes.addAndGet(total);
        }

        private void check() {
            if (released != 0) {
                throw new IllegalStateException("the delivery was released");
            }
            if (closed || !window.scope().isAlive()) {
                throw new IllegalStateException("the connection was closed: its received messages are gone");
            }
        }

        @Override
        public MemorySegment payload() {
            check();
            return payload;
        }

        @Override
        public long length() {
            check();
            return payload.byteSize();
        }

        @Override
        public int regionCount() {
            check();
            return regions.length;
        }

        @Override
        public MemorySegment region(int index) {
            check();
            if (index < 0 || index >= regions.length) {
                throw new IndexOutOfBoundsException("region " + index + " of " + regions.length);
            }
            return regions[index];
        }

        @Override
        public Delivery retain() {
            check();
            return this;
        }

        @Override
        public void release() {
            if (!RELEASED.compareAndSet(this, 0, 1)) {
                throw new IllegalStateException("the delivery was already released");
            }
            heldMessages.decrementAndGet();
            heldBytes.addAndGet(-bytesHeld);
            for (int a : pinned) {
                unpin(a);
            }
        }
    }

    private static final MemorySegment[] NO_REGIONS = new MemorySegment[0];
}
