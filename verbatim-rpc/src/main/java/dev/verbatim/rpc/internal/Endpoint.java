package dev.verbatim.rpc.internal;

import dev.verbatim.rpc.RemoteException;
import dev.verbatim.rpc.RemoteException.Reason;
import dev.verbatim.transport.Connection;
import dev.verbatim.transport.Delivery;
import dev.verbatim.transport.DeliveryHandler;
import dev.verbatim.wire.WireLimits;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static dev.verbatim.rpc.internal.RpcDescriptor.*;

/**
 * One end of an RPC connection (J-RPC's endpoint). Both ends are alike: either may call the other
 * (a remote reference passed as an argument is called back over the same connection).
 *
 * <p>The endpoint is the message switch, the entry points (lookup, call, release) and closing; its
 * parts, as docs/rpc.md names them:
 * <ul>
 *   <li>{@link CallTable} of {@link PendingCall}s: the outgoing calls waiting for their answers;</li>
 *   <li>{@link ReadLeader}: leader/follower reading of the connection, and the delegate inbox of a
 *       waiting caller; {@link Dispatcher}: the thread that reads when no caller does;</li>
 *   <li>{@link Sender} and its {@link Outbox}: calls wait for room, answers never do;</li>
 *   <li>{@link CallEncoder} and {@link ValueDecoder}: values on the wire; {@link ExceptionRebuilder}:
 *       exceptions across it;</li>
 *   <li>{@link ExportedObjects} and {@link ImportedObjects}: the reference tables;</li>
 *   <li>{@link IncomingCalls}: the peer's calls and lookups, run with a {@link CallContext};
 *       {@link IncomingReplies}: the peer's answers to ours;</li>
 *   <li>{@link WaitPolicy}: how all of them spin and park.</li>
 * </ul>
 *
 * <p>Thread-safe.
 */
public final class Endpoint {
    private final Connection connection;
    /** Whether the transport holds commits for one write ({@link Connection#holdsCommits}: tcp, not shm). */
    private final boolean holdsCommits;
    private final Runnable onClose;
    private final String description;
    /**
     * Top-level chains are this XOR the call id: unique with overwhelming probability across processes;
     * with a {@link ChainDirectory}, its prefix names this endpoint node-wide.
     */
    private final long chainSalt;
    /** The node's chains across connections, or null (chains are matched per connection). */
    private final ChainDirectory chains;
    /** The object layer of the node, or null. */
    private final NodeExtension extension;

    private final CallTable calls = new CallTable();
    /** The named exports the peer looked up over this connection: the only ones it may call. */
    private final Grants grants = new Grants();
    /** The peer's streamed values, assembled ahead of the calls and replies that name them (docs/rpc.md §7). */
    private final IncomingStreams streams = new IncomingStreams();
    private final ExportedObjects exported;
    private final ImportedObjects imported;
    private final Sender sender;
    private final ReadLeader leader;
    private final Dispatcher dispatcher;
    private final IncomingCalls incoming;
    private final IncomingReplies replies;
    private final DeliveryHandler handler = this::onDelivery;

    private volatile boolean closed;
    private volatile String closeReason;

    /** An endpoint of its own (no node); a server's dispatcher starts at once. */
    public Endpoint(Connection connection, Exports exports, boolean server, Runnable onClose) {
        this(connection, exports, server, onClose, null, null);
        if (server) {
            start();
        }
    }

    /**
     * An endpoint of a node with an object layer ({@code extension}, or null) and node-wide chains
     * ({@code chains}, or null). A server's dispatcher starts with {@link #start}, once the node counts the
     * endpoint among its own (before, a quick peer could be served by an endpoint the node does not know).
     */
    public Endpoint(Connection connection, Exports exports, boolean server, Runnable onClose, NodeExtension extension,
                    ChainDirectory chains) {
        this.connection = connection;
        this.holdsCommits = connection.holdsCommits();
        this.extension = extension;
        this.chains = chains;
        this.onClose = onClose;
        this.description = connection.description();
        this.exported = new ExportedObjects(this::ensureDispatcher); // the peer may call it back at any time
        this.imported = new ImportedObjects(this, this::sendRelease);
        CallEncoder encoder = new CallEncoder(this, connection, exported, extension);
        this.sender = new Sender(this, connection, encoder, new Outbox());
        this.leader = new ReadLeader(this, connection, calls);
        this.dispatcher = new Dispatcher(this, connection, calls, leader, sender);
        this.incoming = new IncomingCalls(this, exports, grants, exported, calls, leader, sender,
                new ValueDecoder(exports, grants, exported, imported, this, extension, streams,
                        WireLimits.forPeers(connection.options().peerRecordsOnly())), extension, chains);
        this.replies = new IncomingReplies(this, calls, incoming.decoder());
        this.chainSalt = chains == null ? ChainDirectory.randomSalt() : chains.register(this);
    }

