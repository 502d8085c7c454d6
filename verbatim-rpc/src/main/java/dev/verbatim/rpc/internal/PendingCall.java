package dev.verbatim.rpc.internal;

import java.lang.foreign.MemorySegment;

import dev.verbatim.rpc.RemoteException;
import dev.verbatim.rpc.RemoteException.Reason;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * An entry of the {@link CallTable}: one outgoing call (or lookup) waiting for its answer, completed by
 * whichever thread reads the answer. It also holds its caller's <em>delegate inbox</em>: calls nested
 * in the call's chain that another thread read, handed over for the waiting caller to run (J-RPC's
 * delegate threads; see {@link ReadLeader}).
 *
 * <p>Threads: the calling thread waits (and reads {@link #deadline}); the reading thread completes it,
 * sets {@link #answered} and offers nested calls under the read lock; {@link #cancel} may come from any
 * thread.
 */
final class PendingCall extends CompletableFuture<Object> {
    final RemoteInterface.MethodInfo method;
    final long timeoutNanos;
    /**
     * When the call times out; 0 until first needed. A synchronous call reads the clock only once it
     * has waited a while (a clock read costs as much as a tenth of a call); an asynchronous one at once.
     * Read and written by the waiting thread (or, for an asynchronous call, set before it is shared).
     */
    private long deadline;
    final Endpoint endpoint;
    final long id;
    /** The call chain the call belongs to (0 for a lookup). */
    final long chain;
    /** The thread waiting for the reply (null for an asynchronous call): nested calls of its chain run on it. */
    final Thread caller;
    /**
     * Whether the call, asynchronous, may wait in the send buffer for the next calls its caller starts (set
     * before it is sent: {@link Endpoint#call}, {@link Sender#flushCalls}).
     */
    boolean mayHold;
    /** For a lookup: the interface looked up (to name what the server lacks). */
    RemoteInterface lookingUp;
    /** Whether the call waits in the endpoint's solo slot (set by its caller before it waits). */
    boolean inSlot;
    /** For a nested wait ({@link ChainDirectory#enter}): the wait of its chain it hides until it leaves, or null. */
    PendingCall hides;
    /** For a nested wait: its caller stopped waiting ({@link ChainDirectory#leave}); it is never the innermost again. */
    volatile boolean left;
    /**
     * The {@code T_SHARED} values the call carried whose reading the object layer is told of when the peer answers
     * ({@link NodeExtension#wantsAnswer}), or null (most calls). Set before the call is sent.
     */
    volatile MemorySegment[] reportAnswer;
    volatile Thread waiter;
    /** Nested calls of this chain read by another thread, for {@link #caller} to run. */
    private ArrayDeque<Runnable> inbox;
    private volatile boolean inboxClosed;
    /** Set before a hand-over looks at {@link #inboxClosed}: the closing caller then drains under the lock. */
    private volatile boolean offered;
    volatile boolean hasTasks;

    PendingCall(Endpoint endpoint, long id, RemoteInterface.MethodInfo method, long timeoutNanos, long chain, Thread caller) {
        this.endpoint = endpoint;
        this.id = id;
        this.method = method;
        this.timeoutNanos = timeoutNanos;
        this.chain = chain;
        this.caller = caller;
        if (caller == null) {
            deadline();
        }
    }

    /** When the call times out (fixed by the first look). */
    long deadline() {
        long d = deadline;
        if (d == 0) {
            d = System.nanoTime() + timeoutNanos;
            d = d == 0 ? 1 : d; // 0 means "not yet"
            deadline = d;
        }
        return d;
    }

    // A thread blocking on an asynchronous call's future reads the connection meanwhile: the
    // reply must not depend on the dispatcher being free (it may be the very thread blocking).

    @Override
    public Object join() {
        if (!isDone() && caller == null) {
            endpoint.help(this, deadline());
        }
        return super.join();
    }

    @Override
    public Object get() throws InterruptedException, java.util.concurrent.ExecutionException {
        if (!isDone() && caller == null) {
            endpoint.help(this, deadline());
        }
        return super.get();
    }

    @Override
    public Object get(long timeout, TimeUnit unit) throws InterruptedException, java.util.concurrent.ExecutionException,
            java.util.concurrent.TimeoutException {
        long until = System.nanoTime() + unit.toNanos(timeout);
        if (!isDone() && caller == null) {
            endpoint.help(this, deadline() - until < 0 ? deadline() : until);
        }
        return super.get(Math.max(0, until - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    /**
     * Set (under the read lock) when the call's answer was read. Every nested call of its chain comes
     * before its answer (the peer answers when the call, nested calls included, is over), and
     * messages are handled one at a time under the read lock: once this is set, no hand-over can
     * come, so a caller woken by the answer drains its inbox without closing it (no fence). A nested
     * call that still comes (a broken peer) is refused here and runs on the dispatcher.
     */
    boolean answered;

    /** Hands a nested call to the waiting caller (under the read lock); false once it stopped waiting. */
    boolean offer(Runnable task) {
        if (answered) {
            return false;
        }
        offered = true;
        synchronized (this) {
            if (inboxClosed) {
                return false;
            }
            if (inbox == null) {
                inbox = new ArrayDeque<>();
            }
            inbox.add(task);
            hasTasks = true;
        }
        LockSupport.unpark(caller);
        return true;
    }

    /** Whether a nested call was ever offered (its caller then drains the inbox under the lock). */
    boolean wasOffered() {
        return offered;
    }

    /** The next handed-over call; with {@code close}, no more are accepted. */
    Runnable nextTask(boolean close) {
        if (close) {
            inboxClosed = true;
            if (!offered) {
                return null; // nothing was or can be handed over: no lock on the common path
            }
        }
        synchronized (this) {
            Runnable t = inbox == null ? null : inbox.poll();
            hasTasks = inbox != null && !inbox.isEmpty();
            return t;
        }
    }

    @Override
    public boolean cancel(boolean mayInterrupt) {
        if (endpoint.forget(this)) {
            endpoint.sendCancel(id);
        }
        return completeExceptionally(new RemoteException(Reason.CANCELLED, "the call was cancelled"))
                || isCancelled();
    }

    void wake() {
        Thread w = waiter;
        if (w != null) {
            LockSupport.unpark(w);
        }
    }
}
