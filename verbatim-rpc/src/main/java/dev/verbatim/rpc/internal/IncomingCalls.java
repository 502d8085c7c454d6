package dev.verbatim.rpc.internal;

import dev.verbatim.rpc.RemoteException;
import dev.verbatim.rpc.RemoteException.Reason;
import dev.verbatim.transport.Delivery;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.verbatim.rpc.internal.RpcDescriptor.*;

/**
 * The peer's calls and lookups arriving at one endpoint (Cap'n Proto's "answers"; docs/rpc.md §3 and
 * §4): finds the target (a named export, or an object of the {@link ExportedObjects export table}) and
 * the method, picks the thread that runs the call, reads the arguments, runs it with its chain as the
 * thread's {@link CallContext}, and answers ({@link CallAnswers}: {@code REPLY}, {@code THROWN} or
 * {@code FAIL}). A named export is found only if the peer looked it up over this connection ({@link Grants}).
 *
 * <p>Which thread runs a call (J-RPC's delegate threads): a call nested in a chain one of our callers
 * waits in runs on that caller (inline if it read it, else handed to its inbox); any other runs on a
 * virtual thread when the export asks, else on the dispatcher (inline when the dispatcher is the
 * reader, else queued to it), never on an unrelated waiting caller. A thread running a call inline gives
 * the read lock away for the call's duration and takes it back only if still free; if not, it stops
 * reading. A call read in a poll's callback runs after the poll returned, never inside the callback
 * (the poll's handler answers {@code STOP}): the transport goes on with its reader's state when a
 * callback returns, which must not happen while another thread reads.
 *
 * <p>Thread-safe.
 */
final class IncomingCalls {
    private static final int MAX_VIRTUAL_CALLS = 1024;
    private static final int MAX_ASYNC_CALLS = 4096;
    private static final Object[] NO_ARGS = {};

    private final Endpoint endpoint;
    private final Exports exports;
    /** The named exports the peer looked up: the only ones its calls may name. */
    private final Grants grants;
    private final ExportedObjects exported;
    private final CallTable calls;
    private final Sender sender;
    /** REPLY, THROWN and FAIL, with what the export discloses. */
    private final CallAnswers answers;
    private final ValueDecoder decoder;
    /** The peer's streamed values: a call's are freed when it ends (docs/rpc.md §7). */
    private final IncomingStreams streams;
    /** The node's object layer ({@code TO_SHARED} calls), or null: such calls are then refused. */
    private final NodeExtension extension;
    /** The node's chains across connections, or null: a nested call then finds its caller on this connection only. */
    private final ChainDirectory chains;
    private final Semaphore virtualCalls = new Semaphore(MAX_VIRTUAL_CALLS);
    private final AtomicInteger asyncCalls = new AtomicInteger();
    /** Calls of the peer that can be cancelled: running on our virtual threads, or asynchronous. */
    private final Map<Long, Running> running = new ConcurrentHashMap<>();
    /** The calls that run on the thread that read them. */
    private final InlineCalls inlineCalls;

    IncomingCalls(Endpoint endpoint, Exports exports, Grants grants, ExportedObjects exported, CallTable calls,
                  ReadLeader leader, Sender sender, ValueDecoder decoder, NodeExtension extension, ChainDirectory chains) {
        this.grants = grants;
        this.extension = extension;
        this.chains = chains;
        this.endpoint = endpoint;
        this.exports = exports;
        this.exported = exported;
        this.calls = calls;
        this.sender = sender;
        this.answers = new CallAnswers(sender);
        this.decoder = decoder;
        this.streams = decoder.streams();
        this.inlineCalls = new InlineCalls(this, endpoint, leader);
    }

    /** Whether a call read by the poll running now waits to run inline once the poll returned ({@link InlineCalls#hasDeferred}). */
    boolean hasDeferred() {
        return inlineCalls.hasDeferred();
    }

    /** Runs the call the last poll read to run inline, if any ({@link InlineCalls#runDeferred}). */
    void runDeferred() {
        inlineCalls.runDeferred();
    }

    ValueDecoder decoder() {
        return decoder;
    }

    /** A call a CANCEL can reach: its virtual thread (interrupted) or its future (cancelled). */
    private static final class Running {
        private final Thread thread;
        private final CompletableFuture<?> future;
        private boolean over;

        Running(Thread thread, CompletableFuture<?> future) {
            this.thread = thread;
            this.future = future;
        }

