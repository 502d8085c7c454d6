package dev.verbatim.rpc.internal;

import dev.verbatim.rpc.RemoteException;

import java.lang.foreign.MemorySegment;

import static dev.verbatim.rpc.internal.RpcDescriptor.*;

/**
 * The values of one endpoint too large for one message, sent ahead of it in {@code PIECE}s (docs/rpc.md §7), the
 * twin of {@link IncomingStreams}: an argument larger than a region may be, or a result larger than a reply may
 * carry, goes as pieces of at most {@link #PIECE_MAX} bytes, each sent as a caller sends (waiting for room), and the
 * {@code CALL} or {@code REPLY} names it with a {@code STREAM} value. Between pieces the threads waiting for the send
 * lock go first, so a stream holds others up by one piece at most. A call that is not sent after all has its streams
 * dropped by the receiver ({@code CANCEL}).
 *
 * <p>Thread-safe as its {@link Sender} is (it sends through it, piece by piece).
 */
final class OutgoingStreams {
    /**
     * The largest piece of a streamed value: smaller than an area, so the receiver copies one piece out while the
     * sender writes the next into another part of the window.
     */
    static final int PIECE_MAX = 1024 * 1024;

    private final Endpoint endpoint;
    private final Sender sender;
    /** The largest message the peer accepts (fixed at the handshake). */
    private final int maxMessage;

    OutgoingStreams(Endpoint endpoint, Sender sender, int maxMessage) {
        this.endpoint = endpoint;
        this.sender = sender;
        this.maxMessage = maxMessage;
    }

    /** The largest array or segment a reply carries in itself; a larger result is streamed. */
    long maxInlineResult() {
        return maxMessage - REPLY_HEADER - VALUE_HEADER - 4096;
    }

    /**
     * Streams, ahead of the call, each argument larger than a region may be; their planned {@code STREAM} values by
     * position, or null when there is none (the common case: no allocation).
     */
    CallEncoder.Planned[] arguments(RemoteInterface.MethodInfo mi, Object[] args, PendingCall p) {
        CallEncoder.Planned[] streamed = null;
        try {
            for (int i = 0; i < args.length; i++) {
                MemorySegment big = CallEncoder.streamable(mi.params[i], args[i], maxMessage);
                if (big != null) {
                    if (streamed == null) {
                        streamed = new CallEncoder.Planned[args.length];
                    }
                    stream(false, p.id, i, big, p);
                    streamed[i] = CallEncoder.streamed(i);
                }
            }
            return streamed;
        } catch (RuntimeException | Error e) {
            endpoint.calls().forget(p);
            if (streamed != null) {
                cancel(p.id);
            }
            throw e;
        }
    }

    /** The receiver drops what it assembled for call {@code callId}, which will not be sent after all. */
    void cancel(long callId) {
        if (endpoint.isOpen()) {
            sender.answer(head(CANCEL, 0, 0, 0), callId, 0, CallEncoder.NOTHING, null);
        }
    }

    /**
     * Sends {@code bytes} as the {@code PIECE}s of value {@code index} of call {@code callId} (or of the reply
     * to it), waiting for room as a caller does, and taking the send lock for one piece at a time: other
     * calls and answers go between the pieces (the threads waiting for the lock go first), each waiting at most
     * one piece.
     *
     * @throws RemoteException {@code CONNECTION} or {@code NOT_SENT} if the transport failed (the connection
     *         is then closed)
     */
    void stream(boolean reply, long callId, int index, MemorySegment bytes, PendingCall failIfNotSent) {
        long total = bytes.byteSize();
        long piece = Math.min(PIECE_MAX, (maxMessage - HEADER) & ~7L);
        long head = head(PIECE, reply ? PIECE_OF_REPLY : 0, index, 0);
        for (long at = 0; at < total; at += piece) {
            long n = Math.min(piece, total - at);
            if (at != 0) {
                letWaitingSendersGo();
            }
            sender.send(head, callId, total, at, n, CallEncoder.PIECE_BODY, bytes.asSlice(at, n), failIfNotSent);
        }
    }

    /**
     * Between two pieces: the threads queued for the send lock take it first (the lock is not fair, so a thread
     * that unlocks and locks again would otherwise keep it for the whole stream). Bounded: 10 ms at most.
     */
    private void letWaitingSendersGo() {
        if (!sender.othersWaitToSend()) {
            return;
        }
        long deadline = System.nanoTime() + 10_000_000L;
        while (sender.othersWaitToSend() && System.nanoTime() < deadline) {
            Thread.yield();
        }
    }
}
