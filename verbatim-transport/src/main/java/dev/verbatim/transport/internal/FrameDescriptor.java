package dev.verbatim.transport.internal;

/**
 * The frames of a {@code tcp} connection, after the {@link Hello} exchange. The byte stream is the
 * records of {@link AreaDescriptor} with a wider header: the receiver copies each payload into the
 * place in its receive window that the stream implies, so the message bytes are the same as on
 * {@code shm}. Little-endian:
 *
 * <pre>
 *  0                4      5       6        8                     16
 *  +----------------+------+-------+--------+---------------------+---------------+-- pad to 8 --+
 *  | payload length | type | 0     | 0      | notices (u64)       | payload       |              |
 *  +----------------+------+-------+--------+---------------------+---------------+--------------+
 * </pre>
 *
 * {@code notices} is the sender-of-this-frame's piggy-backed flow-control news: a bit set for each
 * area of its own receive window that became free since its last frame. {@code NOTICE} frames carry
 * only that, sent when no other frame is going out to carry it.
 */
public final class FrameDescriptor {
    private FrameDescriptor() {}

    public static final int HEADER = 16;
    public static final int LENGTH_OFFSET = 0;
    public static final int TYPE_OFFSET = 4;
    public static final int NOTICES_OFFSET = 8;

    public static final int DATA = AreaDescriptor.TYPE_DATA;
    public static final int REGION = AreaDescriptor.TYPE_REGION;
    public static final int NEXT = AreaDescriptor.TYPE_NEXT;
    public static final int NOTICE = 6;
    public static final int CLOSE = 7;

    /** The payload of a {@code NEXT} frame: the next area, as a u64. */
    public static final int NEXT_PAYLOAD = 8;
    /** The longest close reason carried. */
    public static final int MAX_REASON = 1024;

    /** Bytes of a frame with {@code payload} bytes on the wire, padding included. */
    public static long frameSpan(long payload) {
        return HEADER + ((payload + 7) & ~7L);
    }
}
