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
 */
public final class AreaWriter {
    static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final MemorySegment window;
    /** Where the writer is; moved only by this writer. */
    public final Placement placement;
    /** Where the placement's area starts in the window. */
    private long areaStart;

    public AreaWriter(MemorySegment window, int areaCount, int areaSize) {
        this.window = window;
        this.placement = new Placement(areaCount, areaSize);
        this.areaStart = areaBase(0, areaSize);
    }

    public MemorySegment window() {
        return window;
    }

    /** The offset in the window where the payload of the next record starts. */
    public long payloadOffset() {
        return areaStart + placement.position() + HEADER;
    }

    /** Publishes the record of {@code payload} bytes whose payload was written at {@link #payloadOffset()}. */
    public void publishRelease(int type, long payload) {
        long at = areaStart + placement.position();
        window.set(ValueLayout.JAVA_LONG, at + recordSpan(payload), 0L);
        LONG.setRelease(window, at, headerWord(type, payload));
        placement.advance(payload);
    }

    /** Ends the current area with a {@code NEXT} record and continues in {@code next}. */
    public void nextRelease(int next) {
        long at = areaStart + placement.position();
        long nextStart = areaBase(next, placement.areaSize);
        window.set(ValueLayout.JAVA_LONG, nextStart, 0L);
        window.set(ValueLayout.JAVA_LONG, at + HEADER, next & 0xFFFF_FFFFL);
        LONG.setRelease(window, at, headerWord(TYPE_NEXT, 8));
        placement.moveTo(next);
        areaStart = nextStart;
    }
}
