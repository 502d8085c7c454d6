package dev.verbatim.transport.internal;

import static dev.verbatim.transport.internal.AreaDescriptor.TAIL_RESERVE;
import static dev.verbatim.transport.internal.AreaDescriptor.recordSpan;

/**
 * Where the next record goes in a receive window: the area the sender is filling and the offset in
 * it. Pure arithmetic, shared by the writer of shared memory and the tcp sender, which mirrors the
 * receiver's window without touching it. Not thread-safe (the sending thread owns it).
 */
public final class Placement {
    public final int areaCount;
    public final int areaSize;
    private int area;
    private long position;

    public Placement(int areaCount, int areaSize) {
        this.areaCount = areaCount;
        this.areaSize = areaSize;
    }

    public int area() {
        return area;
    }

    public long position() {
        return position;
    }

    /** Whether a record of {@code payload} bytes fits in the current area, keeping the tail reserve. */
    public boolean fits(long payload) {
        return position + recordSpan(payload) + TAIL_RESERVE <= areaSize;
    }

    /** Moves past a record of {@code payload} bytes. */
    public void advance(long payload) {
        position += recordSpan(payload);
    }

    /** Continues at the start of {@code next}. */
    public void moveTo(int next) {
        area = next;
        position = 0;
    }
}
