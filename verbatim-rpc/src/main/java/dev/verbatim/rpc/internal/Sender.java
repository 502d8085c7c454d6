package dev.verbatim.rpc.internal;

import dev.verbatim.rpc.RemoteException;
import dev.verbatim.rpc.RemoteException.Reason;
import dev.verbatim.transport.Claim;
import dev.verbatim.transport.Connection;
import dev.verbatim.transport.TransportException;
import dev.verbatim.wire.WireWriter;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.ReentrantLock;

import static dev.verbatim.rpc.internal.RpcDescriptor.*;

/**
 * Sends the messages of one endpoint (docs/rpc.md §5): calls wait for room, answers never do.
 *
 * <p>A caller {@linkplain #send sends} under the send lock, waiting for room in the peer's window up to
 * the connection's send timeout; a call's regions and the call itself go in one hold of the lock (a
 * region belongs to the next message sent). Whatever answers the peer goes by {@link #answer}, which
 * never waits for the lock or for room: when either is missing the answer goes to the {@link Outbox},
 * sent in order by the next thread that can (a caller before its call, the last holder of the lock as it
 * unlocks, a reader that {@linkplain #tryFlush tries}). Beyond the outbox's limit an answering thread
 * waits for room as a caller does. Messages that leave together in one write wait in the connection's send
 * buffer; which are held, and why, is {@link HeldMessages}'; who writes them when is decided here.
 *
 * <p>Thread-safe: {@link #writer} and the held messages are guarded by the send lock, the outbox by its own.
 */
final class Sender {
    /**
     * The largest estimate a one-pass call claims: a claim is contiguous space in one receive area, so a
     * large estimate would move the sender to a fresh area for every call; larger graphs are sized first.
     */
    private static final long ONE_PASS_MAX = 64 * 1024;

    private final Endpoint endpoint;
    private final Connection connection;
    private final CallEncoder encoder;
    private final Outbox outbox;
    /** The largest message the peer accepts (fixed at the handshake). */
    private final int maxMessage;
    private final ReentrantLock sendLock = new ReentrantLock();
    /** Marshals what is written in place; guarded by {@link #sendLock}. */
    private final WireWriter writer = new WireWriter();
    /** The messages committed and left in the connection's send buffer, and why; guarded by {@link #sendLock}. */
    private final HeldMessages held;
    /** Values too large for one message, sent ahead in pieces. */
    private final OutgoingStreams streams;

    Sender(Endpoint endpoint, Connection connection, CallEncoder encoder, Outbox outbox) {
        this.endpoint = endpoint;
        this.connection = connection;
        this.encoder = encoder;
        this.outbox = outbox;
        this.maxMessage = connection.maxMessageLength();
        this.held = new HeldMessages(connection);
        this.streams = new OutgoingStreams(endpoint, this, maxMessage);
    }

    /** What sends the values too large for one message ahead of it, in pieces. */
    OutgoingStreams streams() {
        return streams;
    }

    /** Whether other threads wait for the send lock, which this one does not hold (a stream lets them go first). */
    boolean othersWaitToSend() {
        return sendLock.hasQueuedThreads() && !sendLock.isHeldByCurrentThread();
    }

    Outbox outbox() {
        return outbox;
    }

    /** Sends as a caller a message whose body a capturing {@link CallEncoder.Body} writes (rare messages). */
    void send(long head, long callId, long bodyBytes, CallEncoder.Body body, PendingCall failIfNotSent) {
        send(head, callId, 0, 0, bodyBytes, CallEncoder.BODY, body, failIfNotSent);
    }

    /**
     * Sends as a caller: waits for the send lock and for room in the peer's window (flow control), up to
     * the send timeout. Only threads that are not answering the peer send this way (calls, lookups); what
     * answers the peer goes by {@link #answer}.
     *
     * @param failIfNotSent the call forgotten if the message cannot be sent, or null
     */
    void send(long head, long callId, long method, long chain, long bodyBytes, CallEncoder.Writer body, Object what,
              PendingCall failIfNotSent) {
        long total = checkLength(headerOf(kindOf(head)) + bodyBytes);
        boolean interrupted = Thread.currentThread().isInterrupted();
        sendLock.lock();
        try {
            // (held more: regions of this message are out, and answers may not come between them and it)
            sendHoldingLock(head, callId, method, chain, total, body, what, failIfNotSent, interrupted,
                    sendLock.getHoldCount() == 1);
        } finally {
            unlockSend();
        }
    }