    /** Starts reading the connection on the dispatcher (a server's endpoint: the peer may call at once). */
    public void start() {
        dispatcher.ensureStarted();
    }

    public String description() {
        return description;
    }

    /**
     * From now on nobody who reads this connection spins ({@link WaitPolicy}: the dispatcher, a waiting caller, the
     * transport's take): for a connection that carries a message now and then, on nobody's latency path (the object
     * layer's weight requests), where a wake-up per message is cheaper than a spin per message. Idempotent.
     */
    public void quiet() {
        leader.policy().quiet();
        connection.receiveWithoutSpin();
    }

    public boolean isOpen() {
        return !closed;
    }

    CallTable calls() {
        return calls;
    }

    /** The node's chains across connections, or null (a plain node matches chains per connection). */
    ChainDirectory chains() {
        return chains;
    }

    /** Whether this endpoint's node matches chains across its connections (a base's node). */
    boolean chainsAcrossConnections() {
        return chains != null;
    }

    /** The counters of the connection. */
    public dev.verbatim.transport.ConnectionStats stats() {
        return connection.stats();
    }

    /** Ends a wait of this endpoint's reader in the transport (a nested call was handed over from elsewhere). */
    void wakeReader() {
        connection.wakeup();
    }

    /**
     * Whether a spinner on this connection yields its CPU between empty looks ({@link WaitPolicy#pause}): tcp, where a
     * look is a system call; not shm, where it is a load from memory.
     */
    boolean spinsYield() {
        return holdsCommits;
    }

    Sender sender() {
        return sender;
    }

    Dispatcher dispatcher() {
        return dispatcher;
    }

    ReadLeader leader() {
        return leader;
    }

    /**
     * Polls the connection through the message switch (holding the read lock), then runs the call the
     * poll read to run inline, if any, outside the transport's callback. While that call's answer waits in the
     * send buffer and more messages have arrived already, it polls and runs on (up to {@code limit} messages),
     * and at its end writes the answers that wait, together (docs/rpc.md §5). The calling thread may have lost
     * the read lock when this returns ({@link ReadLeader#holds()}).
     */
    int poll(int limit) {
        int total = 0;
        try {
            while (true) {
                int n;
                try {
                    n = connection.poll(handler, limit - total);
                } finally {
                    incoming.runDeferred();
                }
                total += n;
                // answers held while more calls have arrived already: run those too, so the answers leave in one
                // write (HeldMessages.commit); hasArrived only once this thread reads again (it costs no system call)
                if (n == 0 || total >= limit || !sender.answersHeld() || !leader.holds() || !connection.hasArrived()) {
                    return total;
                }
            }
        } finally {
            sender.endAnswers(); // whatever answers wait goes now: a poll never leaves one behind
        }
    }

    private void ensureDispatcher() {
        dispatcher.ensureStarted();
    }

    // ------------------------------------------------------------------ calling

    /**
     * Looks up a named export; returns a proxy of {@code iface} calling over {@code group} (this
     * endpoint and other connections to the same node; export ids are node-wide). The lookup goes over
     * every connection of the group: a peer lets a connection call only the exports looked up over it.
     */
    public Object lookup(String name, RemoteInterface ri, Duration timeout, Endpoint[] group) {
        int target = lookupHere(name, ri, timeout);
        for (Endpoint g : group) {
            if (g != this && g.lookupHere(name, ri, timeout) != target) {
                throw new RemoteException(Reason.NOT_FOUND, "'" + name + "' was exported anew while it was looked up over "
                        + group.length + " connections to " + description + ": look it up again");
            }
        }
        return ProxyFactory.create(new Binding(group, ri, target, timeout));
    }

    /** Looks up a named export over this connection alone: its export id, granted to this connection. */
    private int lookupHere(String name, RemoteInterface ri, Duration timeout) {
        long id = calls.nextId();
        PendingCall p = new PendingCall(this, id, null, timeout.toNanos(), 0, null);
        p.lookingUp = ri;
        calls.add(p, false);
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        byte[] in = ri.type.getName().getBytes(StandardCharsets.UTF_8);
        long[] ids = ri.ids();
        MemorySegment idBytes = MemorySegment.ofArray(ids);
        sender.send(head(LOOKUP, 0, 3, 0), id, span(n.length) + span(in.length) + span(idBytes.byteSize()), (s, at) -> {
            at = CallEncoder.putBytes(s, at, MemorySegment.ofArray(n));
            at = CallEncoder.putBytes(s, at, MemorySegment.ofArray(in));
            CallEncoder.putBytes(s, at, idBytes);
        }, p);
        return ((int[]) leader.await(p))[0];
    }