        synchronized void cancel() {
            if (!over) {
                if (thread != null) {
                    thread.interrupt();
                } else {
                    future.cancel(true);
                }
            }
        }

        /** The call is over: no interrupt comes after this returns. */
        synchronized void end() {
            over = true;
        }
    }

    /** The peer no longer waits for its call {@code callId}: interrupt or cancel it if that can be done. */
    void cancel(long callId) {
        Running r = running.remove(callId);
        if (r != null) {
            r.cancel();
        }
        if (streams.any()) {
            streams.endCall(callId, false); // what it streamed for a call that never came, or that will not run
        }
    }

    /**
     * Handles a {@code CALL}. {@code owned}: {@code d} came from take and the reading thread releases it,
     * unless this returns true (another thread runs the call and took the delivery over, or an asynchronous
     * method still reads it). A call to run inline on a thread that took {@code d} runs now (the thread
     * may have lost the read lock when this returns: see {@link ReadLeader#holds()}); one read in a poll's
     * callback is {@linkplain InlineCalls#defer deferred} until the poll returned.
     */
    boolean onCall(Delivery d, MemorySegment m, boolean owned) {
        long callId = callId(m);
        long methodId = method(m);
        int target = target(m);
        int flags = flags(m);
        boolean toObject = (flags & TO_OBJECT) != 0;
        RemoteInterface ri;
        Object impl;
        boolean virtual = false;
        boolean details = false; // what an undeclared exception or an internal error tells the caller
        if ((flags & TO_SHARED) != 0) {
            NodeExtension.Target t = extension == null ? null : extension.target(target);
            ri = t == null ? null : t.declaring(methodId);
            if (ri == null) {
                endpoint.releaseUnread(m, HEADER);
                answers.fail(FAIL, callId, Reason.NOT_FOUND, (t == null ? "shared object #" + target + " is not held by "
                        : "shared object #" + target + " has no method with id " + String.format("%016x", methodId)
                        + " at ") + endpoint.description());
                return false;
            }
            impl = t.impl();
            virtual = t.virtualThreads();
            details = true; // the object layer's shared objects fail as local objects would (docs/objects.md)
        } else if (toObject) {
            ExportedObjects.Entry l = exported.get(target);
            if (l == null) {
                endpoint.releaseUnread(m, HEADER);
                answers.fail(FAIL, callId, Reason.NOT_FOUND, "object #" + target + " is no longer exported by "
                        + endpoint.description());
                return false;
            }
            ri = l.remote();
            impl = l.impl();
        } else {
            Exports.Export e = grants.has(target) ? exports.byId(target) : null;
            if (e == null) { // never looked up here, unexported, or unknown: all alike to the peer
                endpoint.releaseUnread(m, HEADER);
                answers.fail(FAIL, callId, Reason.NOT_FOUND, "no export #" + target + " at " + endpoint.description()
                        + " for this connection (it was not looked up over it, or was unexported)");
                return false;
            }
            Exports.Bound bound = e.bound;
            ri = bound.remote();
            impl = bound.impl();
            virtual = e.options.virtualThreads();
            details = e.options.errorDetails();
        }
        RemoteInterface.MethodInfo mi = ri.byId(methodId);
        if (mi == null) {
            endpoint.releaseUnread(m, HEADER);
            answers.fail(FAIL, callId, Reason.INCOMPATIBLE, ri.type.getName() + " has no method with id "
                    + String.format("%016x", methodId));
            return false;
        }
        int count = m.get(ValueLayout.JAVA_SHORT_UNALIGNED, COUNT);
        if (count != mi.params.length) {
            endpoint.protocol("a call of " + mi.signature + " with " + count + " arguments");
            return false;
        }
        if (mi.async && asyncCalls.get() >= MAX_ASYNC_CALLS) {
            endpoint.releaseUnread(m, HEADER);
            answers.fail(FAIL, callId, Reason.OVERLOADED, MAX_ASYNC_CALLS + " asynchronous calls are already running at "
                    + endpoint.description());
            return false;
        }
        // Which thread runs it (J-RPC's delegate threads): a nested call of a chain one of our
        // callers waits in runs on that caller (as a local call would: its monitors are re-entered,
        // not deadlocked on); any other call never runs on a waiting caller, but on a virtual thread
        // (if the export asks) or on the dispatcher, inline when the dispatcher is the one reading.
        long chain = chain(m);
        Thread me = Thread.currentThread();
        PendingCall delegate = chain == 0 ? null : delegateIn(chain);
        boolean inline = delegate != null ? delegate.caller == me
                : !virtual && me == endpoint.dispatcher().thread() && !calls.callersWait()
                        && CallContext.current().waiting == 0; // (a dispatcher waiting in a chain runs only its own calls)
        if (inline) {
            return owned ? inlineCalls.runInline(d, m, callId, chain, ri, mi, impl, details)
                    : inlineCalls.defer(d, m, callId, chain, ri, mi, impl, details);
        }
        Delivery kept = owned ? d : d.retain(); // the arguments stay readable on the thread that runs the call
        final RemoteInterface fri = ri;
        final Object fimpl = impl;
        final boolean fdetails = details;
        Runnable task = () -> {
            boolean keep = false;
            boolean interrupted = Thread.currentThread().isInterrupted();
            try {
                Object[] args = arguments(kept, kept.payload(), callId, mi);
                if (args != null) {
                    keep = run(kept, kept.payload(), args, callId, chain, fri, mi, fimpl, fdetails, false);
                }
            } catch (IllegalStateException closed) {
                // the connection closed before the call ran: its caller learnt that already
                if (!endpoint.closedUnder(closed, interrupted)) { // else a failure of this side's: no call left unanswered
                    endpoint.closeWith("a call could not be run: " + closed);
                }
            } catch (Error e) { // (out of memory or stack outside the method itself: the method's own are answered)
                endpoint.closeWith("a call could not be run: " + e);
                throw e;
            } finally {
                if (!keep) {
                    Endpoint.releaseQuietly(kept);
                }
            }
        };
        if (delegate != null && delegate.offer(task)) {
            if (chains != null) {
                chains.handedOver();
            }
            if (delegate.endpoint != endpoint) {
                delegate.endpoint.wakeReader(); // it may sleep in its own connection's transport
            }
            return true;
        }
        if (virtual) {
            if (virtualCalls.tryAcquire()) {
                startVirtual(task);
            } else {
                // back-pressure: the dispatcher waits for a running call to end, outside the read
                // lock, so that the running calls' own nested calls still get their replies
                endpoint.dispatcher().queue(() -> {
                    if (acquireVirtual()) {
                        startVirtual(task);
                    } else {
                        Endpoint.releaseQuietly(kept);
                    }
                });
            }
            return true;
        }
        endpoint.dispatcher().queue(task);
        return true;
    }

