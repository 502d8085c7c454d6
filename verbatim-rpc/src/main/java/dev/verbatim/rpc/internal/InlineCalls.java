package dev.verbatim.rpc.internal;

import dev.verbatim.transport.Delivery;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The incoming calls of one endpoint that run inline, on the thread that read them (docs/rpc.md §4): that
 * thread gives the read lock away for the call's duration (so what the call waits for can still be read)
 * and takes it back after only if it is still free. A call read in a poll's callback is <em>deferred</em>
 * until the poll returned ({@link #defer}, {@link #runDeferred}): the transport goes on with its reader's
 * state when a callback returns, which must not happen while another thread reads. Split from
 * {@link IncomingCalls}, which decides which thread runs a call; this class only runs the inline ones.
 *
 * <p>The deferred call is confined to the holder of the read lock.
 */
final class InlineCalls {
    private final IncomingCalls calls;
    private final Endpoint endpoint;
    private final ReadLeader leader;

    InlineCalls(IncomingCalls calls, Endpoint endpoint, ReadLeader leader) {
        this.calls = calls;
        this.endpoint = endpoint;
        this.leader = leader;
    }

    /**
     * A call a poll's callback read to run inline, waiting for the poll to return ({@link #runDeferred}).
     * Reused; written and read only by the holder of the read lock, always the same thread in between.
     */
    private static final class Deferred {
        Delivery kept;
        MemorySegment message;
        Object[] args;
        long callId;
        long chain;
        RemoteInterface remote;
        RemoteInterface.MethodInfo method;
        Object impl;
        boolean details;

        void clear() {
            kept = null;
            message = null;
            args = null;
            remote = null;
            method = null;
            impl = null;
        }
    }

    private final Deferred deferred = new Deferred();

    /**
     * Whether a call read by the poll running now waits to run inline once the poll returned: the poll's
     * handler then answers {@code STOP}.
     */
    boolean hasDeferred() {
        return deferred.method != null;
    }

    /**
     * Readies a call read in a poll's callback to run inline after the poll returned. Its arguments are
     * read now, while the delivery is valid and this thread reads (views and segments keep the delivery,
     * retained); it must not run inside the callback: it gives the read lock away, and another thread
     * may read on before it ends, while the transport, once the callback returns, goes on with its
     * reader's state (it invalidates the delivery it handed out) on this thread.
     */
    boolean defer(Delivery d, MemorySegment m, long callId, long chain, RemoteInterface ri,
                                RemoteInterface.MethodInfo mi, Object impl, boolean details) {
        assert deferred.method == null : "a second call to run inline in one poll (its handler must answer STOP)";
        Delivery kept = mi.inPlace ? d.retain() : null;
        Object[] args = calls.arguments(kept == null ? d : kept, m, callId, mi);
        if (args == null) {
            if (kept != null) {
                kept.release();
            }
            return false;
        }
        Deferred c = deferred;
        c.kept = kept;
        c.message = m;
        c.args = args;
        c.callId = callId;
        c.chain = chain;
        c.remote = ri;
        c.method = mi;
        c.impl = impl;
        c.details = details;
        return false; // the transport's delivery: a retained one is the deferred call's
    }

    /**
     * Runs the call the last poll read to run inline, if any (after the poll returned, holding the read
     * lock): see {@link #runInline}. The calling thread may have lost the read lock when this returns.
     */
    void runDeferred() {
        Deferred c = deferred;
        RemoteInterface.MethodInfo mi = c.method;
        if (mi == null) {
            return;
        }
        Delivery kept = c.kept;
        MemorySegment m = c.message;
        Object[] args = c.args;
        long callId = c.callId;
        long chain = c.chain;
        RemoteInterface ri = c.remote;
        Object impl = c.impl;
        boolean details = c.details;
        c.clear(); // before the call: a poll inside it may defer a call of its own
        boolean keep = false;
        try {
            keep = runGivingLockAway(kept, m, args, callId, chain, ri, mi, impl, details, true);
        } finally {
            if (kept != null && !keep) {
                kept.release();
            }
        }
    }

    /**
     * Runs a call on the thread that took its delivery ({@code owned}), giving the read lock away while it
     * runs; the arguments are read first, while this thread still reads.
     */
    boolean runInline(Delivery d, MemorySegment m, long callId, long chain, RemoteInterface ri,
                              RemoteInterface.MethodInfo mi, Object impl, boolean details) {
        Object[] args = calls.arguments(d, m, callId, mi); // before the read lock goes: see IncomingCalls.arguments
        return args != null && runGivingLockAway(d, m, args, callId, chain, ri, mi, impl, details, false);
    }

    /**
     * Runs a call whose arguments were read, giving the read lock away while it runs (so what the call
     * waits for can still be read) and taking it back after, only if still free: a thread that finds it
     * taken leaves it to the new holder and stops reading ({@link ReadLeader#holds()}).
     */
    private boolean runGivingLockAway(Delivery d, MemorySegment m, Object[] args, long callId, long chain,
                                      RemoteInterface ri, RemoteInterface.MethodInfo mi, Object impl, boolean details,
                                      boolean answerMayWait) {
        ReentrantLock recvLock = leader.lock();
        boolean reading = recvLock.isHeldByCurrentThread();
        if (reading) {
            recvLock.unlock();
        }
        Dispatcher dispatcher = endpoint.dispatcher();
        boolean dispatching = reading && dispatcher.thread() == Thread.currentThread();
        try {
            return calls.run(d, m, args, callId, chain, ri, mi, impl, details, answerMayWait);
        } finally {
            // take the lock back unless it went to another thread (it reads on, this one stops), or this
            // thread was the dispatcher and handed its role off during the call (the new dispatcher reads)
            if (reading && (!dispatching || dispatcher.thread() == Thread.currentThread())) {
                recvLock.tryLock();
            }
        }
    }
}