    /** The peer answered a call that carried {@code values} ({@link PendingCall#reportAnswer}; null entries skipped). */
    void answered(MemorySegment[] values) {
        for (MemorySegment v : values) {
            if (v != null) {
                extension.answered(v, this);
            }
        }
    }

    /** Sends a call and waits for (or, for an asynchronous method, returns the future of) its reply. */
    Object call(Binding b, RemoteInterface.MethodInfo mi, Object[] args) throws Throwable {
        if (closed) {
            throw new RemoteException(Reason.NOT_SENT, description + " is closed" + reason());
        }
        if (calls.full()) {
            throw new RemoteException(Reason.OVERLOADED, CallTable.MAX_OUTSTANDING + " calls are already outstanding on "
                    + description);
        }
        CallContext context = CallContext.current();
        if (!mi.async) {
            refuseTooDeep(context);
        }
        long id = calls.nextId();
        long chain = context.chain; // inside an incoming call: its chain; else a new one
        boolean nested = chain != 0;
        if (!nested) {
            chain = (chainSalt ^ id) == 0 ? 1 : chainSalt ^ id;
        }
        PendingCall p = new PendingCall(this, id, mi, b.timeoutNanos, chain, mi.async ? null : Thread.currentThread());
        if (mi.async) {
            // earlier calls in flight: this one may wait in the send buffer for the next its caller starts, so that
            // calls started back to back leave in one write (docs/rpc.md §5); a lone call leaves at once
            p.mayHold = holdsCommits && !calls.mapEmpty();
            calls.add(p, false);
            sender.sendCall(b, mi, args, p);
            dispatcher.ensureStarted();
            dispatcher.rouse(p.mayHold && sender.callsHeld()); // its timeout is the dispatcher's job, held calls too
            return p;
        }
        calls.add(p, true);
        if (!nested || chains == null) {
            sender.sendCall(b, mi, args, p);
            return leader.await(p, context);
        }
        // entered before the call goes: its nested calls may come back by any connection
        ChainDirectory.Waits waits = chains.enter(p, context.waits);
        context.waits = waits;
        try {
            sender.sendCall(b, mi, args, p);
            return leader.await(p, context);
        } finally {
            chains.leave(p, waits);
        }
    }

    /** Throws {@code TOO_DEEP} if the calling thread already waits in the most nested replies a thread may. */
    private void refuseTooDeep(CallContext context) {
        if (context.waiting >= CallContext.CHECKED_FROM && context.waiting >= CallContext.maxNesting()) {
            throw tooDeep(context);
        }
    }

    private RemoteException tooDeep(CallContext context) {
        return new RemoteException(Reason.TOO_DEEP, "a call from " + Thread.currentThread().getName() + ", which already waits in "
                + context.waiting + " nested calls, the most a thread may (each holds its stack; -Dverbatim.rpc.maxNesting="
                + CallContext.maxNesting() + ", from the thread stack size unless set): not sent to " + description);
    }

    /**
     * Reads the connection for an asynchronous call's future until it completes or {@code until} passes: a nested wait
     * as a synchronous call's is (a call of the chain may run in it), counted and limited alike.
     */
    void help(PendingCall p, long until) {
        CallContext context = CallContext.current();
        refuseTooDeep(context); // (the call goes on; its future completes without this thread)
        sender.flushCalls(true, 0); // the caller waits: the calls it held go now
        context.waiting++;
        try {
            leader.help(p, until);
        } finally {
            context.waiting--;
        }
    }

    /** Stops waiting for {@code p}'s reply; true if this removed it (nobody else completes it then). */
    boolean forget(PendingCall p) {
        return calls.forget(p);
    }

    /** An interrupted caller stops waiting: CANCELLED, the interrupt flag kept. */
    void cancelInterrupted(PendingCall p) {
        if (calls.forget(p)) {
            sendCancel(p.id);
            p.completeExceptionally(new RemoteException(Reason.CANCELLED, "the calling thread was interrupted"
                    + " (the call may still run on the server)"));
        }
    }

