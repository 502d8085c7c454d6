package dev.verbatim.bench.transport;

/**
 * Layout of the floor ping-pong's shared file. One cache line per direction, 128 bytes apart (the
 * adjacent-line prefetcher pairs 64-byte lines, so 64 apart could still interfere); messages of up
 * to {@link #INLINE_MAX} bytes travel inside the line with the sequence number, larger ones in a
 * payload area per direction.
 *
 * <pre>
 *   0                   64                  128                 192
 *   +-------------------+-------------------+-------------------+-------------------+
 *   | ping line: seq(8) size(8) inline(48)  |  pong line: seq(8) size(8) inline(48) |
 *   +-------------------+-------------------+-------------------+-------------------+
 *   4096: ping -> pong payload (maxSize, page-rounded)
 *   4096 + payloadBytes: pong -> ping payload (maxSize, page-rounded)
 * </pre>
 *
 * A line's writer stores the payload and size plainly, then the sequence with release; the reader
 * loads the sequence with acquire, then size and payload. Sequence {@link #CLOSED} ends the run.
 */
final class FloorPingPongDescriptor {
    private FloorPingPongDescriptor() {}

    static final long PING_LINE = 0;
    static final long PONG_LINE = 128;
    static final long SEQ = 0;
    static final long SIZE = 8;
    static final long INLINE = 16;
    static final int INLINE_MAX = 48;
    static final long PAYLOAD = 4096;
    static final long CLOSED = -1;

    static long payloadBytes(int maxSize) {
        return (maxSize + 4095L) & ~4095L;
    }

    static long pingPayload() {
        return PAYLOAD;
    }

    static long pongPayload(int maxSize) {
        return PAYLOAD + payloadBytes(maxSize);
    }

    static long fileSize(int maxSize) {
        return PAYLOAD + 2 * payloadBytes(maxSize);
    }

    static void checkSize(int size, int maxSize) {
        if (size < 0 || size > maxSize) {
            throw new IllegalArgumentException("message of " + size + " bytes, at most " + maxSize);
        }
    }
}
