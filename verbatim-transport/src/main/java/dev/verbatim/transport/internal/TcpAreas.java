package dev.verbatim.transport.internal;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

import static dev.verbatim.transport.internal.AreaDescriptor.STATE_FREE;
import static dev.verbatim.transport.internal.AreaDescriptor.STATE_SENDER;

/**
 * Which areas of the two receive windows of a {@link TcpConnection} are free, and what each side must tell the other
 * of them (docs/transport.md §4.2, §4.3, §4.7). On shm the area state words lie in the shared windows, where the
 * sender takes an area and the receiver frees it; on tcp neither side can touch the other's memory, so each keeps
 * what it knows, and the frames carry the rest: a freed area of ours rides as a notice bit on our next frame, an area
 * of the peer's is ours to enter once its notice came, and a {@code NEXT} frame into an area of ours that is not free
 * is a protocol violation. A state or a bit per area:
 *
 * <pre>
 *  our window   state     FREE | SENDER   the {@link AreaReader} freed it (read, released) | the peer's NEXT entered it
 *               notices   bit             freed since our last frame: the next frame carries them (piggy-back)
 *               touched   bit             entered since its pages were last given back (area 0 at the start)
 *  the peer's   peerFree  bit             announced free by the peer's notices, not entered since (area 0: ours at the start)
 * </pre>
 *
 * <p>It owns our window's memory (a {@link LazyWindow}), so that the pages of the areas a burst filled can be given
 * back once they are free again ({@link #giveBackFree}). Thread-safety: the states and bits are atomic (the
 * {@link AreaReader} frees areas on whichever thread releases the last delivery in them; the pump enters them and
 * files the peer's notices, under the connection's pump lock; a sender takes our notices under its send lock, and
 * the peer's free areas as it moves); giving back pages and releasing the window are the pump lock's, as every write
 * into the window is.
 */
final class TcpAreas {
    private final LazyWindow window;
    private final int areaSize;
    private final AtomicIntegerArray state;
    /** Areas freed since our last frame: the next frame carries them. */
    private final AtomicLong notices = new AtomicLong();
    /** Areas the peer entered since their pages were last given back (bit per area; area 0 at the start). */
    private final AtomicLong touched = new AtomicLong(1);
    private final int peerAreaCount;
    /** The peer's areas that its notices announced free and that this side has not entered since. */
    private final AtomicLong peerFree;

    TcpAreas(int areaCount, int areaSize, int peerAreaCount) {
        this.window = new LazyWindow(AreaDescriptor.windowSize(areaCount, areaSize));
        this.areaSize = areaSize;
        this.state = new AtomicIntegerArray(areaCount);
        state.set(0, STATE_SENDER); // the peer starts in area 0
        this.peerAreaCount = peerAreaCount;
        long all = peerAreaCount == 64 ? -1L : (1L << peerAreaCount) - 1;
        this.peerFree = new AtomicLong(all & ~1L); // this side starts in the peer's area 0
    }

    // ------------------------------------------------------------------ the peer's window

    /**
     * Takes a free area of the peer's window other than {@code current} (the one this side fills): it is this
     * side's to fill until the peer announces it free again. -1 if there is none.
     */
    int takePeerFree(int current) {
        while (true) {
            long all = peerFree.get();
            long m = all & ~(1L << current);
            if (m == 0) {
                return -1;
            }
            long bit = Long.lowestOneBit(m);
            if (peerFree.compareAndSet(all, all & ~bit)) {
                return Long.numberOfTrailingZeros(bit);
            }
        }
    }

    /** The peer announced the areas of {@code bits} (non-zero) free; a violation if it has no such areas. */
    void peerFreed(long bits) throws ProtocolViolation {
        if (peerAreaCount < 64 && (bits >>> peerAreaCount) != 0) {
            throw TcpFrameReader.violation("a notice for areas it does not have (0x" + Long.toHexString(bits) + ")");
        }
        peerFree.getAndUpdate(m -> m | bits);
    }

    // ------------------------------------------------------------------ our window

    /** The window's memory, for the {@link AreaReader} and the {@link TcpFrameReader}. */
    MemorySegment segment() {
        return window.segment();
    }

    /** The {@link AreaReader} freed {@code area}: the peer may enter it again, which our next frame tells it. */
    void freed(int area) {
        state.set(area, STATE_FREE);
        notices.getAndUpdate(m -> m | (1L << area));
    }

    /** Whether areas were freed that no frame has announced yet. */
    boolean noticesDue() {
        return notices.get() != 0;
    }

    /** The areas freed since the last frame, to be carried by the frame being written (none are owed any more). */
    long takeNotices() {
        return notices.getAndSet(0);
    }

    /** Notices {@linkplain #takeNotices taken} for a frame that did not go out: the next frame carries them. */
    void restoreNotices(long m) {
        notices.getAndUpdate(x -> x | m);
    }

    /** Whether the peer may move to {@code area}: free, and read to its end by {@code reader}. */
    boolean mayEnter(int area, AreaReader reader) {
        return state.get(area) == STATE_FREE && reader.isClear(area);
    }

    /** The peer moved to {@code area} (a {@code NEXT} frame): it is the peer's sender's until freed again. */
    void entered(int area) {
        state.set(area, STATE_SENDER);
        touched.getAndUpdate(m -> m | (1L << area));
    }

    /** Whether areas were entered since their pages were last given back ({@link #giveBackFree} has work). */
    boolean anyTouched() {
        return touched.get() != 0;
    }

    /**
     * Gives the operating system back the pages of the areas that the peer entered since the last time and that are
     * free now (read, released, not the peer's current area): after a burst, an idle connection costs again what it
     * did before. Pages given back read as zero, as a fresh window does. Costs a system call per area given back, and
     * the next message in such an area a page fault per page: the connection calls it when its receiver goes idle,
     * not as areas free. The caller holds the pump lock (no frame is filed meanwhile; a free area is entered only by
     * a frame) and the window is not released.
     */
    void giveBackFree(AreaReader reader) {
        for (long m = touched.get(); m != 0; m &= m - 1) {
            int a = Long.numberOfTrailingZeros(m);
            if (state.get(a) == STATE_FREE && reader.isClear(a) && reader.currentArea() != a) {
                window.giveBack(AreaDescriptor.areaBase(a, areaSize), areaSize);
                touched.getAndUpdate(x -> x & ~(1L << a));
            }
        }
    }

    /** The resident bytes of the window (tests); -1 if it cannot tell. */
    long residentBytes() {
        return window.resident(0, window.segment().byteSize());
    }

    /** Frees the window (the caller holds the pump lock: nothing is written into it any more); idempotent. */
    void release() {
        window.release();
    }
}
