package dev.verbatim.rpc.internal;

import dev.verbatim.rpc.RemoteException;
import dev.verbatim.rpc.RemoteException.Reason;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

import static dev.verbatim.rpc.internal.RpcDescriptor.*;

/**
 * The peer's streamed values arriving at one endpoint (docs/rpc.md §7): an array or segment too large for
 * one message comes as {@code PIECE} messages ahead of the {@code CALL} or {@code REPLY} that names it with
 * a {@code STREAM} value. Each stream is keyed by (call or reply, call id, value index); its pieces are
 * copied, in order, into {@link StreamMemory} reserved at the announced size and committed page by page as
 * bytes arrive; the value then {@linkplain #take takes} the assembled bytes.
 *
 * <p>What a receiver enforces: the sum of the sizes announced by the streams it holds (assembling, or lent
 * to a running call) stays within its limit ({@value #LIMIT_PROPERTY}, read as the connection opens; 2 GiB
 * by default): a stream beyond it is refused before any memory is reserved, its pieces are checked but
 * dropped, and the value that names it fails with {@code OVERLOADED} naming the limit (the connection
 * stays). A piece that does not continue its stream where the last one ended, that names another size
 * than its stream's first, that runs past the announced end, or whose header has bits that must be zero,
 * is a protocol violation ({@link IllegalArgumentException}: the connection closes). A value naming a
 * stream that is missing or incomplete cannot be read.
 *
 * <p>Invariants: every use of a {@link StreamMemory} block ends exactly once: when its value was copied out,
 * when the call it was lent to ends ({@link #endCall}), when its call is cancelled, when its call or reply is
 * dropped unread, or when the endpoint closes ({@link #closeAll}); then the block is kept as the endpoint's one
 * spare (at most {@value #SPARE_PROPERTY} bytes, reused by the next stream it fits) or freed, and the endpoint's
 * close frees the spare. {@link #held} equals the sum of the announced
 * sizes of the streams in the table that were not refused. Thread-safe (one monitor; pieces are large, so
 * the lock is taken rarely).
 */
final class IncomingStreams {
    static final String LIMIT_PROPERTY = "verbatim.rpc.maxStreamBytes";
    /** The largest value that may be streamed: the 2 GiB limit of Java arrays and of this protocol's lengths. */
    static final long MAX_VALUE = Integer.MAX_VALUE;

    /** The largest block kept for reuse after its value is done ({@value #SPARE_PROPERTY}; 64 MiB by default). */
    static final String SPARE_PROPERTY = "verbatim.rpc.streamSpareBytes";
    private static final long SPARE_MAX = Long.getLong(SPARE_PROPERTY, 64L << 20);

    /** One stream: its announced size, what arrived, and where (memory null when refused). */
    private static final class Assembly {
        final long total;
        final StreamMemory memory;
        /** This use of the memory: closed when the value is done, so a lent segment is valid for its call only. */
        final Arena use;
        final MemorySegment view;
        long received;
        /** Taken by its value and lent to the running call (a segment argument): kept until the call ends. */
        boolean lent;

        Assembly(long total, StreamMemory memory) {
            this.total = total;
            this.memory = memory;
            this.use = memory == null ? null : Arena.ofShared();
            this.view = memory == null ? null : memory.view(total, use);
        }
    }

    private record Key(boolean reply, long callId, int index) {}

    private final long limit;
    private final Map<Key, Assembly> streams = new HashMap<>();
    /** The size of {@link #streams}, read without the lock on the hot paths (a call with no streams). */
    private volatile int count;
    private long held;
    private boolean closed;
    /** The block of the last value done, kept for the next (its pages committed), or null. */
    private StreamMemory spare;

    IncomingStreams() {
        this(Long.getLong(LIMIT_PROPERTY, MAX_VALUE + 1));
    }

    IncomingStreams(long limit) {
        this.limit = limit;
    }

    /** Whether any stream is held (cheap: calls with none pay one volatile read). */
    boolean any() {
        return count != 0;
    }

    /**
     * A {@code PIECE}: continues (or starts) its stream.
     *
     * @throws IllegalArgumentException if the piece breaks the rules above (the connection closes)
     */
    void onPiece(MemorySegment m) {
        int flags = flags(m);
        if ((flags & ~PIECE_OF_REPLY) != 0 || target(m) != 0) {
            throw new IllegalArgumentException("a piece with reserved bits set");
        }
        long total = method(m);
        long offset = chain(m);
        long n = m.byteSize() - HEADER;
        if (total <= 0 || total > MAX_VALUE) {
            throw new IllegalArgumentException("a stream of " + total + " bytes");
        }
        if (n <= 0 || offset < 0 || offset > total - n) {
            throw new IllegalArgumentException("a piece after the end of its stream (" + n + " bytes at " + offset + " of "
                    + total + ")");
        }
        Key key = new Key((flags & PIECE_OF_REPLY) != 0, callId(m), count(m));
        synchronized (this) {
            if (closed) {
                return;
            }
            Assembly a = streams.get(key);
            if (a == null) {
                if (offset != 0) {
                    throw new IllegalArgumentException("a piece at " + offset + " of a stream that never started");
                }
                a = new Assembly(total, held + total > limit ? null : block(total));
                if (a.memory != null) {
                    held += total;
                }
                streams.put(key, a);
                count = streams.size();
            } else if (a.total != total || a.received != offset || a.lent) {
                throw new IllegalArgumentException("pieces that do not add up: " + n + " bytes at " + offset + " of "
                        + total + ", after " + a.received + " of " + a.total);
            }
            if (a.memory != null) {
                MemorySegment.copy(m, HEADER, a.view, offset, n);
            }
            a.received = offset + n;
        }
    }

