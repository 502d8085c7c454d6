package dev.verbatim.transport.internal;

import dev.verbatim.transport.Claim;

import java.lang.foreign.MemorySegment;

import static dev.verbatim.transport.internal.AreaDescriptor.TYPE_REGION;

/**
 * The claim flyweight of one {@link BaseConnection}: the one {@link Claim} its sending thread
 * reuses for every message. It keeps where the claimed bytes are, not a slice of them:
 * {@link #segment()} cuts the slice when asked, so a caller that only writes through it (the
 * usual case) allocates nothing once the JIT has inlined the call (escape analysis).
 *
 * <p>Invariants: at most one claim is open per connection ({@link #open}); {@link #commit(int)}
 * publishes through the connection and counts the message there; after a commit or an abort the
 * window is dropped, and {@link #segment()}, {@link #commit()} and {@link #abort()} throw until
 * the connection opens the claim again. Used by the sending thread only (not thread-safe).
 *
 * <p>It reaches its connection through one final field, exactly as the inner class it was
 * reached its outer instance: the claim and commit path has no extra indirection.
 */
final class ClaimFlyweight implements Claim {
    private final BaseConnection connection;
    boolean open;
    private int type;
    private MemorySegment window;
    private long offset;
    private int length;

    ClaimFlyweight(BaseConnection connection) {
        this.connection = connection;
    }

    /** Opens the claim on {@code n} bytes of {@code w} from {@code at}, to be published as a record of type {@code t}. */
    Claim open(MemorySegment w, long at, int n, int t) {
        window = w;
        offset = at;
        length = n;
        type = t;
        open = true;
        return this;
    }

    @Override
    public MemorySegment segment() {
        if (!open) {
            throw new IllegalStateException("the claim was already committed or aborted");
        }
        return window.asSlice(offset, length);
    }

    @Override
    public void commit() {
        commit(length);
    }

    @Override
    public void commit(int length) {
        if (!open) {
            throw new IllegalStateException("the claim was already committed or aborted");
        }
        if (length < 0 || length > this.length) {
            throw new IllegalArgumentException("a claim of " + this.length + " bytes cannot commit " + length);
        }
        open = false;
        window = null;
        BaseConnection c = connection;
        boolean interrupted = Thread.currentThread().isInterrupted();
        try {
            c.checkSendable();
            c.publish(type, length);
            if (type == TYPE_REGION) {
                c.regionsSent++;
            } else {
                c.messagesSent++;
                c.pendingRegions = 0;
            }
        } catch (IllegalStateException | InternalError e) { // an InternalError may be a caller's write into the claim (see BaseConnection.truncated)
            throw c.failed(e, interrupted);
        }
        c.bytesSent += length;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public void abort() {
        if (!open) {
            throw new IllegalStateException("the claim was already committed or aborted");
        }
        open = false;
        window = null;
    }
}