    /**
     * {@link #send} holding the send lock already (a planned call: a second lock and unlock cost it ~20 ns), the outbox
     * first if {@code flushFirst}: claims {@code total} bytes (waiting for room), writes and commits the message.
     */
    private void sendHoldingLock(long head, long callId, long method, long chain, long total, CallEncoder.Writer body,
                                 Object what, PendingCall failIfNotSent, boolean interrupted, boolean flushFirst) {
        Claim c = null;
        try {
            if (flushFirst && outbox.count() != 0) {
                flushOutbox(true); // answers waiting for room go first
            }
            held.callMayWait(kindOf(head) == CALL && failIfNotSent != null && failIfNotSent.mayHold);
            c = connection.claim((int) total);
            fill(c, head, callId, method, chain, body, what, writer);
        } catch (TransportException e) {
            throw sendFailed(e, failIfNotSent);
        } catch (RuntimeException | Error e) {
            if (endpoint.closedUnder(e, interrupted)) { // the close cut the write into the peer's window
                throw sendFailed(new TransportException(TransportException.Reason.CLOSED,
                        "the connection closed under the message's write", e), failIfNotSent);
            }
            if (failIfNotSent != null) {
                endpoint.calls().forget(failIfNotSent);
            }
            throw e;
        } finally {
            abortIfOpen(c); // (not committed: whatever failed, wherever)
        }
    }

    private long checkLength(long total) {
        if (total > maxMessage) {
            throw new RemoteException(Reason.ARGUMENT, "a message of " + total + " bytes exceeds the connection's maximum of "
                    + maxMessage);
        }
        return total;
    }

    /** Writes a message into claimed space and commits it (the caller gives the claim back if this fails). */
    private void fill(Claim c, long head, long callId, long method, long chain, CallEncoder.Writer body, Object what,
                      WireWriter w) {
        fill(c, head, callId, method, chain, body, what, w, false);
    }

    private void fill(Claim c, long head, long callId, long method, long chain, CallEncoder.Writer body, Object what,
                      WireWriter w, boolean answer) {
        MemorySegment s = c.segment();
        putHeader(s, head, callId, method, chain);
        body.write(encoder, w, s, headerOf(kindOf(head)), what);
        commit(c, -1, answer);
    }

    /**
     * Gives {@code c} back if it is still open: a write that failed, wherever it failed (a StackOverflowError too, even in
     * {@code segment()} or before the commit); null: nothing was claimed. Where a claim is taken, in a {@code finally}.
     */
    private static void abortIfOpen(Claim c) {
        if (c != null && c.isOpen()) {
            c.abort();
        }
    }

    /**
     * Commits a message (all of its claim, or {@code length} bytes), holding it in the connection's send
     * buffer when another message follows at once ({@link HeldMessages#commit}: a thread queued for the send
     * lock, the answers of a poll's batch, an asynchronous call's caller's next call), so that they leave in
     * one write (issue 18 §2). Holding the send lock.
     */
    private void commit(Claim c, int length, boolean answer) {
        if (held.commit(c, length, answer, sendLock.hasQueuedThreads())) {
            HeldAnswers.watch(this); // they may wait for what never comes: the watcher bounds it
        }
    }

    /** Unlocks the send lock; the last holder first sends what the outbox holds, if the window has room. */
    private void unlockSend() {
        boolean last = sendLock.getHoldCount() == 1;
        held.callMayWait(false); // (a send that failed before its commit)
        try {
            if (outbox.count() != 0 && last && endpoint.isOpen()) {
                flushOutbox(false);
            }
            if (last && !sendLock.hasQueuedThreads() && held.leavesOnUnlock()) {
                // nobody queued behind the held message any more (or the thread that was failed before it
                // committed): it leaves now. A thread queued in lock() always gets the lock, so one of them
                // comes here in the end. (Asynchronous calls held for their caller's next one leave by
                // flushCalls, the next message not held, or the watcher.)
                writeHeld();
            }
        } catch (TransportException e) {
            endpoint.closeWith(e.getMessage());
        } finally {
            sendLock.unlock();
        }
        if (last && outbox.count() != 0) {
            // an answer stashed while we held the lock (its own tryFlush found the lock taken) must not wait for the
            // next message or the dispatcher's next look: count first, lock second on its side; unlock first,
            // count second on ours, so one of the two sees the other
            tryFlush();
        }
    }

