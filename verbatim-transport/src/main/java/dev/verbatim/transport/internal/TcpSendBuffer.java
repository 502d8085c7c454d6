package dev.verbatim.transport.internal;

import dev.verbatim.buffer.Buffer;
import dev.verbatim.buffer.Buffers;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static dev.verbatim.transport.internal.FrameDescriptor.HEADER;
import static dev.verbatim.transport.internal.FrameDescriptor.NEXT;
import static dev.verbatim.transport.internal.FrameDescriptor.NEXT_PAYLOAD;

/**
 * The bytes a {@link TcpConnection} writes next, assembled in one off-heap buffer (docs/transport.md §4.2.1):
 * the whole frames that held commits left for the next write, then the NEXT frame an area change owes (if one is
 * due), then the frame being sent, its header and its payload padded to 8 bytes.
 *
 * <pre>
 *  [held frames: held bytes][NEXT frame: NEXT_SPAN, if owed][header: HEADER][payload][padding to 8]
 *                           ^ a region's own frame starts here, the NEXT in front of it ({@link #prefixNext})
 * </pre>
 *
 * <p>It only lays bytes out; the connection writes them to its stream. It grows with the largest frame sent, up to
 * the peer's maximum message (a peer's hello cannot make it allocate). Not thread-safe: the connection's send lock
 * guards it (its placement fields are the sending thread's, as the connection's claims are).
 */
final class TcpSendBuffer {
    /** A NEXT frame: its header and the area it names. */
    static final int NEXT_SPAN = HEADER + NEXT_PAYLOAD;
    /** The most bytes held back before a write (a claim that would go beyond writes what is held first). */
    static final int HOLD_MAX = 64 * 1024;
    private static final int INITIAL = 64 * 1024;

    private final int peerMax;
    private Buffer send;
    private MemorySegment window;
    /** Bytes of whole frames at the start of the buffer that held commits left for the next write. */
    private int held;
    /** The next commit is held ({@link TcpConnection#holdNextCommit}). */
    private boolean holdNext;
    /** The area a NEXT frame owes the peer (an aborted claim may leave it unsent), or -1. */
    private int pendingNext = -1;

    TcpSendBuffer(int peerMax) {
        this.peerMax = peerMax;
        this.send = Buffers.offHeap(NEXT_SPAN + HEADER + INITIAL);
        this.window = send.segment();
    }

    MemorySegment window() {
        return window;
    }

    /** Bytes of frames held for the next write (0: none). */
    int held() {
        return held;
    }

    /** What is held was written (or dropped with the connection). */
    void written() {
        held = 0;
    }

    void holdNext() {
        holdNext = true;
    }

    /** Whether the commit now being written is held, and no longer asked for the one after it. */
    boolean takeHoldNext(boolean isFrame) {
        boolean hold = holdNext && isFrame;
        holdNext = false;
        return hold;
    }

    /** The area a NEXT frame owes the peer, or -1. */
    int pendingNext() {
        return pendingNext;
    }

    /** The next frame must be preceded by a NEXT naming {@code area} (-1: nothing owed). */
    void owe(int area) {
        pendingNext = area;
    }

    /** The bytes a frame of {@code length} payload bytes takes, a NEXT in front of it included. */
    private static long need(int length) {
        return NEXT_SPAN + HEADER + ((length + 7L) & ~7L);
    }

    /** Whether what is held must be written before a frame of {@code length} bytes is laid after it. */
    boolean holdFull(int length) {
        return held > 0 && held + need(length) > HOLD_MAX;
    }

    /** Whether the buffer must {@linkplain #grow grow} for a frame of {@code length} bytes after what is held. */
    boolean tooSmall(int length) {
        return held + need(length) > window.byteSize();
    }

    /** Grows the buffer for a frame of {@code length} bytes after what is held, keeping what is held. */
    void grow(int length) {
        long want = held + need(length);
        long size = Math.max(want, Math.min(2 * window.byteSize(), need(peerMax)));
        Buffer bigger = Buffers.offHeap(size);
        MemorySegment.copy(window, 0, bigger.segment(), 0, held);
        Buffer old = send;
        send = bigger;
        window = bigger.segment();
        old.release();
    }

    /** Where a frame's payload of {@code length} bytes goes: after what is held, a NEXT if owed, and its header. */
    long payloadOffset() {
        return held + (pendingNext >= 0 ? NEXT_SPAN : 0) + HEADER;
    }

    /**
     * Lays out, after what is held, the owed NEXT frame (carrying {@code notices}) and a frame of {@code type}
     * whose {@code length} payload bytes are in place ({@code type < 0}: only the NEXT); the notices ride on the
     * first frame. Returns the end of the bytes to write; {@link #hold} or {@link #written} says what became of them.
     */
    int assemble(int type, int length, long notices) {
        int end = held;
        long carried = notices;
        if (pendingNext >= 0) {
            header(end, NEXT_PAYLOAD, NEXT, notices);
            window.set(ValueLayout.JAVA_LONG, end + HEADER, pendingNext);
            pendingNext = -1;
            end += NEXT_SPAN;
            carried = 0;
        }
        if (type >= 0) {
            header(end, length, type, carried);
            int padded = (length + 7) & ~7;
            window.asSlice(end + HEADER + length, padded - length).fill((byte) 0);
            end += HEADER + padded;
        }
        return end;
    }

    /** The bytes up to {@code end} stay for the next write. */
    void hold(int end) {
        held = end;
    }

    /**
     * Puts the owed NEXT frame (carrying {@code notices}) in front of a frame laid at {@code NEXT_SPAN} (nothing held:
     * the connection writes what is held first); returns where the bytes to write start (0 with a NEXT, else NEXT_SPAN).
     */
    int prefixNext(long notices) {
        if (pendingNext < 0) {
            return NEXT_SPAN;
        }
        header(0, NEXT_PAYLOAD, NEXT, notices);
        window.set(ValueLayout.JAVA_LONG, HEADER, pendingNext);
        pendingNext = -1;
        return 0;
    }

    void header(long at, long length, int type, long notices) {
        window.set(ValueLayout.JAVA_LONG, at, (length & 0xFFFF_FFFFL) | ((long) type << 32));
        window.set(ValueLayout.JAVA_LONG, at + 8, notices);
    }

    void release() {
        send.release();
    }
}
