package dev.verbatim.transport.internal;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

import javax.net.ssl.SSLException;

import static dev.verbatim.transport.internal.FrameDescriptor.CLOSE;
import static dev.verbatim.transport.internal.FrameDescriptor.HEADER;
import static dev.verbatim.transport.internal.FrameDescriptor.NEXT;
import static dev.verbatim.transport.internal.FrameDescriptor.NEXT_PAYLOAD;
import static dev.verbatim.transport.internal.FrameDescriptor.NOTICE;

/**
 * The receiving half of a tcp connection's frame stream (docs/transport.md §4): reads the
 * {@link TcpStream} and files each frame's payload into the receive window at its place with an
 * {@link AreaWriter}, small frames through a staging buffer, large payloads straight from the
 * stream into the window (with TLS: decrypted straight into it). Checks every frame; what the
 * window's state decides (a free area for {@code NEXT}, notices for the peer's areas) it asks the
 * connection through {@link Events}. Not thread-safe: the connection's pump lock guards it.
 */
final class TcpFrameReader {
    private static final int STAGING = 64 * 1024;

    /** What a frame means to the connection. */
    interface Events {
        /** Areas of the peer's window freed ({@code bits} non-zero); throws if the peer has no such areas. */
        void notices(long bits) throws ProtocolViolation;

        /** Whether the peer may move to {@code area} of our window (free and read to its end). */
        boolean mayEnter(int area);

        /** The peer moved to {@code area}: it is the sender's now. */
        void entered(int area);

        /** The stream ended: cleanly ({@code clean}, a CLOSE with its reason) or not. */
        void ended(boolean clean, String why);
    }

    private final TcpStream stream;
    private final Events events;
    private final MemorySegment window;
    private final AreaWriter writer;
    private final int maxPayload;
    private final int areaCount;
    private final ByteBuffer staging = ByteBuffer.allocateDirect(STAGING).order(ByteOrder.LITTLE_ENDIAN);
    private final MemorySegment stagingSegment = MemorySegment.ofBuffer(staging);
    private long partialOffset;
    private long partialRemaining;
    private int partialType;
    private int partialLength;
    private boolean eof;
    /** Bytes read from the stream so far: one writer (under the pump lock), read by the {@link TcpHeartbeat}. */
    private final AtomicLong bytesIn = new AtomicLong();

    TcpFrameReader(TcpStream stream, Events events, MemorySegment window, int areaCount, int areaSize) {
        this.stream = stream;
        this.events = events;
        this.window = window;
        this.writer = new AreaWriter(window, areaCount, areaSize);
        this.maxPayload = AreaDescriptor.maxPayload(areaSize);
        this.areaCount = areaCount;
    }

    /** Bytes read from the stream so far. */
    long bytesIn() {
        return bytesIn.get();
    }

    /** Whether the stream ended (a CLOSE, an end of stream, a failure): nothing more is read. */
    boolean ended() {
        return eof;
    }

    /**
     * Reads what the stream has and files complete frames into the window; true if any record was
     * published. A TLS record that fails its check is a protocol violation (the stream cannot go on).
     */
    boolean pump() throws ProtocolViolation {
        if (eof) {
            return false;
        }
        boolean published = false;
        try {
            if (partialRemaining > STAGING / 2 && staging.position() == 0) {
                ByteBuffer direct = window.asSlice(partialOffset, partialRemaining).asByteBuffer();
                int n = stream.read(direct);
                if (n < 0) {
                    lost();
                    return false;
                }
                bytesIn.lazySet(bytesIn.get() + n);
                partialOffset += n;
                partialRemaining -= n;
                if (partialRemaining == 0) {
                    writer.publishRelease(partialType, partialLength);
                    published = true;
                }
                return published;
            }
            int n = stream.read(staging);
            if (n < 0) {
                lost();
            } else if (n > 0) {
                bytesIn.lazySet(bytesIn.get() + n);
            }
            staging.flip();
            try {
                published = parse();
            } finally {
                staging.compact();
            }
            return published;
        } catch (SSLException e) {
            eof = true;
            throw new ProtocolViolation("a TLS record failed: " + TlsHandshake.describe(e));
        } catch (IOException e) {
            eof = true;
            events.ended(false, "the connection failed: " + e.getMessage());
            return published;
        }
    }