    /** Tells the peer nobody waits for call {@code id} any more (best effort). */
    void sendCancel(long id) {
        if (closed) {
            return;
        }
        boolean interrupted = Thread.interrupted(); // a cancel is sent even by an interrupted thread
        try {
            sender.answer(head(CANCEL, 0, 0, 0), id, 0, CallEncoder.NOTHING, null);
        } catch (RuntimeException ignored) {
            // the connection is gone or jammed: the call's reply is dropped when it comes anyway
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** {@code p} timed out: it fails with TIMEOUT, and the peer is told (a call, not a lookup). */
    void timeOut(PendingCall p) {
        if (calls.forget(p)) {
            if (p.method != null) {
                sendCancel(p.id);
            }
            p.completeExceptionally(new RemoteException(Reason.TIMEOUT, "no reply in time on " + description
                    + (p.method == null ? "" : " to " + p.method.signature) + " (the call may still run on the server)"));
        }
    }

    // ------------------------------------------------------------------ the message switch

    /** A message handed over by a poll: the poll stops when the message is a call to run inline ({@link #poll}). */
    private DeliveryHandler.Action onDelivery(Delivery d) {
        handle(d, false);
        return incoming.hasDeferred() ? DeliveryHandler.Action.STOP : DeliveryHandler.Action.CONTINUE;
    }

    /**
     * Handles one message. {@code owned}: {@code d} came from take (not a callback) and the caller
     * releases it, unless this returns true: a call running on another thread took it over. With
     * {@code owned}, the calling thread may have given the read lock away when this returns
     * ({@link ReadLeader#holds()}); a call read by a poll's callback runs once the poll returned.
     */
    boolean handle(Delivery d, boolean owned) {
        boolean interrupted = Thread.currentThread().isInterrupted();
        MemorySegment m;
        int kind;
        try {
            m = d.payload();
            kind = checkHeader(m);
        } catch (RuntimeException | InternalError e) { // its memory is gone (closed under it) or truncated by a shm peer
            closedUnder(e, interrupted);
            closeWith("a message could not be read: " + (e instanceof InternalError i ? truncated(i) : e.getMessage()));
            return false;
        }
        if (kind < 0) {
            protocol("a message of " + m.byteSize() + " bytes that is not one (it starts " + RpcDescriptor.startOf(m) + ")");
            return false;
        }
        try {
            switch (kind) {
                case CALL -> {
                    return incoming.onCall(d, m, owned);
                }
                case REPLY, THROWN, FAIL, LOOKUP_OK, LOOKUP_FAIL -> replies.onReply(d, m, kind);
                case LOOKUP -> incoming.onLookup(m);
                case RELEASE -> exported.release(target(m), callId(m));
                case CANCEL -> incoming.cancel(callId(m));
                case PIECE -> streams.onPiece(m);
                default -> protocol("an unknown message kind " + kind);
            }
        } catch (RuntimeException | InternalError e) { // (no clearing here: this spans the calls it runs, whose interrupts are real)
            protocol("a message that could not be handled: " + (e instanceof InternalError i ? truncated(i) : e));
        } catch (Error e) { // this side's failure (out of memory or stack): no message may wait for an answer that never comes
            closeWith("a message could not be handled: " + e);
            throw e;
        }
        return false;
    }

    /**
     * Whether {@code e}, which ended a read or a write of this connection's memory, is the connection's close cutting
     * it: the {@link IllegalStateException} of memory closed under an access, with the connection no longer open (the
     * transport marks it closed before it closes the memory). If so, clears the thread's interrupt flag unless it was
     * set when the access began: the JVM's handshake that closes a shared arena under a thread inside an access of it
     * leaves that thread's flag set (JDK-8306324, fixed after JDK 25), as the transport's primitives also undo
     * (docs/transport.md §4.7). Any other failure leaves the flag alone.
     */
    boolean closedUnder(Throwable e, boolean interruptedAtEntry) {
        if (!(e instanceof IllegalStateException) || connection.isOpen()) {
            return false;
        }
        if (!interruptedAtEntry) {
            Thread.interrupted();
        }
        return true;
    }

    /**
     * An {@link InternalError} while a message is read is the JDK's report of a fault on a mapped window that a shm
     * peer truncated (the transport's own reads name it the same way): the connection closes with this reason.
     */
    static String truncated(InternalError e) {
        return "the peer truncated the shared memory under the mapping (" + e.getMessage() + ")";
    }

    void protocol(String what) {
        closeWith("the peer sent " + what);
    }

    /**
     * A message dropped unread (a call rejected before its arguments were read, a reply nobody waits for)
     * may still carry references to the sender's objects, which the sender counted as held: give them
     * back, or they would leak until the connection closes.
     */
    void releaseUnread(MemorySegment m, long at) {
        if (streams.any()) { // the values it streamed ahead go too
            if (kind(m) == REPLY) {
                streams.endReply(callId(m));
            } else {
                streams.endCall(callId(m), true);
            }
        }
        int count = count(m);
        try {
            for (int i = 0; i < count && at < m.byteSize(); i++) {
                long end = checkValue(m, at);
                if (tag(m, at) == T_REMOTE) {
                    long ref = m.get(ValueLayout.JAVA_LONG_UNALIGNED, at + VALUE_HEADER);
                    if ((int) (ref >>> 32) == SIDE_SENDER) {
                        sender.answer(head(RELEASE, 0, 0, (int) ref), 1, 0, CallEncoder.NOTHING, null);
                    }
                } else if (tag(m, at) == T_SHARED && extension != null) {
                    extension.dropped(m.asSlice(at + VALUE_HEADER, length(m, at)), this);
                } else if (tag(m, at) == T_WIRE_REFS && extension != null) {
                    for (MemorySegment entry : ReferenceTable.entries(m.asSlice(at + VALUE_HEADER, length(m, at)))) {
                        extension.dropped(entry, this);
                    }
                }
                at = end;
            }
        } catch (RuntimeException ignored) {
            // a malformed message: nothing more to give back
        }
    }

    static void releaseQuietly(Delivery d) {
        try {
            d.release();
        } catch (IllegalStateException ignored) {
            // the connection closed meanwhile
        }
    }

    // ------------------------------------------------------------------ references

    /** Tells the peer this side dropped {@code count} references to its object {@code id}. */
    private void sendRelease(int id, int count) {
        if (!closed) {
            try {
                sender.answer(head(RELEASE, 0, 0, id), count, 0, CallEncoder.NOTHING, null);
            } catch (RuntimeException ignored) {
                // the connection is gone: the peer drops everything of ours anyway
            }
        }
    }

    /** Objects this side has passed by reference and the peer still holds. */
    public int exportedObjects() {
        return exported.size();
    }

    /** A proxy with another call timeout, sharing the binding. */
    public static Object withTimeout(Object proxy, Duration timeout) {
        if (!(proxy instanceof ProxyObject po)) {
            throw new IllegalArgumentException("not a Verbatim proxy: " + proxy);
        }
        return ProxyFactory.create(po.verbatimBinding().withTimeout(timeout, proxy));
    }

    /** Releases a proxy of an object received by reference now, instead of when it becomes unreachable. */
    public static void release(Object proxy) {
        if (!(proxy instanceof ProxyObject po)) {
            throw new IllegalArgumentException("not a Verbatim proxy: " + proxy);
        }
        Binding b = po.verbatimBinding();
        if (b.original() instanceof ProxyObject orig) {
            b = orig.verbatimBinding();
        }
        if (b.toObject) {
            b.endpoint.imported.release(b);
        }
    }

    // ------------------------------------------------------------------ closing

    private String reason() {
        String r = closeReason;
        return r == null ? "" : " (" + r + ")";
    }

    /**
     * Closes the endpoint: pending calls fail, objects exported on it are dropped. A close that ends a connection
     * its peer still holds open for a reason other than {@link #close()} (the peer broke the protocol, a send
     * failed, the dispatcher failed) is logged at {@code WARNING} (logger {@code dev.verbatim.rpc}): the peer only
     * learns that the connection closed.
     */
    public void closeWith(String why) {
        synchronized (this) {
            if (closed) {
                return;
            }
            closeReason = why;
            closed = true;
        }
        if (connection.isOpen() && !BY_THIS_SIDE.equals(why)) {
            logClose(why);
        }
        connection.close();
        if (chains != null) {
            chains.unregister(this, chainSalt);
        }
        calls.failAll(new RemoteException(Reason.CONNECTION, description + " closed" + reason()));
        exported.clear();
        sender.outbox().clear(); // answers nobody can send any more
        streams.closeAll(); // values assembling or lent to running calls: their memory goes now
        imported.clear();
        onClose.run();
        if (extension != null) {
            extension.closed(this);
        }
    }

    private static final String BY_THIS_SIDE = "closed by this side";
    private static final System.Logger LOG = System.getLogger("dev.verbatim.rpc");

    private void logClose(String why) {
        try {
            LOG.log(System.Logger.Level.WARNING, "closing {0}: {1}", description, why);
        } catch (RuntimeException | Error ignored) {
            // a logger that cannot log (no descriptor for its file) must not stop the close
        }
    }

    public void close() {
        closeWith(BY_THIS_SIDE);
        try {
            dispatcher.awaitEnd(WaitPolicy.CLOSE_JOIN_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