    /**
     * The bytes of a {@code STREAM} value of {@code kind}: for a {@link ValueKind.Tag#SEGMENT} argument
     * ({@code lend}), the assembled segment itself, read-only and valid until {@link #endCall}; otherwise
     * an array of the declared type (a segment result: one on the heap), the memory freed at once.
     *
     * @throws RemoteException {@code OVERLOADED} if the stream was refused for the limit
     * @throws IllegalArgumentException if it is missing, incomplete, or not a whole number of elements
     */
    Object take(boolean reply, long callId, int index, ValueKind k) {
        Class<?> c = k.type();
        Class<?> component = k.tag() == ValueKind.Tag.SEGMENT ? byte.class : c.isArray() ? c.getComponentType() : null;
        if (k.tag() != ValueKind.Tag.SEGMENT && (k.tag() != ValueKind.Tag.COPY || component == null
                || !component.isPrimitive() || component == boolean.class)) {
            throw new IllegalArgumentException("a stream for a " + c.getName());
        }
        Key key = new Key(reply, callId, index);
        boolean lend = !reply && k.tag() == ValueKind.Tag.SEGMENT;
        Assembly a;
        synchronized (this) {
            a = streams.get(key);
            if (a == null || a.lent) {
                throw new IllegalArgumentException("a stream value with no stream");
            }
            if (a.memory == null) {
                forget(key, a);
                throw new RemoteException(Reason.OVERLOADED, "a value of " + a.total + " bytes exceeds this side's limit of "
                        + limit + " bytes of streamed values held at once (" + LIMIT_PROPERTY + ")");
            }
            if (a.received != a.total) {
                throw new IllegalArgumentException("a stream value whose pieces do not add up (" + a.received + " of "
                        + a.total + " bytes)");
            }
            if (lend) {
                a.lent = true;
                return a.view.asReadOnly();
            }
            forget(key, a);
        }
        try {
            if (k.tag() == ValueKind.Tag.SEGMENT) {
                return MemorySegment.ofArray(a.view.toArray(ValueLayout.JAVA_BYTE));
            }
            return ValueDecoder.toArray(a.view, component);
        } finally {
            free(a);
        }
    }

    /** A block for a stream of {@code total} bytes: the spare if it is large enough, else a new one. */
    private StreamMemory block(long total) {
        StreamMemory s = spare;
        if (s != null && s.size() >= total) {
            spare = null;
            s.spare(false);
            return s;
        }
        return new StreamMemory(total);
    }

    /**
     * A value is done with its memory: its use ends (a segment lent through it is closed), and its block is
     * kept as the spare when it is not too large and larger than the spare (else freed).
     */
    private synchronized void free(Assembly a) {
        if (a.memory == null) {
            return;
        }
        a.use.close();
        StreamMemory b = a.memory;
        if (closed || !StreamMemory.reusable() || b.size() > SPARE_MAX || (spare != null && spare.size() >= b.size())) {
            b.close();
            return;
        }
        if (spare != null) {
            spare.close();
        }
        b.spare(true);
        spare = b;
    }

    /** Removes an entry (under the lock); its memory is the caller's to close. */
    private void forget(Key key, Assembly a) {
        streams.remove(key);
        count = streams.size();
        if (a.memory != null) {
            held -= a.total;
        }
    }

    /**
     * The call {@code callId} of the peer ended or was dropped unread ({@code lentToo}), or was cancelled
     * (a segment lent to the call, which may still run, stays until it ends): frees its streams.
     */
    void endCall(long callId, boolean lentToo) {
        drop(false, callId, lentToo);
    }

    /** A reply to our call {@code callId} was dropped unread: frees the streams it named. */
    void endReply(long callId) {
        drop(true, callId, true);
    }

    private void drop(boolean reply, long callId, boolean lentToo) {
        if (count == 0) {
            return;
        }
        synchronized (this) {
            for (Iterator<Map.Entry<Key, Assembly>> i = streams.entrySet().iterator(); i.hasNext(); ) {
                Map.Entry<Key, Assembly> e = i.next();
                if (e.getKey().callId() == callId && e.getKey().reply() == reply && (lentToo || !e.getValue().lent)) {
                    i.remove();
                    Assembly a = e.getValue();
                    if (a.memory != null) {
                        held -= a.total;
                        free(a);
                    }
                }
            }
            count = streams.size();
        }
    }

    /** The endpoint closed: frees everything (a call still reading a lent segment sees it closed). */
    void closeAll() {
        synchronized (this) {
            closed = true;
            for (Assembly a : streams.values()) {
                free(a); // closed: every block goes
            }
            if (spare != null) {
                spare.close();
                spare = null;
            }
            streams.clear();
            held = 0;
            count = 0;
        }
    }

    /** The bytes announced by the streams held (not refused). */
    synchronized long held() {
        return held;
    }
}