    /**
     * Sends an answer to the peer (a reply, a failure, a lookup's answer, a release, a cancel) from a thread
     * that may be handling the peer's messages. It never waits for the send lock or for room in the peer's
     * window: when another thread is sending (perhaps waiting for room itself) or the window is full, the
     * answer is encoded into the outbox and sent by the next thread that can (a caller's send, the dispatcher,
     * a leading caller). So the thread that drains this side's window never stops because the peer's is full:
     * two peers calling each other with full windows would otherwise wait on each other until the send
     * timeout. Beyond {@link Outbox#LIMIT} the answering thread waits for room as a caller does.
     */
    void answer(long head, long callId, long bodyBytes, CallEncoder.Writer body, Object what) {
        long total = checkLength(headerOf(kindOf(head)) + bodyBytes);
        if (outbox.count() == 0 && sendLock.tryLock()) {
            boolean interrupted = Thread.currentThread().isInterrupted();
            Claim c = null;
            try {
                c = connection.tryClaim((int) total);
                if (c != null) {
                    fill(c, head, callId, 0, 0, body, what, writer, true);
                    return;
                }
            } catch (TransportException e) {
                endpoint.closeWith(e.getMessage()); // the peer learns nothing more; its calls fail with the connection
                return;
            } catch (IllegalStateException e) {
                if (!endpoint.closedUnder(e, interrupted)) {
                    throw e;
                }
                endpoint.closeWith("the connection closed under an answer's write"); // (as a TransportException above)
                return;
            } finally {
                abortIfOpen(c); // (not committed: whatever failed, wherever)
                unlockSend();
            }
        }
        if (outbox.stash(total, head, callId, body, encoder, what)) {
            endpoint.dispatcher().ensureStarted(); // someone must send it if nobody else does
            tryFlush();
            if (outbox.count() != 0) {
                endpoint.dispatcher().rouse(false); // the peer's window is full: the dispatcher retries
            }
            return;
        }
        try {
            send(head, callId, 0, 0, bodyBytes, body, what, null); // over the limit: wait for room
        } catch (RemoteException e) {
            // the connection failed: the peer learns that instead
        }
    }

    /**
     * Sends what the outbox holds, in order (under the send lock); {@code block}: waits for room as a
     * caller does, else stops at the first message the peer's window has no room for (false).
     */
    private boolean flushOutbox(boolean block) {
        while (true) {
            MemorySegment m = outbox.peek();
            if (m == null) {
                return true;
            }
            int n = (int) m.byteSize();
            Claim c = block ? connection.claim(n) : connection.tryClaim(n);
            if (c == null) {
                return false;
            }
            try {
                MemorySegment.copy(m, 0, c.segment(), 0, n);
                commit(c, -1, true);
            } finally {
                abortIfOpen(c);
            }
            outbox.removeFirst();
        }
    }

    /**
     * The calling thread is about to answer ({@code true}), or has answered ({@code false}), a call that a poll
     * read and ran ({@link IncomingCalls}): while set, its answer may wait in the send buffer ({@link #commit})
     * until the poll ends ({@link #endAnswers}, from {@link Endpoint#poll}). Set only around the answer, never
     * while the call runs: what the call itself does (nested calls, nested polls) is not held.
     */
    void answerMayWait(boolean on) {
        held.answerMayWait(on);
    }

    /** Whether answers wait in the send buffer (a hint: read without the send lock). */
    boolean answersHeld() {
        return held.any();
    }

    /**
     * A poll ends ({@link Endpoint#poll}): what answers left in the send buffer is written now, or, if another
     * thread holds the send lock, by that thread as it unlocks (its answer may not wait) or with its message.
     */
    void endAnswers() {
        if (held.any() && !held.forCaller() && sendLock.tryLock()) {
            try {
                if (held.any() && !held.forCaller() && endpoint.isOpen()) {
                    writeHeld();
                }
            } catch (TransportException e) {
                endpoint.closeWith(e.getMessage());
            } finally {
                unlockSend();
            }
        }
    }

    /** Writes what is held in the connection's send buffer now (holding the send lock). */
    private void writeHeld() {
        held.write();
    }