    /** Answers a {@code LOOKUP}: the export's id, or why not. */
    void onLookup(MemorySegment m) {
        long callId = callId(m);
        long at = HEADER;
        String name = ValueDecoder.string(m, at);
        at = checkValue(m, at);
        String iface = ValueDecoder.string(m, at);
        at = checkValue(m, at);
        long[] ids = ValueDecoder.longs(m, at);
        Exports.Export e = exports.byName(name);
        if (e == null) {
            answers.fail(LOOKUP_FAIL, callId, Reason.NOT_FOUND, "nothing is exported as '" + ExceptionRebuilder.clip(name) + "' at "
                    + endpoint.description());
            return;
        }
        RemoteInterface server = e.bound.remote();
        List<Long> missing = new ArrayList<>();
        for (long id : ids) {
            if (server.byId(id) == null) {
                missing.add(id);
            }
        }
        if (!missing.isEmpty()) {
            // the export's own interface is not named: the peer was not given it
            byte[] msg = ("'" + ExceptionRebuilder.clip(name) + "' lacks " + missing.size() + " method(s) of "
                    + ExceptionRebuilder.clip(iface)).getBytes(StandardCharsets.UTF_8);
            long[] ms = missing.stream().limit(256).mapToLong(Long::longValue).toArray();
            MemorySegment a = MemorySegment.ofArray(msg);
            MemorySegment b = MemorySegment.ofArray(ms);
            sender.answer(head(LOOKUP_FAIL, Reason.INCOMPATIBLE.code(), 2, 0), callId, span(msg.length) + span(b.byteSize()),
                    CallEncoder.BODY, (CallEncoder.Body) (s, at2) -> CallEncoder.putBytes(s, CallEncoder.putBytes(s, at2, a), b));
            return;
        }
        grants.grant(e.id); // before the answer: the peer's first call may follow at once
        sender.answer(head(LOOKUP_OK, 0, 0, e.id), callId, 0, CallEncoder.NOTHING, null);
    }

