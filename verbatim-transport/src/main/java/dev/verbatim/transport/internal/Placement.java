package dev.verbatim.transport.internal;

import static dev.verbatim.transport.internal.AreaDescriptor.TAIL_RESERVE;
import static dev.verbatim.transport.internal.AreaDescriptor.recordSpan;

/**
 * Where the next record goes in a receive window: the area the sender is filling and the offset in
 * it. Pure arithmetic, shared by the writer of shared memory and the tcp sender, which mirrors the
 * receiver's window without touching it, and by the tcp receiver, which checks the sender's records
 * against its own copy. Not thread-safe (the sending thread owns it).
 *
 * <p>Keeping the window hot (shm). A sender moves through an area from its start, so a window used in
 * order touches every byte of it before it comes back to the first: {@code areaCount * areaSize}
 * bytes (16 MiB by default), far beyond a core's cache, and each large message landed in memory that
 * neither side had in cache (an 8 KiB call took ~150-250 ns longer over a 16 MiB window than over a
 * 128 KiB one). So the shm sender fills only the first {@link #HOT} bytes of an area
 * ({@link #fitsInUse}) and, past them, moves on to the free area with the lowest index if every other
 * area is free (the receiver keeps up: it read and released all it got): two areas alternate, a
 * working set of {@code 2 * HOT}. Otherwise it fills the area to its end ({@link #useWhole}) as
 * before, so a receiver that holds deliveries costs at most one area's unused tail, not one per area;
 * a record larger than the hot part goes at the start of an area. The receiver sees only ordinary
 * {@code NEXT} records. (The tcp sender fills whole areas: there a round trip costs microseconds of
 * system calls and the receive window is written by the receiver's own thread.)
 */
public final class Placement {
    /** The bytes of an area a sender fills while another area is free. */
    public static final int HOT = 128 * 1024;

    public final int areaCount;
    public final int areaSize;
    private int area;
    private long position;
    /** Where the part of the area in use ends: {@link #HOT} or the area's end. */
    private long end;

    public Placement(int areaCount, int areaSize) {
        this.areaCount = areaCount;
        this.areaSize = areaSize;
        this.end = Math.min(HOT, areaSize);
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

    /** Sender: whether a record of {@code payload} bytes fits in the part of the area in use. */
    public boolean fitsInUse(long payload) {
        return position + recordSpan(payload) + TAIL_RESERVE <= end;
    }

    /** Sender: whether the whole area is in use (then a record that does not fit needs another area). */
    public boolean wholeInUse() {
        return end == areaSize;
    }

    /** Sender: the rest of the area comes into use (no other area is free, or a record needs it). */
    public void useWhole() {
        end = areaSize;
    }

    /** Moves past a record of {@code payload} bytes. */
    public void advance(long payload) {
        position += recordSpan(payload);
    }

    /** Continues at the start of {@code next}, its hot part in use. */
    public void moveTo(int next) {
        area = next;
        position = 0;
        end = Math.min(HOT, areaSize);
    }
}