    /**
     * Writes the asynchronous calls held for their caller's next one ({@link #commit}) once the caller stopped
     * starting calls: when {@code now} is true (the dispatcher is about to sleep, or a thread is about to wait
     * for a future), or when no call was held since {@code seen}, the count this returned last time (the
     * dispatcher's previous look: two looks in a row that saw no new call). Returns the count to pass next time.
     * A thread holding the send lock sends them itself (with its message, or as it unlocks, if it is not one of
     * those calls' caller) or the next look does.
     */
    int flushCalls(boolean now, int seen) {
        if (!held.forCaller()) {
            return seen;
        }
        int n = held.callsHeld();
        if ((now || n == seen) && sendLock.tryLock()) {
            try {
                if (held.any() && held.forCaller() && endpoint.isOpen()) {
                    writeHeld();
                }
            } catch (TransportException e) {
                endpoint.closeWith(e.getMessage());
            } finally {
                unlockSend();
            }
        }
        return n;
    }

    /** Whether asynchronous calls wait in the send buffer for their caller's next one (a hint, read without the lock). */
    boolean callsHeld() {
        return held.forCaller();
    }

    /** When answers began to wait for their batch, or 0 ({@link HeldAnswers}). */
    long heldSince() {
        return held.since();
    }

    /**
     * Writes the answers that have waited for their batch since {@code since} or before, if the send lock is free
     * (the watcher, {@link HeldAnswers}: the thread of the batch runs a call that takes long). A holder of the lock
     * sends them itself.
     */
    void writeHeldAnswers(long since) {
        if (held.since() != 0 && held.since() - since <= 0 && sendLock.tryLock()) {
            try {
                if (!endpoint.isOpen()) {
                    held.unwatch(); // closing wrote them, or they are lost with the connection: nothing to watch
                } else if (held.any() && held.since() != 0) {
                    writeHeld();
                }
            } catch (TransportException e) {
                held.unwatch();
                endpoint.closeWith(e.getMessage());
            } finally {
                unlockSend();
            }
        }
    }

    /** Sends what the outbox holds if the send lock is free and the peer's window has room. */
    void tryFlush() {
        while (outbox.count() != 0 && sendLock.tryLock()) {
            boolean emptied;
            try {
                if (!endpoint.isOpen()) {
                    return;
                }
                emptied = flushOutbox(false);
            } catch (TransportException e) {
                endpoint.closeWith(e.getMessage());
                return;
            } finally {
                sendLock.unlock();
            }
            if (!emptied) {
                return; // the peer's window is full: the dispatcher retries (waitNanos)
            }
            // else look again: an answer stashed while we held the lock found it taken
        }
    }

    /** A send that failed in the transport: the connection is closed, the call (if any) forgotten. */
    private RemoteException sendFailed(TransportException e, PendingCall failIfNotSent) {
        if (failIfNotSent != null) {
            endpoint.calls().forget(failIfNotSent);
        }
        endpoint.closeWith(e.getMessage());
        return new RemoteException(e.reason() == TransportException.Reason.TIMEOUT ? Reason.NOT_SENT : Reason.CONNECTION,
                "sending on " + endpoint.description() + " failed: " + e.getMessage(), e);
    }

    // ------------------------------------------------------------------ calls