    /**
     * The synchronous call waiting in {@code chain} whose thread runs the chain's nested calls, or null: the chain's
     * innermost wait first, over whichever connection it waits (its thread reads no other inbox), then this
     * connection's latest call of the chain, then the call that started it over another connection of the node.
     */
    private PendingCall delegateIn(long chain) {
        PendingCall delegate = chains == null ? null : chains.innermost(chain);
        if (delegate == null && !calls.isEmpty()) {
            delegate = calls.waitingIn(chain);
        }
        if (delegate == null && chains != null) { // a chain that came back by another connection
            delegate = chains.waitingIn(chain, endpoint);
        }
        return delegate;
    }

    private void startVirtual(Runnable task) {
        Thread.ofVirtual().name("verbatim-rpc-call").start(() -> {
            try {
                CallContext.current().callThread = true;
                task.run();
            } finally {
                virtualCalls.release();
            }
        });
    }

    private boolean acquireVirtual() {
        try {
            while (endpoint.isOpen()) {
                if (virtualCalls.tryAcquire(WaitPolicy.VIRTUAL_SLOT_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                    return true;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return false;
    }

    /**
     * Reads a call's arguments (views and segments in place); null when they cannot be read: the caller
     * was told why and the connection is closed. A reading thread decodes before it gives the read lock
     * away: once another thread reads on, a callback's delivery is gone (its area may be reused).
     */
    Object[] arguments(Delivery d, MemorySegment m, long callId, RemoteInterface.MethodInfo mi) {
        if (mi.params.length == 0) {
            return NO_ARGS;
        }
        Object[] args = new Object[mi.params.length];
        long at = HEADER;
        boolean interrupted = Thread.currentThread().isInterrupted();
        try {
            for (int i = 0; i < args.length; i++) {
                args[i] = decoder.read(d, m, at, mi.params[i]);
                at = checkValue(m, at);
            }
            return args;
        } catch (dev.verbatim.rpc.RemoteException over) {
            if (over.reason() != Reason.OVERLOADED) {
                throw over;
            }
            // a streamed argument beyond this side's limit: refused, typed; the connection stays
            streams.endCall(callId, true);
            answers.fail(FAIL, callId, Reason.OVERLOADED, "the arguments of " + mi.signature + " could not be read: "
                    + over.getMessage());
            return null;
        } catch (InternalError e) { // a shm peer truncated the window under the call (see Endpoint.truncated)
            endpoint.closeWith("the peer sent a call of " + mi.signature + " that could not be read: "
                    + Endpoint.truncated(e));
            return null;
        } catch (RuntimeException | Error e) {
            endpoint.closedUnder(e, interrupted); // (closed under the decode: JDK-8306324)
            // a malformed call, or one this side failed to read (an Error: a record's constructor threw one, the
            // stack or the heap ran out): the caller learns why at once, then the connection is dropped (other
            // connections go on); the message is released by whoever took it, and nothing waits for an answer
            String detail = e instanceof RuntimeException ? e.getMessage() : e.toString();
            String why = "the arguments of " + mi.signature + " could not be read: " + detail;
            try {
                byte[] b = why.getBytes(StandardCharsets.UTF_8);
                MemorySegment bytes = MemorySegment.ofArray(b);
                sender.send(head(FAIL, Reason.PROTOCOL.code(), 1, 0), callId, span(b.length),
                        (s, a) -> CallEncoder.putBytes(s, a, bytes), null); // waits for room: nothing comes after it
            } catch (RuntimeException ignored) {
                // the connection failed first
            } finally {
                // a RuntimeException: the call could not be read as sent (malformed, or naming what this side cannot
                // read, such as a zone region its rules lack); an Error: this side failed reading it (out of stack...)
                endpoint.closeWith(e instanceof RuntimeException ? "the peer sent a call of " + mi.signature
                        + " whose arguments could not be read: " + detail
                        : "this side failed reading a call of " + mi.signature + ": " + detail);
            }
            return null;
        }
    }

    /**
     * Runs a call whose arguments were read (with its chain as this thread's, so nested calls carry it)
     * and replies. Returns true when an asynchronous method still reads its in-place arguments: {@code d}
     * is then released when its future completes, not by the caller.
     */
    boolean run(Delivery d, MemorySegment m, Object[] args, long callId, long chain, RemoteInterface ri,
                RemoteInterface.MethodInfo mi, Object impl, boolean details, boolean answerMayWait) {
        CallContext c = CallContext.current();
        long outerChain = c.chain;
        CallContext.Frame outerFrame = c.frame;
        Endpoint outerArrival = c.arrivedOver;
        ReadLeader.Guest guest = c.guest; // it reads no more while this call runs
        if (guest != null) {
            guest.suspend();
        }
        c.chain = chain;
        c.arrivedOver = endpoint;
        CallContext.Frame f = mi.inPlace ? new CallContext.Frame(m, args, mi, outerFrame) : null;
        if (f != null) {
            c.frame = f;
        }
        boolean keep = false;
        try {
            keep = runIn(c, d, f, args, callId, ri, mi, impl, details, answerMayWait);
            return keep;
        } finally {
            c.chain = outerChain;
            c.frame = outerFrame;
            c.arrivedOver = outerArrival;
            if (guest != null) {
                guest.resume();
            }
            if (!keep && streams.any()) {
                streams.endCall(callId, true); // a segment streamed to it was valid for the call
            }
        }
    }

    /**
     * The call is over: the segments streamed to it go before its answer does (the caller may count on it),
     * unless the result is a segment (perhaps one of them: it goes after the answer, in {@link #run}).
     */
    private void endStreams(long callId, Object result) {
        if (streams.any() && !(result instanceof MemorySegment)) {
            streams.endCall(callId, true);
        }
    }

    /**
     * Runs a call and answers it. {@code answerMayWait}: a call a poll read and ran ({@link InlineCalls#runDeferred}), whose
     * answer may wait in the send buffer for the answers of the calls that arrived with it, until the poll ends
     * ({@link Sender#answerMayWait}, {@link Endpoint#poll}): never a call run elsewhere, whose thread might not
     * reach the end of a poll soon.
     */
    private boolean runIn(CallContext context, Delivery d, CallContext.Frame frame, Object[] args, long callId,
                          RemoteInterface ri, RemoteInterface.MethodInfo mi, Object impl, boolean details,
                          boolean answerMayWait) {
        Object result = null;
        Throwable failure = null;
        Running cancellable = null;
        if (context.callThread) { // our own call thread: a CANCEL may interrupt it
            cancellable = new Running(Thread.currentThread(), null);
            running.put(callId, cancellable);
        }
        boolean asyncFrame = mi.async && frame != null;
        if (asyncFrame) {
            CallContext.addAsync(frame); // the method may hand its arguments to another thread before it returns
        }
        try {
            result = Stubs.invoke(ri, mi.index, impl, args);
        } catch (Throwable t) {
            failure = t;
        } finally {
            if (cancellable != null) {
                cancellable.end();
                running.remove(callId, cancellable);
                Thread.interrupted(); // a cancel's interrupt stops at the call: the reply still goes
            }
        }
        if (asyncFrame && (failure != null || !(result instanceof CompletableFuture<?>))) {
            CallContext.removeAsync(frame);
        }
        if (!(mi.async && result instanceof CompletableFuture<?>)) {
            endStreams(callId, result);
        }
        if (failure != null) {
            sender.answerMayWait(answerMayWait);
            try {
                if (failure instanceof RemoteException r && r.reason() == Reason.TOO_DEEP) {
                    answers.tooDeep(callId); // (climbs the chain as itself, as a local StackOverflowError would: §4)
                } else {
                    answers.thrown(callId, failure, mi, details);
                }
            } finally {
                sender.answerMayWait(false);
            }
            return false;
        }
        if (mi.async && result instanceof CompletableFuture<?> f) {
            // views and segments among the arguments stay valid until the future completes
            boolean keep = mi.inPlace;
            asyncCalls.incrementAndGet();
            Running r = new Running(null, f);
            running.put(callId, r);
            f.whenComplete((v, t) -> {
                r.end();
                running.remove(callId, r);
                if (frame != null) {
                    CallContext.removeAsync(frame);
                }
                endStreams(callId, v);
                try {
                    if (t != null) {
                        answers.thrown(callId, t instanceof CompletionException && t.getCause() != null ? t.getCause() : t,
                                mi, details);
                    } else {
                        answers.result(callId, mi, v, details);
                    }
                } finally {
                    asyncCalls.decrementAndGet();
                    if (keep) {
                        Endpoint.releaseQuietly(d);
                    }
                    if (streams.any()) {
                        streams.endCall(callId, true);
                    }
                }
            });
            return keep;
        }
        sender.answerMayWait(answerMayWait);
        try {
            answers.result(callId, mi, result, details);
        } finally {
            sender.answerMayWait(false);
        }
        return false;
    }
}