    private void lost() {
        eof = true;
        events.ended(false, "the connection was lost without a close (the peer process died or the network failed)");
    }

    private boolean parse() throws ProtocolViolation {
        boolean published = false;
        while (true) {
            if (partialRemaining > 0) {
                int n = (int) Math.min(partialRemaining, staging.remaining());
                MemorySegment.copy(stagingSegment, staging.position(), window, partialOffset, n);
                staging.position(staging.position() + n);
                partialOffset += n;
                partialRemaining -= n;
                if (partialRemaining > 0) {
                    return published;
                }
                writer.publishRelease(partialType, partialLength);
                published = true;
                continue;
            }
            if (staging.remaining() < HEADER) {
                return published;
            }
            int p = staging.position();
            long length = staging.getInt(p) & 0xFFFF_FFFFL;
            int type = staging.get(p + 4) & 0xFF;
            long notices = staging.getLong(p + 8);
            if (staging.get(p + 5) != 0 || staging.getShort(p + 6) != 0) {
                throw violation("a malformed frame header");
            }
            switch (type) {
                case FrameDescriptor.DATA, FrameDescriptor.REGION -> {
                    if (length > maxPayload) {
                        throw violation("a frame of " + length + " bytes, above this side's maximum of " + maxPayload);
                    }
                    if (!writer.placement.fits(length)) {
                        throw violation("a frame of " + length + " bytes that overruns receive area "
                                + writer.placement.area());
                    }
                    notices(notices);
                    staging.position(p + HEADER);
                    partialRemaining = (length + 7) & ~7L;
                    partialOffset = writer.payloadOffset(partialRemaining);
                    partialType = type;
                    partialLength = (int) length;
                    if (partialRemaining == 0) {
                        writer.publishRelease(type, 0);
                        published = true;
                    }
                }
                case NEXT -> {
                    if (length != NEXT_PAYLOAD) {
                        throw violation("a NEXT frame of " + length + " bytes");
                    }
                    if (staging.remaining() < HEADER + NEXT_PAYLOAD) {
                        return published;
                    }
                    long next = staging.getLong(p + HEADER);
                    int current = writer.placement.area();
                    if (next < 0 || next >= areaCount || next == current || !events.mayEnter((int) next)) {
                        throw violation("a NEXT frame to area " + next + ", which was not free");
                    }
                    notices(notices);
                    events.entered((int) next);
                    writer.nextRelease((int) next);
                    staging.position(p + HEADER + NEXT_PAYLOAD);
                }
                case NOTICE -> {
                    if (length != 0) {
                        throw violation("a NOTICE frame with a payload");
                    }
                    notices(notices);
                    staging.position(p + HEADER);
                }
                case CLOSE -> {
                    if (length > FrameDescriptor.MAX_REASON) {
                        throw violation("a CLOSE frame of " + length + " bytes");
                    }
                    int span = (int) FrameDescriptor.frameSpan(length);
                    if (staging.remaining() < span) {
                        return published;
                    }
                    byte[] reason = new byte[(int) length];
                    staging.get(p + HEADER, reason);
                    staging.position(p + span);
                    eof = true;
                    events.ended(true, reason.length == 0 ? null : new String(reason, StandardCharsets.UTF_8));
                    return published;
                }
                default -> throw violation("a frame of unknown type " + type);
            }
        }
    }

    private void notices(long bits) throws ProtocolViolation {
        if (bits != 0) {
            events.notices(bits);
        }
    }

    static ProtocolViolation violation(String what) {
        return new ProtocolViolation("the peer sent " + what);
    }
}
