package dev.verbatim.rpc.internal;

import dev.verbatim.wire.WireWriter;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

/**
 * Answers that could not be sent at once (docs/rpc.md §5): encoded into heap memory, in order, until a
 * thread that can send takes them out ({@link Sender}). At most {@link #LIMIT} bytes; an answer that
 * would take it over is refused, and its thread waits for room in the peer's window as a caller does.
 * Once {@linkplain #clear cleared} (the connection closed) it refuses nothing and keeps nothing: what
 * comes is dropped, since nobody can send it.
 *
 * <p>Thread-safe: guarded by its own monitor ({@link #lock()}), which also guards {@link #writer()};
 * {@link #count()} is readable without it (a hint for the hot paths: "is anything waiting?").
 */
final class Outbox {
    /** The most bytes of answers the outbox holds. */
    static final long LIMIT = 8L << 20;

    private final ArrayDeque<MemorySegment> messages = new ArrayDeque<>();
    /** Marshals answers that go to the outbox, and sizes every answer's result. Guarded by the lock. */
    private final WireWriter writer = new WireWriter();
    private final long limit;
    private long bytes; // guarded by the lock
    private boolean closed; // guarded by the lock
    private volatile int count;

    Outbox() {
        this(LIMIT);
    }

    /** An outbox of another limit (tests). */
    Outbox(long limit) {
        this.limit = limit;
    }

    /** The monitor that guards the outbox and its writer. */
    Object lock() {
        return messages;
    }

    /** The writer answers are sized and stashed with: use it only holding {@link #lock()}. */
    WireWriter writer() {
        return writer;
    }

    /** How many messages wait (read without the lock). */
    int count() {
        return count;
    }

    /** How many bytes wait. */
    long bytes() {
        synchronized (messages) {
            return bytes;
        }
    }

    /**
     * Encodes a message of {@code total} bytes into the outbox: its header, then its body by {@code body}.
     * False if that would take the outbox over its limit (nothing stashed); true if it was stashed, or
     * dropped because the outbox was cleared.
     */
    boolean stash(long total, long head, long callId, CallEncoder.Writer body, CallEncoder encoder, Object what) {
        synchronized (messages) {
            if (bytes + total > limit || closed) {
                return closed; // a closed endpoint sends nothing: dropped
            }
            MemorySegment m = MemorySegment.ofArray(new long[(int) ((total + 7) >>> 3)]).asSlice(0, total);
            RpcDescriptor.putHeader(m, head, callId, 0, 0);
            body.write(encoder, writer, m, RpcDescriptor.headerOf(RpcDescriptor.kindOf(head)), what);
            messages.addLast(m);
            bytes += total;
            count = messages.size();
            return true;
        }
    }

    /** The oldest message, left in the outbox, or null. */
    MemorySegment peek() {
        synchronized (messages) {
            return messages.peekFirst();
        }
    }

    /** Removes the oldest message (after it was sent). */
    void removeFirst() {
        synchronized (messages) {
            MemorySegment m = messages.pollFirst();
            if (m != null) {
                bytes -= m.byteSize();
            }
            count = messages.size();
        }
    }

    /** Drops everything and refuses nothing from now on (what comes is dropped): the connection closed. */
    void clear() {
        synchronized (messages) {
            messages.clear();
            bytes = 0;
            count = 0;
            closed = true;
        }
    }
}
