package dev.verbatim.transport.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

import static dev.verbatim.transport.internal.AreaDescriptor.HEADER;
import static dev.verbatim.transport.internal.AreaDescriptor.TYPE_NEXT;
import static dev.verbatim.transport.internal.AreaDescriptor.areaBase;
import static dev.verbatim.transport.internal.AreaDescriptor.headerWord;
import static dev.verbatim.transport.internal.AreaDescriptor.recordSpan;

/**
 * Writes records into a receive window with the publication protocol of {@link AreaDescriptor}:
 * payload first, then the next header slot zeroed, then the header with a release store. The shm
 * sender uses it on the peer's mapped window; the tcp reader uses it on its own window. Not
 * thread-safe: one writing thread.
 *
 * <p>Zeroing ahead. A store that precedes the header store delays it until the writer owns the
 * store's cache line; for small records the next header slot often lies in a line the writer does
 * not own yet (the reader last read it), so zeroing it just before publishing put a second
 * ownership transfer on the latency of every fourth 16-byte message. So after the header store of
 * a record of at most {@value #SMALL} bytes, off the latency path, the writer keeps the rest of the
 * next slot's line and the following line zero, and before publishing it stores zero at the next
 * slot only when that slot is not known to be zero. (After a larger record the next slot is in a
 * line the next payload will fill anyway; zeroing ahead there only takes the line the reader is
 * waiting on away from it, once more per message: it slowed a stream of 1 KiB messages several
 * times.) Known zero means: zeroed by this writer in this use of the area and, since then, not in
 * any range handed out for writing ({@link #payloadOffset(long)}: a claim may have written more than
 * it committed, or been aborted).
 */
public final class AreaWriter {
    static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    /** Records (header and payload) up to this many bytes are followed by zeroing ahead. */
    static final int SMALL = 64;

    private final MemorySegment window;
    /** Where the writer is; moved only by this writer. */
    public final Placement placement;
    /** Where the placement's area starts in the window. */
    private long areaStart;
    /** Offsets in the area: [cleanFrom, cleanTo) is known zero, except below {@link #dirtyTo}. */
    private long cleanFrom;
    private long cleanTo;
    /** Beyond every range handed out for writing in this use of the area (an offset in the area, 8-aligned). */
    private long dirtyTo;

    public AreaWriter(MemorySegment window, int areaCount, int areaSize) {
        this.window = window;
        this.placement = new Placement(areaCount, areaSize);
        this.areaStart = areaBase(0, areaSize);
    }

    public MemorySegment window() {
        return window;
    }

    /**
     * The offset in the window where the payload of the next record starts; the caller may write
     * {@code writable} bytes from there (the record published may be shorter, or none).
     */
    public long payloadOffset(long writable) {
        long from = placement.position() + HEADER;
        dirtyTo = Math.max(dirtyTo, (from + writable + 7) & ~7L); // whole words: a partly written one is dirty
        return areaStart + from;
    }

    /** Publishes the record of {@code payload} bytes whose payload was written at {@link #payloadOffset}. */
    public void publishRelease(int type, long payload) {
        long position = placement.position();
        long next = position + recordSpan(payload);
        if (next < Math.max(cleanFrom, dirtyTo) || next + 8 > cleanTo) {
            window.set(ValueLayout.JAVA_LONG, areaStart + next, 0L);
        }
        LONG.setRelease(window, areaStart + position, headerWord(type, payload));
        placement.advance(payload);
        if (next - position <= SMALL) {
            zeroAhead(next);
        }
    }

    /** After publishing up to {@code next}: zeroes the rest of the next slot's line and one more line. */
    private void zeroAhead(long next) {
        long from = Math.max(next + 8, dirtyTo);
        long to = Math.min(placement.areaSize, ((next + 8 + 63) & ~63L) + 64);
        if (from >= to) {
            return;
        }
        long start = cleanFrom <= from && from <= cleanTo ? cleanTo : from; // extend what is still clean
        if (start < to) {
            zero(areaStart + start, to - start);
        }
        cleanFrom = from;
        cleanTo = Math.max(to, start);
    }

    /** Zeroes {@code n} bytes at {@code at} of the window: a few lines by words (no slice made), more as a slice. */
    private void zero(long at, long n) {
        if (n > 256 || ((at | n) & 7) != 0) {
            window.asSlice(at, n).fill((byte) 0);
            return;
        }
        for (long end = at + n; at < end; at += 8) {
            window.set(ValueLayout.JAVA_LONG, at, 0L);
        }
    }

    /**
     * Zeroes up to {@code bytes} of the area beyond the line of the next record's header slot (that line, which
     * the receiver may be spinning on, is left alone), {@link #WARM_CHUNK} bytes at a time until {@code stop}
     * says so, so that a next message of about the size of the last is written into lines this side owns
     * already. What it zeroed is known zero afterwards (the next slot need not be zeroed again).
     */
    public void warm(long bytes, java.util.function.BooleanSupplier stop) {
        long next = placement.position();
        long from = (next + 8 + 63) & ~63L;
        long end = Math.min(placement.areaSize - AreaDescriptor.TAIL_RESERVE, from + bytes) & ~7L;
        long to = from;
        while (to < end) {
            long n = Math.min(WARM_CHUNK, end - to);
            window.asSlice(areaStart + to, n).fill((byte) 0);
            to += n;
            if (stop.getAsBoolean()) {
                break;
            }
        }
        if (to <= from) {
            return;
        }
        if (dirtyTo <= to) {
            dirtyTo = Math.min(dirtyTo, from);
        }
        cleanFrom = from;
        cleanTo = to;
    }

    /** {@link #warm} zeroes this much between looks at whether to stop. */
    static final int WARM_CHUNK = 1024;

    /** Ends the current area with a {@code NEXT} record and continues in {@code next}. */
    public void nextRelease(int next) {
        long at = areaStart + placement.position();
        long nextStart = areaBase(next, placement.areaSize);
        window.set(ValueLayout.JAVA_LONG, nextStart, 0L);
        window.set(ValueLayout.JAVA_LONG, at + HEADER, next & 0xFFFF_FFFFL);
        LONG.setRelease(window, at, headerWord(TYPE_NEXT, 8));
        placement.moveTo(next);
        areaStart = nextStart;
        cleanFrom = 0;
        cleanTo = 8;
        dirtyTo = 0;
    }
}