    /** Sends call {@code p} of {@code mi} on {@code b} with {@code args}: planned, regions first, then the call. */
    void sendCall(Binding b, RemoteInterface.MethodInfo mi, Object[] args, PendingCall p) {
        int flags = b.flags;
        if (mi.primitivesOnly) { // nothing to plan, no regions
            send(head(CALL, flags, args.length, b.target), p.id, mi.id, p.chain,
                    (long) args.length * (VALUE_HEADER + 8), CallEncoder.PRIMITIVES, args, p);
            return;
        }
        CallEncoder.Planned[] streamed = streams.arguments(mi, args, p); // null unless an argument is too large for a region
        sendLock.lock(); // held across planning and regions, so the regions precede this very message
        CallEncoder.Planned[] plan = null;
        boolean sent = false;
        try {
            if (outbox.count() != 0 && sendLock.getHoldCount() == 1) {
                flushOutbox(true); // before any region: a region belongs to the next message sent
            }
            plan = new CallEncoder.Planned[mi.params.length];
            long body = 0;
            boolean unsized = false;
            for (int i = 0; i < plan.length; i++) {
                plan[i] = streamed != null && streamed[i] != null ? streamed[i]
                        : encoder.plan(mi.params[i], args[i], mi, true, true, writer);
                if (plan[i].payload() < 0) {
                    unsized = true;
                } else {
                    body += span(plan[i].payload());
                }
            }
            long head = head(CALL, flags, plan.length, b.target);
            p.reportAnswer = encoder.reportAnswer(plan); // (before the send: the answer may come at once)
            if (unsized) {
                if (onePass(head, mi, p, plan, body)) {
                    sent = true;
                    return;
                }
                long graphs = 0; // the graphs did not fit the space the last calls needed: size them first
                for (int i = 0; i < plan.length; i++) {
                    if (plan[i].payload() < 0) {
                        plan[i] = encoder.plan(mi.params[i], args[i], mi, false, true, writer);
                        graphs += span(plan[i].payload());
                    }
                }
                body += graphs;
                mi.graphBytes = (int) Math.min(Integer.MAX_VALUE, graphs);
            }
            sendHoldingLock(head, p.id, mi.id, p.chain, checkLength(HEADER + body), CallEncoder.PLANNED, plan, p,
                    Thread.currentThread().isInterrupted(), false); // (the outbox went before the regions: none after them)
            sent = true;
        } catch (TransportException e) {
            throw sendFailed(e, p);
        } catch (RuntimeException | Error e) {
            endpoint.calls().forget(p); // whatever failed (an accessor of a view argument, say), nothing waits for a reply
            throw e;
        } finally {
            if (!sent && plan != null) {
                encoder.unsent(plan); // the peer never learnt of the references planning counted
            }
            unlockSend();
            if (!sent && streamed != null) {
                streams.cancel(p.id);
            }
        }
    }

    /**
     * Writes a call whose graphs were not sized, in one pass: claims the space the method's graphs took
     * last time and a half more, writes them with {@link WireWriter#tryWrite}, and commits what was used.
     * False (nothing sent) when a graph did not fit, on a method's first call, or when the estimate is
     * large: the caller then sizes the graphs and sends in two passes.
     */
    private boolean onePass(long head, RemoteInterface.MethodInfo mi, PendingCall p, CallEncoder.Planned[] plan,
                            long sized) {
        long last = mi.graphBytes;
        if (last <= 0 || last + (last >> 1) > ONE_PASS_MAX) {
            return false;
        }
        long total = Math.min(connection.maxMessageLength(), HEADER + sized + last + (last >> 1) + 64);
        Claim c;
        try {
            c = connection.claim((int) total);
        } catch (TransportException e) {
            throw sendFailed(e, p);
        }
        try {
            MemorySegment s = c.segment();
            putHeader(s, head, p.id, mi.id, p.chain);
            long at = HEADER;
            long graphs = 0;
            for (CallEncoder.Planned v : plan) {
                if (v.payload() >= 0) {
                    at = encoder.put(s, at, v, writer);
                    continue;
                }
                long n;
                try {
                    n = writer.tryWrite(v.value(), s, at + VALUE_HEADER);
                } catch (IllegalArgumentException e) {
                    throw CallEncoder.cannotPass(mi, v.value().getClass(), e);
                }
                long end = at + span(n);
                if (n < 0 || end > s.byteSize()) {
                    return false;
                }
                putValueHeader(s, at, T_WIRE, n);
                s.asSlice(at + VALUE_HEADER + n, end - at - VALUE_HEADER - n).fill((byte) 0);
                graphs += span(n);
                at = end;
            }
            held.callMayWait(p.mayHold);
            commit(c, (int) at, false);
            mi.graphBytes = (int) graphs; // the latest size, not the largest: one big call does not inflate every later claim
            return true;
        } catch (TransportException e) {
            throw sendFailed(e, p);
        } finally {
            abortIfOpen(c); // (not committed, or an Error before the commit closed it)
        }
    }

    /** Gives back the references a planned value counted, when it is not sent after all. */
    void unsent(CallEncoder.Planned v) {
        encoder.unsent(v);
    }

    /**
     * Plans a result: no regions (an answer never waits for room, and a region cannot be tried; large
     * arrays go inline, which on shm and tcp is the same one copy), sized with the outbox's writer.
     */
    CallEncoder.Planned planResult(ValueKind k, Object v, RemoteInterface.MethodInfo mi) {
        synchronized (outbox.lock()) {
            return encoder.plan(k, v, mi, false, false, outbox.writer());
        }
    }
}
