package dev.verbatim.rpc.internal;

import dev.verbatim.rpc.Remote;
import dev.verbatim.rpc.RemoteException;
import dev.verbatim.rpc.RemoteException.Reason;
import dev.verbatim.transport.Claim;
import dev.verbatim.transport.Connection;
import dev.verbatim.transport.Delivery;
import dev.verbatim.transport.DeliveryHandler;
import dev.verbatim.transport.TransportException;
import dev.verbatim.wire.Message;
import dev.verbatim.wire.WireFormatException;
import dev.verbatim.wire.WireReader;
import dev.verbatim.wire.WireWriter;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.ref.Cleaner;
import java.lang.ref.WeakReference;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

import static dev.verbatim.rpc.internal.RpcDescriptor.*;

/**
 * One end of an RPC connection (J-RPC's endpoint). Both ends are alike: either may call the other
 * (a remote reference passed as an argument is called back over the same connection).
 *
 * <p>Sending is serialised by {@code sendLock}: arguments are marshalled straight into space claimed
 * in the peer's receive area. Receiving is leader/follower: a caller waiting for its reply takes
 * {@code recvLock} if free and polls the connection itself, completing other callers' replies; a
 * caller that finds the lock taken waits for the leader to complete it. A dispatcher thread polls
 * when nobody else does, on servers and on clients with callbacks or asynchronous calls.
 *
 * <p>Incoming calls carry their call chain ({@link RpcDescriptor#CHAIN}): one nested in a chain a
 * caller of ours waits in runs on that caller (J-RPC's delegate threads; handed to it when another
 * thread read it); any other runs on a virtual thread when the export asks, else on the dispatcher
 * (inline when it is the reader, else queued to it in arrival order), never on an unrelated waiting
 * caller. A thread running a call inline gives {@code recvLock} away for the call's duration and takes
 * it back only if still free (else it leaves the transport's poll by {@link Yield}); a leader steps
 * down when another thread queues for the lock. See docs/rpc.md §4.
 */
public final class Endpoint {
    private static final Cleaner CLEANER = Cleaner.create();
    private static final int MAX_OUTSTANDING = 4096;
    private static final int MAX_VIRTUAL_CALLS = 1024;
    private static final int MAX_ASYNC_CALLS = 4096;
    private static final Object[] NO_ARGS = {};
    private static final long PEEK_NANOS = 100_000;
    /** How long a leader sleeps in the transport before it looks whether it should step down. */
    private static final long LEAD_WAIT_NANOS = 5_000_000;
    /** What this thread knows of the incoming calls it runs: the innermost one's chain and in-place arguments. */
    private static final ThreadLocal<Context> CONTEXT = ThreadLocal.withInitial(Context::new);
    /** Frames of asynchronous methods whose in-place arguments stay valid until their future completes. */
    private static final Set<Frame> ASYNC_FRAMES = ConcurrentHashMap.newKeySet();
    private static final java.security.SecureRandom SEEDS = new java.security.SecureRandom();
    private static final long SPIN_NANOS = 20_000;
    /** Polls (or looks) a waiting caller makes before it reads the clock. */
    private static final int SPIN_POLLS = 128;
    private static final long STEP_ASIDE_NANOS = 2_000_000;
    private static final long DISPATCH_SPIN_NANOS = 200_000;
    private static final Set<String> JDK_UNCHECKED = Set.of(
            "java.lang.IllegalArgumentException", "java.lang.IllegalStateException", "java.lang.NullPointerException",
            "java.lang.UnsupportedOperationException", "java.lang.ArithmeticException", "java.lang.IndexOutOfBoundsException",
            "java.lang.ArrayIndexOutOfBoundsException", "java.lang.ClassCastException", "java.lang.SecurityException",
            "java.lang.RuntimeException", "java.util.NoSuchElementException", "java.util.ConcurrentModificationException");

    private final Connection connection;
    private final Exports exports;
    private final Runnable onClose;
    private final String description;
    /** The largest message the peer accepts (fixed at the handshake). */
    private final int maxMessage;

    private final ReentrantLock sendLock = new ReentrantLock();
    private final ReentrantLock recvLock = new ReentrantLock();
    private final WireWriter writer = new WireWriter();
    private final ThreadLocal<WireReader> readers = ThreadLocal.withInitial(WireReader::new);
    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
    /**
     * One synchronous call may wait here instead of in {@code pending} (no boxing, no map node): the
     * common case of one calling thread per connection. Taken and cleared by CAS.
     */
    private volatile Pending solo;
    private static final java.lang.invoke.VarHandle SOLO;

    static {
        try {
            SOLO = java.lang.invoke.MethodHandles.lookup().findVarHandle(Endpoint.class, "solo", Pending.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    private final AtomicLong callIds = new AtomicLong();
    private final Semaphore virtualCalls = new Semaphore(MAX_VIRTUAL_CALLS);
    private final AtomicInteger asyncCalls = new AtomicInteger();
    /** Calls of the peer that can be cancelled: running on our virtual threads, or asynchronous. */
    private final Map<Long, Running> running = new ConcurrentHashMap<>();

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

    private void cancelRunning(long callId) {
        Running r = running.remove(callId);
        if (r != null) {
            r.cancel();
        }
    }
    /** Top-level chains are this plus the call id: unique with overwhelming probability across processes. */
    private final long chainSalt = SEEDS.nextLong();
    /** Incoming calls another reading thread handed to the dispatcher, run in arrival order. */
    private final ConcurrentLinkedQueue<Runnable> queued = new ConcurrentLinkedQueue<>();

    // objects this side exported implicitly on this connection (passed by reference)
    private final Map<Integer, Local> locals = new HashMap<>();
    private final Map<Object, Map<Class<?>, Local>> localIds = new IdentityHashMap<>();
    private int nextLocal;
    // proxies of the peer's objects, so one object arrives as one proxy
    private final Map<Integer, WeakReference<Object>> imported = new ConcurrentHashMap<>();

    private volatile boolean closed;
    private volatile String closeReason;
    /** Callers waiting for replies, and when one last did: the dispatcher steps aside for them. */
    private final AtomicInteger callers = new AtomicInteger();
    /** Changes whenever a caller stops waiting, while there is a dispatcher: it steps aside for a while then. */
    private volatile int callsEnded;
    private int callsEndedSeen; // dispatcher only
    private long callerSeenAt; // dispatcher only
    private volatile Thread dispatcher;
    private final DeliveryHandler handler = this::onDelivery;

    /**
     * Thrown out of a transport poll by a thread that gave the read lock away while it ran an
     * incoming call and found it taken when the call ended: it stops reading (the new holder reads
     * on). Caught where the lock was taken; never escapes the endpoint.
     */
    private static final class Yield extends RuntimeException {
        private static final long serialVersionUID = 1L;
        static final Yield INSTANCE = new Yield();

        private Yield() {
            super("the read lock passed to another thread", null, false, false);
        }
    }

    private void unlockIfHeld() {
        if (recvLock.isHeldByCurrentThread()) {
            recvLock.unlock();
        }
    }

    /** An object passed by reference from this side. */
    private record Local(int id, Object impl, RemoteInterface remote, AtomicInteger references) {}

    /** A call waiting for its reply. */
    private static final class Pending extends CompletableFuture<Object> {
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
        /** For a lookup: the interface looked up (to name what the server lacks). */
        RemoteInterface lookingUp;
        /** Whether the call waits in the endpoint's solo slot (set by its caller before it waits). */
        boolean inSlot;
        volatile Thread waiter;
        /** Nested calls of this chain read by another thread, for {@link #caller} to run. */
        private ArrayDeque<Runnable> inbox;
        private volatile boolean inboxClosed;
        /** Set before a hand-over looks at {@link #inboxClosed}: the closing caller then drains under the lock. */
        private volatile boolean offered;
        volatile boolean hasTasks;

        Pending(Endpoint endpoint, long id, RemoteInterface.MethodInfo method, long timeoutNanos, long chain, Thread caller) {
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

    public Endpoint(Connection connection, Exports exports, boolean server, Runnable onClose) {
        this.connection = connection;
        this.exports = exports;
        this.onClose = onClose;
        this.description = connection.description();
        this.maxMessage = connection.maxMessageLength();
        this.callerSeenAt = System.nanoTime() - STEP_ASIDE_NANOS;
        if (server) {
            ensureDispatcher();
        }
    }

    public String description() {
        return description;
    }

    public boolean isOpen() {
        return !closed;
    }

    // ------------------------------------------------------------------ calling

    /**
     * Looks up a named export; returns a proxy of {@code iface} calling over {@code group} (this
     * endpoint and other connections to the same node; export ids are node-wide).
     */
    public Object lookup(String name, RemoteInterface ri, Duration timeout, Endpoint[] group) {
        long id = callIds.incrementAndGet();
        Pending p = new Pending(this, id, null, timeout.toNanos(), 0, null);
        p.lookingUp = ri;
        pending.put(id, p);
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        byte[] in = ri.type.getName().getBytes(StandardCharsets.UTF_8);
        long[] ids = ri.ids();
        MemorySegment idBytes = MemorySegment.ofArray(ids);
        send(LOOKUP, 0, 3, 0, id, 0, span(n.length) + span(in.length) + span(idBytes.byteSize()), (s, at) -> {
            at = putBytes(s, at, MemorySegment.ofArray(n));
            at = putBytes(s, at, MemorySegment.ofArray(in));
            putBytes(s, at, idBytes);
        }, p);
        int[] target = (int[]) await(p);
        return ProxyFactory.create(new Binding(group, ri, target[0], timeout));
    }

    /** Sends a call and waits for (or, for an asynchronous method, returns the future of) its reply. */
    Object call(Binding b, RemoteInterface.MethodInfo mi, Object[] args) throws Throwable {
        if (closed) {
            throw new RemoteException(Reason.NOT_SENT, description + " is closed" + reason());
        }
        if (pending.size() >= MAX_OUTSTANDING - 1) {
            throw new RemoteException(Reason.OVERLOADED, MAX_OUTSTANDING + " calls are already outstanding on " + description);
        }
        long id = callIds.incrementAndGet();
        long chain = CONTEXT.get().chain; // inside an incoming call: its chain; else a new one
        if (chain == 0) {
            chain = chainSalt + id == 0 ? 1 : chainSalt + id;
        }
        Pending p = new Pending(this, id, mi, b.timeoutNanos, chain, mi.async ? null : Thread.currentThread());
        if (mi.async || !SOLO.compareAndSet(this, (Pending) null, p)) {
            pending.put(id, p);
        } else {
            p.inSlot = true;
        }
        sendCall(b, mi, args, id, p);
        if (mi.async) {
            ensureDispatcher();
            rouse(); // its timeout is the dispatcher's job
            return p;
        }
        return await(p);
    }

    private Object await(Pending p) throws RemoteException {
        boolean counted = !p.inSlot; // a caller waiting in the solo slot is counted by the slot: no atomic pair
        if (counted) {
            callers.incrementAndGet();
        }
        try {
            return awaitReply(p);
        } finally {
            if (counted) {
                callers.decrementAndGet();
            }
            if (dispatcher != null) {
                callsEnded++; // racy on purpose: the dispatcher only looks for a change
            }
        }
    }

    private Object awaitReply(Pending p) throws RemoteException {
        int spins = 0;
        long spinUntil = 0;
        while (!p.isDone()) {
            if (Thread.currentThread().isInterrupted()) {
                cancelInterrupted(p);
                break;
            }
            if (p.hasTasks) { // nested calls of this caller's chain, read by another thread: run here
                runTasks(p, false);
                continue;
            }
            if (recvLock.tryLock()) {
                try {
                    lead(p, 0);
                } catch (Yield y) {
                    // the lock went to another reader while this thread ran a nested call
                } finally {
                    unlockIfHeld();
                }
                if (p.isDone()) {
                    handOver(p);
                }
                continue;
            }
            if (++spins < SPIN_POLLS) {
                Thread.onSpinWait();
                continue;
            }
            long now = System.nanoTime();
            if (spinUntil == 0) {
                spinUntil = now + SPIN_NANOS;
            }
            if (now - p.deadline() >= 0) {
                timeOut(p);
                break;
            }
            if (now - spinUntil < 0) {
                Thread.onSpinWait();
            } else {
                p.waiter = Thread.currentThread();
                if (!p.isDone()) {
                    LockSupport.parkNanos(Math.min(p.deadline() - now, 200_000));
                }
            }
        }
        if (!p.answered) {
            runTasks(p, true); // stopped waiting for another reason: close the inbox against late hand-overs
        } else if (p.offered) {
            runTasks(p, false); // what was handed over before the answer (nothing can come after it)
        }
        try {
            return p.join();
        } catch (java.util.concurrent.CompletionException e) {
            Throwable c = e.getCause();
            if (c instanceof RuntimeException r) {
                throw sneaky(r);
            }
            throw sneaky(c);
        } catch (java.util.concurrent.CancellationException e) {
            throw new RemoteException(Reason.CANCELLED, "the call was cancelled");
        }
    }

    /** Reads the connection for an asynchronous call's future until it completes or {@code until} passes. */
    void help(Pending p, long until) {
        while (!p.isDone() && !closed && System.nanoTime() - until < 0 && !Thread.currentThread().isInterrupted()) {
            if (recvLock.tryLock()) {
                try {
                    lead(p, until);
                } catch (Yield y) {
                    // gave the lock away during a call
                } finally {
                    unlockIfHeld();
                }
                continue;
            }
            p.waiter = Thread.currentThread();
            long left = until - System.nanoTime();
            if (!p.isDone() && left > 0) {
                LockSupport.parkNanos(Math.min(left, 200_000));
            }
        }
    }

    /** Runs the nested calls handed to {@code p}'s caller; {@code close}: it stops waiting, take no more. */
    private static void runTasks(Pending p, boolean close) {
        for (Runnable t = p.nextTask(close); t != null; t = p.nextTask(close)) {
            t.run();
        }
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> RuntimeException sneaky(Throwable t) throws T {
        throw (T) t;
    }

    /** An interrupted caller stops waiting: CANCELLED, the interrupt flag kept. */
    private void cancelInterrupted(Pending p) {
        if (forget(p)) {
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
            answer(CANCEL, 0, 0, 0, id, 0, NOTHING, null);
        } catch (RuntimeException ignored) {
            // the connection is gone or jammed: the call's reply is dropped when it comes anyway
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * As the leader: polls the connection until {@code p} completes, times out ({@code p}'s deadline),
     * {@code until} passes (0: no earlier than the deadline), nested calls were handed to its caller, or
     * another thread waits for the lock (a reader taking back the lock it gave away while it ran a call).
     * The first {@link #SPIN_POLLS} polls read no clock: most replies come within them.
     */
    private void lead(Pending p, long until) {
        int spins = 0;
        long spinUntil = 0;
        boolean spunOut = false;
        while (!p.isDone() && !p.hasTasks && !recvLock.hasQueuedThreads()) {
            if (Thread.currentThread().isInterrupted()) {
                cancelInterrupted(p);
                return;
            }
            int n;
            try {
                n = connection.poll(handler, 16);
            } catch (TransportException e) {
                closeWith(e.getMessage());
                return;
            }
            if (n > 0) {
                continue;
            }
            if (outboxCount != 0) {
                tryFlush();
            }
            if (++spins < SPIN_POLLS) {
                Thread.onSpinWait();
                continue;
            }
            long now = System.nanoTime();
            if (spinUntil == 0) {
                spinUntil = now + leadSpinNanos;
            }
            long deadline = p.deadline();
            if (now - deadline >= 0) {
                timeOut(p);
                return;
            }
            if (until == 0) {
                until = deadline;
            }
            if (now - until >= 0) {
                return;
            }
            if (now - spinUntil < 0) {
                Thread.onSpinWait();
                continue;
            }
            if (!spunOut) { // the peer is slow to answer (busy, or asleep): spin less next time
                spunOut = true;
                leadSpinNanos = Math.max(LEAD_SPIN_MIN_NANOS, leadSpinNanos >> 1);
            }
            try {
                Delivery d = connection.take(Duration.ofNanos(Math.min(until - now, waitNanos(LEAD_WAIT_NANOS))));
                if (d != null && !handle(d, true)) {
                    d.release();
                }
            } catch (TransportException e) {
                closeWith(e.getMessage());
                return;
            }
        }
        if (!spunOut && leadSpinNanos != LEAD_SPIN_MAX_NANOS && p.isDone()) {
            leadSpinNanos = LEAD_SPIN_MAX_NANOS; // answered within the spin: the peer is quick, spin long again
        }
    }

    /**
     * How long a leading caller polls (after its first {@link #SPIN_POLLS}) before the transport may park
     * it. Long while the peer answers quickly: a caller that parks is woken late on a loaded machine (up
     * to a scheduler slice), and a peer that parked meanwhile too makes every call pay two such wake-ups,
     * a state that sustains itself; halved each time a reply outlasts the spin (a peer that does real work
     * per call should not cost its callers a spinning core). A hint: racy on purpose.
     */
    private long leadSpinNanos = LEAD_SPIN_MAX_NANOS;
    private static final long LEAD_SPIN_MAX_NANOS = 1_000_000;
    private static final long LEAD_SPIN_MIN_NANOS = 20_000;

    /** Whether a caller waits for a reply (in the solo slot, or counted in {@code callers}). */
    private boolean callersWait() {
        return solo != null || callers.get() > 0;
    }

    /** After leading for {@code p}: a waiting caller takes over, so replies keep being read. */
    private void handOver(Pending p) {
        if (callers.get() - (p.inSlot ? 0 : 1) <= 0 && solo == null) {
            return; // nobody else waits (the count may still include this caller)
        }
        Pending s1 = solo;
        if (s1 != null && s1.waiter != null && !s1.isDone()) {
            s1.wake();
            return;
        }
        for (Pending q : pending.values()) {
            if (q.waiter != null && !q.isDone()) {
                q.wake();
                return;
            }
        }
    }

    /** Removes the call waiting for reply {@code id}, if any. */
    private Pending take(long id) {
        Pending s1 = solo;
        if (s1 != null && s1.id == id) {
            return SOLO.compareAndSet(this, s1, (Pending) null) ? s1 : null;
        }
        return pending.remove(id);
    }

    /** Stops waiting for {@code p}'s reply; true if this removed it (nobody else completes it then). */
    boolean forget(Pending p) {
        if (solo == p) {
            return SOLO.compareAndSet(this, p, (Pending) null);
        }
        return pending.remove(p.id, p);
    }

    private void timeOut(Pending p) {
        if (forget(p)) {
            if (p.method != null) {
                sendCancel(p.id);
            }
            p.completeExceptionally(new RemoteException(Reason.TIMEOUT, "no reply in time on " + description
                    + (p.method == null ? "" : " to " + p.method.signature) + " (the call may still run on the server)"));
        }
    }

    // ------------------------------------------------------------------ sending

    /** Writes the body of a message at {@code at} in the claimed segment. */
    @FunctionalInterface
    private interface Body {
        void write(MemorySegment s, long at);
    }

    /**
     * A body writer that takes what it writes as an argument (a non-capturing lambda, allocated once) and
     * the wire writer to marshal graphs with (one guarded by the lock the sending thread holds).
     */
    @FunctionalInterface
    private interface Writer {
        void write(Endpoint self, WireWriter w, MemorySegment s, long at, Object what);
    }

    private static final Writer NOTHING = (self, w, s, at, what) -> { };
    private static final Writer BODY = (self, w, s, at, what) -> ((Body) what).write(s, at);
    /** The arguments of a method with only primitive parameters, an {@code Object[]} of boxes. */
    private static final Writer PRIMITIVES = (self, w, s, at, what) -> {
        for (Object v : (Object[]) what) {
            putPrimitive(s, at, v);
            at += VALUE_HEADER + 8;
        }
    };
    /** One primitive value (a box). */
    private static final Writer PRIMITIVE = (self, w, s, at, what) -> putPrimitive(s, at, what);
    /** Planned values, a {@code Planned[]}. */
    private static final Writer PLANNED = (self, w, s, at, what) -> {
        for (Planned v : (Planned[]) what) {
            at = self.put(s, at, v, w);
        }
    };
    /** One planned value. */
    private static final Writer ONE_PLANNED = (self, w, s, at, what) -> self.put(s, at, (Planned) what, w);

    private static void putPrimitive(MemorySegment s, long at, Object v) {
        s.set(ValueLayout.JAVA_INT_UNALIGNED, at, T_PRIM);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, at + 4, 8);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, at + VALUE_HEADER, bits(v));
    }

    private void send(int kind, int flags, int count, int target, long callId, long method, long bodyBytes, Body body,
                      Pending failIfNotSent) {
        send(kind, flags, count, target, callId, method, 0, bodyBytes, BODY, body, failIfNotSent);
    }

    /**
     * Sends as a caller: waits for the send lock and for room in the peer's window (flow control), up to
     * the send timeout. Only threads that are not answering the peer send this way (calls, lookups); what
     * answers the peer goes by {@link #answer}.
     */
    private void send(int kind, int flags, int count, int target, long callId, long method, long chain, long bodyBytes,
                      Writer body, Object what, Pending failIfNotSent) {
        long total = checkLength(headerOf(kind) + bodyBytes);
        sendLock.lock();
        try {
            if (outboxCount != 0 && sendLock.getHoldCount() == 1) { // (held more: regions of this message are out)
                flushOutbox(true); // answers waiting for room go first
            }
            fill(connection.claim((int) total), kind, flags, count, target, callId, method, chain, body, what, writer);
        } catch (TransportException e) {
            throw sendFailed(e, failIfNotSent);
        } catch (RuntimeException | Error e) {
            if (failIfNotSent != null) {
                forget(failIfNotSent);
            }
            throw e;
        } finally {
            unlockSend();
        }
    }

    private long checkLength(long total) {
        if (total > maxMessage) {
            throw new RemoteException(Reason.ARGUMENT, "a message of " + total + " bytes exceeds the connection's maximum of "
                    + maxMessage);
        }
        return total;
    }

    /** Writes a message into claimed space and commits it (aborts the claim if the body cannot be written). */
    private void fill(Claim c, int kind, int flags, int count, int target, long callId, long method, long chain, Writer body,
                      Object what, WireWriter w) {
        MemorySegment s = c.segment();
        header(s, kind, flags, count, target, callId, method, chain);
        try {
            body.write(this, w, s, headerOf(kind), what);
        } catch (RuntimeException | Error e) {
            c.abort();
            throw e;
        }
        c.commit();
    }

    /** Unlocks {@code sendLock}; the last holder first sends what the outbox holds, if the window has room. */
    private void unlockSend() {
        boolean last = sendLock.getHoldCount() == 1;
        try {
            if (outboxCount != 0 && last && !closed) {
                flushOutbox(false);
            }
        } catch (TransportException e) {
            closeWith(e.getMessage());
        } finally {
            sendLock.unlock();
        }
        if (last && outboxCount != 0) {
            // an answer stashed while we held the lock (its own tryFlush found the lock taken) must not wait for the
            // next message or the dispatcher's next look: count first, lock second on its side; unlock first,
            // count second on ours, so one of the two sees the other
            tryFlush();
        }
    }

    // ------------------------------------------------------------------ answers and the outbox

    /**
     * The most the outbox holds (bytes of answers waiting for room in the peer's window) before an answering
     * thread waits for room itself, as a caller does.
     */
    static final long OUTBOX_LIMIT = 8L << 20;
    /** Answers that could not be sent at once, encoded, in order. Guarded by itself. */
    private final ArrayDeque<MemorySegment> outbox = new ArrayDeque<>();
    /** Marshals answers that go to the outbox, and sizes every answer's result. Guarded by {@code outbox}. */
    private final WireWriter outboxWriter = new WireWriter();
    private long outboxBytes; // guarded by outbox
    private volatile int outboxCount;

    /**
     * Sends an answer to the peer (a reply, a failure, a lookup's answer, a release, a cancel) from a thread
     * that may be handling the peer's messages. It never waits for the send lock or for room in the peer's
     * window: when another thread is sending (perhaps waiting for room itself) or the window is full, the
     * answer is encoded into the outbox and sent by the next thread that can (a caller's send, the dispatcher,
     * a leading caller). So the thread that drains this side's window never stops because the peer's is full:
     * two peers calling each other with full windows would otherwise wait on each other until the send
     * timeout. Beyond {@link #OUTBOX_LIMIT} the answering thread waits for room as a caller does.
     */
    private void answer(int kind, int flags, int count, int target, long callId, long bodyBytes, Writer body, Object what) {
        long total = checkLength(headerOf(kind) + bodyBytes);
        if (outboxCount == 0 && sendLock.tryLock()) {
            try {
                Claim c = connection.tryClaim((int) total);
                if (c != null) {
                    fill(c, kind, flags, count, target, callId, 0, 0, body, what, writer);
                    return;
                }
            } catch (TransportException e) {
                closeWith(e.getMessage()); // the peer learns nothing more; its calls fail with the connection
                return;
            } finally {
                unlockSend();
            }
        }
        if (stash(total, kind, flags, count, target, callId, body, what)) {
            if (dispatcher == null) {
                ensureDispatcher(); // someone must send it if nobody else does
            }
            tryFlush();
            if (outboxCount != 0) {
                rouse(); // the peer's window is full: the dispatcher retries
            }
            return;
        }
        try {
            send(kind, flags, count, target, callId, 0, 0, bodyBytes, body, what, null); // over the limit: wait for room
        } catch (RemoteException e) {
            // the connection failed: the peer learns that instead
        }
    }

    /** Encodes an answer into the outbox; false if that would take it over its limit. */
    private boolean stash(long total, int kind, int flags, int count, int target, long callId, Writer body, Object what) {
        synchronized (outbox) {
            if (outboxBytes + total > OUTBOX_LIMIT || closed) {
                return closed; // a closed endpoint sends nothing: dropped
            }
            MemorySegment m = MemorySegment.ofArray(new long[(int) ((total + 7) >>> 3)]).asSlice(0, total);
            header(m, kind, flags, count, target, callId, 0, 0);
            body.write(this, outboxWriter, m, headerOf(kind), what);
            outbox.addLast(m);
            outboxBytes += total;
            outboxCount = outbox.size();
            return true;
        }
    }

    /**
     * Sends what the outbox holds, in order (under {@code sendLock}); {@code block}: waits for room as a
     * caller does, else stops at the first message the peer's window has no room for (false).
     */
    private boolean flushOutbox(boolean block) {
        while (true) {
            MemorySegment m;
            synchronized (outbox) {
                m = outbox.peekFirst();
            }
            if (m == null) {
                return true;
            }
            int n = (int) m.byteSize();
            Claim c = block ? connection.claim(n) : connection.tryClaim(n);
            if (c == null) {
                return false;
            }
            MemorySegment.copy(m, 0, c.segment(), 0, n);
            c.commit();
            synchronized (outbox) {
                outbox.pollFirst();
                outboxBytes -= n;
                outboxCount = outbox.size();
            }
        }
    }

    /** Sends what the outbox holds if the send lock is free and the peer's window has room. */
    private void tryFlush() {
        while (outboxCount != 0 && sendLock.tryLock()) {
            boolean emptied;
            try {
                if (closed) {
                    return;
                }
                emptied = flushOutbox(false);
            } catch (TransportException e) {
                closeWith(e.getMessage());
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

    /** Writes the header of a message ({@link RpcDescriptor#headerOf} bytes: a reply's is short). */
    private static void header(MemorySegment s, int kind, int flags, int count, int target, long callId, long method,
                               long chain) {
        s.set(ValueLayout.JAVA_BYTE, KIND, (byte) kind);
        s.set(ValueLayout.JAVA_BYTE, FLAGS, (byte) flags);
        s.set(ValueLayout.JAVA_SHORT_UNALIGNED, COUNT, (short) count);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, TARGET, target);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, CALL_ID, callId);
        if (kind != REPLY) {
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, METHOD, method);
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, CHAIN, chain);
        }
    }

    /** A send that failed in the transport: the connection is closed, the call (if any) forgotten. */
    private RemoteException sendFailed(TransportException e, Pending failIfNotSent) {
        if (failIfNotSent != null) {
            forget(failIfNotSent);
        }
        closeWith(e.getMessage());
        return new RemoteException(e.reason() == TransportException.Reason.TIMEOUT ? Reason.NOT_SENT : Reason.CONNECTION,
                "sending on " + description + " failed: " + e.getMessage(), e);
    }

    private static long putBytes(MemorySegment s, long at, MemorySegment bytes) {
        s.set(ValueLayout.JAVA_INT_UNALIGNED, at, T_BYTES);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, at + 4, (int) bytes.byteSize());
        MemorySegment.copy(bytes, 0, s, at + VALUE_HEADER, bytes.byteSize());
        return at + span(bytes.byteSize());
    }

    /** How one value will be written: its tag, payload size, and (for WIRE) the type to write it as. */
    private record Planned(int tag, long payload, Object value, Class<?> as, int region) {}

    private void sendCall(Binding b, RemoteInterface.MethodInfo mi, Object[] args, long id, Pending p) {
        if (mi.primitivesOnly) { // nothing to plan, no regions
            send(CALL, b.toObject ? TO_OBJECT : 0, args.length, b.target, id, mi.id, p.chain,
                    (long) args.length * (VALUE_HEADER + 8), PRIMITIVES, args, p);
            return;
        }
        sendLock.lock(); // held across planning and regions, so the regions precede this very message
        try {
            if (outboxCount != 0 && sendLock.getHoldCount() == 1) {
                flushOutbox(true); // before any region: a region belongs to the next message sent
            }
            Planned[] plan = new Planned[mi.params.length];
            long body = 0;
            boolean unsized = false;
            for (int i = 0; i < plan.length; i++) {
                plan[i] = plan(mi.params[i], args[i], mi, true);
                if (plan[i].payload < 0) {
                    unsized = true;
                } else {
                    body += span(plan[i].payload);
                }
            }
            int flags = b.toObject ? TO_OBJECT : 0;
            if (unsized) {
                if (onePass(flags, b.target, id, mi, p, plan, body)) {
                    return;
                }
                long graphs = 0; // the graphs did not fit the space the last calls needed: size them first
                for (int i = 0; i < plan.length; i++) {
                    if (plan[i].payload < 0) {
                        plan[i] = plan(mi.params[i], args[i], mi, false);
                        graphs += span(plan[i].payload);
                    }
                }
                body += graphs;
                mi.graphBytes = (int) Math.min(Integer.MAX_VALUE, graphs);
            }
            send(CALL, flags, plan.length, b.target, id, mi.id, p.chain, body, PLANNED, plan, p);
        } catch (TransportException e) {
            throw sendFailed(e, p);
        } catch (RuntimeException | Error e) {
            forget(p); // whatever failed (an accessor of a view argument, say), nothing waits for a reply
            throw e;
        } finally {
            unlockSend();
        }
    }

    /**
     * The largest estimate {@link #onePass} claims: a claim is contiguous space in one receive area, so a
     * large estimate would move the sender to a fresh area for every call; larger graphs are sized first.
     */
    private static final long ONE_PASS_MAX = 64 * 1024;

    /**
     * Writes a call whose graphs were not sized, in one pass: claims the space the method's graphs took
     * last time and a half more, writes them with {@link WireWriter#tryWrite}, and commits what was used.
     * False (nothing sent) when a graph did not fit, on a method's first call, or when the estimate is
     * large: the caller then sizes the graphs and sends in two passes.
     */
    private boolean onePass(int flags, int target, long id, RemoteInterface.MethodInfo mi, Pending p, Planned[] plan,
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
        boolean committed = false;
        try {
            MemorySegment s = c.segment();
            header(s, CALL, flags, plan.length, target, id, mi.id, p.chain);
            long at = HEADER;
            long graphs = 0;
            for (Planned v : plan) {
                if (v.payload >= 0) {
                    at = put(s, at, v, writer);
                    continue;
                }
                long n;
                try {
                    n = writer.tryWrite(v.value, s, at + VALUE_HEADER);
                } catch (IllegalArgumentException e) {
                    throw new RemoteException(Reason.ARGUMENT, mi.method.getName() + ": cannot pass a "
                            + v.value.getClass().getName() + ": " + e.getMessage(), e);
                }
                long end = at + span(n);
                if (n < 0 || end > s.byteSize()) {
                    return false;
                }
                s.set(ValueLayout.JAVA_INT_UNALIGNED, at, T_WIRE);
                s.set(ValueLayout.JAVA_INT_UNALIGNED, at + 4, (int) n);
                s.asSlice(at + VALUE_HEADER + n, end - at - VALUE_HEADER - n).fill((byte) 0);
                graphs += span(n);
                at = end;
            }
            committed = true;
            c.commit((int) at);
            mi.graphBytes = (int) graphs; // the latest size, not the largest: one big call does not inflate every later claim
            return true;
        } catch (TransportException e) {
            throw sendFailed(e, p);
        } finally {
            if (!committed) {
                c.abort();
            }
        }
    }

    /**
     * Plans an argument (under sendLock): regions for large arrays are written here, ahead of the message.
     * With {@code deferGraphs}, a graph by copy is left unsized (payload -1), for {@link #onePass}.
     */
    private Planned plan(ValueKind k, Object v, RemoteInterface.MethodInfo mi, boolean deferGraphs) {
        return plan(k, v, mi, deferGraphs, true, writer);
    }

    /**
     * Plans a result: no regions (an answer never waits for room, and a region cannot be tried; large
     * arrays go inline, which on shm and tcp is the same one copy), sized with the outbox's writer.
     */
    private Planned planResult(ValueKind k, Object v, RemoteInterface.MethodInfo mi) {
        synchronized (outbox) {
            return plan(k, v, mi, false, false, outboxWriter);
        }
    }

    private Planned plan(ValueKind k, Object v, RemoteInterface.MethodInfo mi, boolean deferGraphs, boolean regions,
                         WireWriter w) {
        if (k.primitive()) {
            return new Planned(T_PRIM, 8, v, null, -1);
        }
        if (v == null) {
            return new Planned(T_NULL, 0, null, null, -1);
        }
        switch (k.tag()) {
            case SEGMENT -> {
                MemorySegment seg = (MemorySegment) v;
                if (regions && seg.byteSize() >= REGION_THRESHOLD) {
                    return new Planned(T_REGION, 4, null, null, region(seg));
                }
                return new Planned(T_BYTES, seg.byteSize(), seg, null, -1);
            }
            case REMOTE -> {
                return new Planned(T_REMOTE, 8, v, k.type(), -1);
            }
            case COPY, VIEW -> {
                Class<?> c = v.getClass();
                if (k.bytes()) { // raw, as a segment goes: no wire message around it
                    MemorySegment seg = MemorySegment.ofArray((byte[]) v);
                    if (regions && seg.byteSize() >= REGION_THRESHOLD) {
                        return new Planned(T_REGION, 4, null, null, region(seg));
                    }
                    return new Planned(T_BYTES, seg.byteSize(), seg, null, -1);
                }
                if (regions && k.tag() == ValueKind.Tag.COPY && c.isArray() && c.getComponentType().isPrimitive()
                        && c.getComponentType() != boolean.class) {
                    MemorySegment arr = arraySegment(v);
                    if (arr.byteSize() >= REGION_THRESHOLD) {
                        return new Planned(T_REGION, 4, null, null, region(arr));
                    }
                }
                if (deferGraphs && k.tag() == ValueKind.Tag.COPY) {
                    return new Planned(T_WIRE, -1, v, null, -1);
                }
                try {
                    long n = k.tag() == ValueKind.Tag.VIEW ? sizeAs(w, v, k.type()) : w.sizeOf(v);
                    return new Planned(T_WIRE, n, v, k.tag() == ValueKind.Tag.VIEW ? k.type() : null, -1);
                } catch (IllegalArgumentException e) {
                    throw new RemoteException(Reason.ARGUMENT, mi.method.getName() + ": cannot pass a "
                            + c.getName() + ": " + e.getMessage(), e);
                }
            }
            default -> throw new IllegalStateException(k.toString());
        }
    }

    @SuppressWarnings("unchecked")
    private static long sizeAs(WireWriter w, Object v, Class<?> as) {
        return w.sizeOf(v, (Class<Object>) as);
    }

    private int region(MemorySegment seg) {
        if (seg.byteSize() > connection.maxMessageLength()) {
            throw new RemoteException(Reason.ARGUMENT, "an array or segment of " + seg.byteSize()
                    + " bytes exceeds the connection's maximum of " + connection.maxMessageLength());
        }
        return connection.writeRegion(seg);
    }

    private static MemorySegment arraySegment(Object array) {
        return switch (array) {
            case byte[] a -> MemorySegment.ofArray(a);
            case short[] a -> MemorySegment.ofArray(a);
            case char[] a -> MemorySegment.ofArray(a);
            case int[] a -> MemorySegment.ofArray(a);
            case long[] a -> MemorySegment.ofArray(a);
            case float[] a -> MemorySegment.ofArray(a);
            case double[] a -> MemorySegment.ofArray(a);
            default -> throw new IllegalArgumentException(array.getClass().getName());
        };
    }

    @SuppressWarnings("unchecked")
    private long put(MemorySegment s, long at, Planned v, WireWriter w) {
        s.set(ValueLayout.JAVA_INT_UNALIGNED, at, v.tag);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, at + 4, (int) v.payload);
        long p = at + VALUE_HEADER;
        switch (v.tag) {
            case T_PRIM -> s.set(ValueLayout.JAVA_LONG_UNALIGNED, p, bits(v.value));
            case T_BYTES -> MemorySegment.copy((MemorySegment) v.value, 0, s, p, v.payload);
            case T_REGION -> s.set(ValueLayout.JAVA_LONG_UNALIGNED, p, v.region);
            case T_REMOTE -> s.set(ValueLayout.JAVA_LONG_UNALIGNED, p, remoteRef(v.value, v.as));
            case T_WIRE -> {
                long n = v.as == null ? w.write(v.value, s, p) : w.write(v.value, (Class<Object>) v.as, s, p);
                if (n != v.payload) {
                    throw new IllegalStateException("an argument changed while it was marshalled (" + n + " vs " + v.payload + ")");
                }
            }
            default -> { }
        }
        return at + span(v.payload);
    }

    private static long bits(Object v) {
        return switch (v) {
            case Integer i -> i;
            case Long l -> l;
            case Boolean b -> b ? 1 : 0;
            case Byte b -> b;
            case Short sh -> sh;
            case Character c -> c;
            case Float f -> Float.floatToRawIntBits(f);
            case Double d -> Double.doubleToRawLongBits(d);
            default -> throw new IllegalArgumentException(String.valueOf(v));
        };
    }

    /** Encodes a remote reference: the receiver's own object coming back, or one of ours (exported here). */
    private long remoteRef(Object v, Class<?> iface) {
        if (v instanceof ProxyObject po) {
            Binding pb = po.verbatimBinding();
            if (pb.callsOver(this)) { // back to its exporter: it arrives as the original
                return ((long) (pb.toObject ? SIDE_RECEIVER_OBJECT : SIDE_RECEIVER_EXPORT) << 32) | (pb.target & 0xFFFF_FFFFL);
            }
        }
        synchronized (locals) {
            Map<Class<?>, Local> byIface = localIds.computeIfAbsent(v, o -> new HashMap<>());
            Local l = byIface.get(iface);
            if (l == null) {
                l = new Local(++nextLocal, v, RemoteInterface.of(iface), new AtomicInteger());
                byIface.put(iface, l);
                locals.put(l.id, l);
                ensureDispatcher(); // the peer may call it back at any time
            }
            l.references.incrementAndGet();
            return l.id & 0xFFFF_FFFFL;
        }
    }

    // ------------------------------------------------------------------ receiving

    private void onDelivery(Delivery d) {
        handle(d, false);
    }

    /**
     * Handles one message. {@code owned}: {@code d} came from take (not a callback) and the caller
     * releases it, unless this returns true: a call running on a virtual thread took it over.
     */
    private boolean handle(Delivery d, boolean owned) {
        MemorySegment m = d.payload();
        int kind = m.byteSize() < REPLY_HEADER ? -1 : m.get(ValueLayout.JAVA_BYTE, KIND) & 0xFF;
        if (kind < 0 || m.byteSize() < headerOf(kind)) {
            protocol("a message of " + m.byteSize() + " bytes");
            return false;
        }
        try {
            switch (kind) {
                case CALL -> {
                    return dispatch(d, m, owned);
                }
                case REPLY, THROWN, FAIL, LOOKUP_OK, LOOKUP_FAIL -> reply(d, m, kind);
                case LOOKUP -> answerLookup(m);
                case RELEASE -> release(m.get(ValueLayout.JAVA_INT_UNALIGNED, TARGET),
                        m.get(ValueLayout.JAVA_LONG_UNALIGNED, CALL_ID));
                case CANCEL -> cancelRunning(m.get(ValueLayout.JAVA_LONG_UNALIGNED, CALL_ID));
                default -> protocol("an unknown message kind " + kind);
            }
        } catch (Yield y) {
            throw y;
        } catch (RuntimeException e) {
            protocol("a message that could not be handled: " + e);
        }
        return false;
    }

    private void protocol(String what) {
        closeWith("the peer sent " + what);
    }

    private void reply(Delivery d, MemorySegment m, int kind) {
        long id = m.get(ValueLayout.JAVA_LONG_UNALIGNED, CALL_ID);
        Pending p = take(id);
        if (p == null) {
            if (kind == REPLY) {
                releaseUnread(m, REPLY_HEADER); // timed out or cancelled: dropped, and what it refers to given back
            }
            return;
        }
        p.answered = true; // before the completion that publishes it: see Pending.answered
        try {
            switch (kind) {
                case REPLY -> {
                    int count = m.get(ValueLayout.JAVA_SHORT_UNALIGNED, COUNT);
                    Object v = count == 0 ? null : read(d, m, REPLY_HEADER, p.method.result, p.method);
                    p.complete(v);
                }
                case LOOKUP_OK -> p.complete(new int[] {m.get(ValueLayout.JAVA_INT_UNALIGNED, TARGET)}); // the export id
                case THROWN -> p.completeExceptionally(rebuild(m, p.method));
                case FAIL, LOOKUP_FAIL -> {
                    int r = m.get(ValueLayout.JAVA_BYTE, FLAGS);
                    Reason reason = r >= 0 && r < Reason.values().length ? Reason.values()[r] : Reason.PROTOCOL;
                    String message = string(m, HEADER);
                    if (kind == LOOKUP_FAIL && reason == Reason.INCOMPATIBLE && p.lookingUp != null
                            && m.get(ValueLayout.JAVA_SHORT_UNALIGNED, COUNT) == 2) {
                        message += "; missing: " + missing(m, next(m, HEADER), p.lookingUp);
                    }
                    p.completeExceptionally(new RemoteException(reason, message));
                }
                default -> { }
            }
        } catch (RuntimeException e) {
            p.completeExceptionally(e instanceof RemoteException ? e
                    : new RemoteException(Reason.PROTOCOL, "a malformed reply: " + e.getMessage(), e));
        }
        p.wake();
    }

    /** The client's own signatures of the method ids the server reported missing. */
    private static String missing(MemorySegment m, long at, RemoteInterface ri) {
        long[] ids = longs(m, at);
        StringBuilder b = new StringBuilder();
        for (long id : ids) {
            RemoteInterface.MethodInfo mi = ri.byId(id);
            b.append(b.isEmpty() ? "" : ", ").append(mi == null ? String.format("%016x", id) : mi.signature);
        }
        return b.toString();
    }

    /** A {@code BYTES} value at {@code at} read as u64s (method ids). */
    private static long[] longs(MemorySegment m, long at) {
        int n = m.get(ValueLayout.JAVA_INT_UNALIGNED, at + 4);
        next(m, at); // bounds-checks the value against the message
        return m.asSlice(at + VALUE_HEADER, n & ~7L).toArray(ValueLayout.JAVA_LONG_UNALIGNED);
    }

    private static String string(MemorySegment m, long at) {
        int tag = m.get(ValueLayout.JAVA_INT_UNALIGNED, at);
        if (tag == T_NULL) {
            return null;
        }
        if (tag != T_BYTES) {
            throw new IllegalArgumentException("a string value of tag " + tag);
        }
        int n = m.get(ValueLayout.JAVA_INT_UNALIGNED, at + 4);
        return new String(m.asSlice(at + VALUE_HEADER, n).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
    }

    private static long next(MemorySegment m, long at) {
        long n = m.get(ValueLayout.JAVA_INT_UNALIGNED, at + 4) & 0xFFFF_FFFFL;
        long end = at + span(n);
        if (end > m.byteSize()) {
            throw new IllegalArgumentException("a value overruns the message");
        }
        return end;
    }

    /** Reads one value of kind {@code k} at {@code at}. */
    private Object read(Delivery d, MemorySegment m, long at, ValueKind k, RemoteInterface.MethodInfo mi) {
        next(m, at);
        int tag = m.get(ValueLayout.JAVA_INT_UNALIGNED, at);
        long n = m.get(ValueLayout.JAVA_INT_UNALIGNED, at + 4) & 0xFFFF_FFFFL;
        long p = at + VALUE_HEADER;
        if (k.primitive()) {
            if (tag != T_PRIM || n != 8) {
                throw new IllegalArgumentException("a " + k.type() + " argument of tag " + tag);
            }
            long b = m.get(ValueLayout.JAVA_LONG_UNALIGNED, p);
            return switch (k.tag()) {
                case INT -> (int) b;
                case LONG -> b;
                case BOOLEAN -> b != 0;
                case BYTE -> (byte) b;
                case SHORT -> (short) b;
                case CHAR -> (char) b;
                case FLOAT -> Float.intBitsToFloat((int) b);
                case DOUBLE -> Double.longBitsToDouble(b);
                default -> throw new IllegalStateException();
            };
        }
        return switch (tag) {
            case T_NULL -> null;
            case T_BYTES -> {
                if (!k.bytes()) {
                    throw new IllegalArgumentException("bytes for a " + k.type().getName());
                }
                MemorySegment b = m.asSlice(p, n);
                yield k.tag() == ValueKind.Tag.SEGMENT ? b : b.toArray(ValueLayout.JAVA_BYTE);
            }
            case T_REGION -> {
                MemorySegment r = d.region((int) m.get(ValueLayout.JAVA_LONG_UNALIGNED, p));
                if (k.tag() == ValueKind.Tag.SEGMENT) {
                    yield r;
                }
                Class<?> c = k.type();
                if (!c.isArray() || !c.getComponentType().isPrimitive()) {
                    throw new IllegalArgumentException("a region for a " + c.getName());
                }
                yield toArray(r, c.getComponentType());
            }
            case T_WIRE -> {
                if (k.tag() != ValueKind.Tag.COPY && k.tag() != ValueKind.Tag.VIEW) {
                    throw new IllegalArgumentException("a graph for a " + k.type().getName());
                }
                Message msg = readers.get().validate(m.asSlice(p, n));
                yield k.tag() == ValueKind.Tag.VIEW ? msg.view(k.type()) : msg.materialize(k.type());
            }
            case T_REMOTE -> {
                if (k.tag() != ValueKind.Tag.REMOTE) {
                    throw new IllegalArgumentException("a remote reference for a " + k.type().getName());
                }
                long ref = m.get(ValueLayout.JAVA_LONG_UNALIGNED, p);
                yield resolve((int) ref, (int) (ref >>> 32), k.type());
            }
            default -> throw new IllegalArgumentException("an unknown value tag " + tag);
        };
    }

    private static Object toArray(MemorySegment r, Class<?> component) {
        if (component == byte.class) return r.toArray(ValueLayout.JAVA_BYTE);
        if (component == int.class) return r.toArray(ValueLayout.JAVA_INT);
        if (component == long.class) return r.toArray(ValueLayout.JAVA_LONG);
        if (component == double.class) return r.toArray(ValueLayout.JAVA_DOUBLE);
        if (component == float.class) return r.toArray(ValueLayout.JAVA_FLOAT);
        if (component == short.class) return r.toArray(ValueLayout.JAVA_SHORT);
        if (component == char.class) return r.toArray(ValueLayout.JAVA_CHAR);
        throw new IllegalArgumentException("a region for a " + component + "[]");
    }

    /** A remote reference arriving: our own object coming back, or a proxy of one of the peer's. */
    private Object resolve(int id, int side, Class<?> iface) {
        if (side == SIDE_RECEIVER_EXPORT) {
            Exports.Export e = exports.byId(id);
            Object impl = e == null ? null : e.bound.impl();
            if (impl == null || !iface.isInstance(impl)) {
                throw new IllegalArgumentException("a reference to export #" + id + ", which this side does not export as "
                        + iface.getName());
            }
            return impl;
        }
        if (side == SIDE_RECEIVER_OBJECT) {
            Local l;
            synchronized (locals) {
                l = locals.get(id);
            }
            if (l == null || !iface.isInstance(l.impl)) {
                throw new IllegalArgumentException("a reference to object #" + id + ", which this side does not export as "
                        + iface.getName());
            }
            return l.impl;
        }
        if (side != SIDE_SENDER) {
            throw new IllegalArgumentException("a reference of unknown side " + side);
        }
        WeakReference<Object> ref = imported.get(id);
        Object proxy = ref == null ? null : ref.get();
        if (proxy != null && iface.isInstance(proxy)) {
            ((ProxyObject) proxy).verbatimBinding().references.incrementAndGet(); // held: its cleaner cannot run
            return proxy;
        }
        AtomicInteger count = new AtomicInteger(1); // a new generation: an old proxy's cleaner keeps its own count
        Binding b = new Binding(this, RemoteInterface.of(iface), id, true, Duration.ofSeconds(30), count);
        proxy = ProxyFactory.create(b);
        imported.put(id, new WeakReference<>(proxy));
        CLEANER.register(proxy, () -> releaseRemote(b));
        return proxy;
    }

    /** Tells the peer this side dropped its references to one of the peer's objects. */
    void releaseRemote(Binding b) {
        if (b.released) {
            return;
        }
        b.released = true;
        int n = b.references.getAndSet(0);
        WeakReference<Object> ref = imported.get(b.target);
        if (ref != null && ref.refersTo(null)) {
            imported.remove(b.target, ref); // only a dead entry: a newer proxy of the object stays
        }
        if (n > 0 && !closed) {
            try {
                answer(RELEASE, 0, 0, b.target, n, 0, NOTHING, null);
            } catch (RuntimeException ignored) {
                // the connection is gone: the peer drops everything of ours anyway
            }
        }
    }

    private void release(int id, long count) {
        synchronized (locals) {
            Local l = locals.get(id);
            if (l != null && l.references.addAndGet((int) -count) <= 0) {
                locals.remove(id);
                Map<Class<?>, Local> byIface = localIds.get(l.impl);
                if (byIface != null) {
                    byIface.values().remove(l);
                    if (byIface.isEmpty()) {
                        localIds.remove(l.impl);
                    }
                }
            }
        }
    }

    /** Objects this side has passed by reference and the peer still holds. */
    public int exportedObjects() {
        synchronized (locals) {
            return locals.size();
        }
    }

    private void answerLookup(MemorySegment m) {
        long callId = m.get(ValueLayout.JAVA_LONG_UNALIGNED, CALL_ID);
        long at = HEADER;
        String name = string(m, at);
        at = next(m, at);
        String iface = string(m, at);
        at = next(m, at);
        long[] ids = longs(m, at);
        Exports.Export e = exports.byName(name);
        if (e == null) {
            fail(LOOKUP_FAIL, callId, Reason.NOT_FOUND, "nothing is exported as '" + clip(name) + "' at " + description);
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
            byte[] msg = ("'" + clip(name) + "' is exported as " + server.type.getName() + ", which lacks " + missing.size()
                    + " method(s) of " + clip(iface)).getBytes(StandardCharsets.UTF_8);
            long[] ms = missing.stream().limit(256).mapToLong(Long::longValue).toArray();
            MemorySegment a = MemorySegment.ofArray(msg);
            MemorySegment b = MemorySegment.ofArray(ms);
            answer(LOOKUP_FAIL, Reason.INCOMPATIBLE.ordinal(), 2, 0, callId, span(msg.length) + span(b.byteSize()), BODY,
                    (Body) (s, at2) -> putBytes(s, putBytes(s, at2, a), b));
            return;
        }
        answer(LOOKUP_OK, 0, 0, e.id, callId, 0, NOTHING, null);
    }

    private void fail(int kind, long callId, Reason reason, String message) {
        byte[] b = message.getBytes(StandardCharsets.UTF_8);
        MemorySegment bytes = MemorySegment.ofArray(b);
        answer(kind, reason.ordinal(), 1, 0, callId, span(b.length), BODY, (Body) (s, at) -> putBytes(s, at, bytes));
    }

    // ------------------------------------------------------------------ dispatch

    private boolean dispatch(Delivery d, MemorySegment m, boolean owned) {
        long callId = m.get(ValueLayout.JAVA_LONG_UNALIGNED, CALL_ID);
        long methodId = m.get(ValueLayout.JAVA_LONG_UNALIGNED, METHOD);
        int target = m.get(ValueLayout.JAVA_INT_UNALIGNED, TARGET);
        boolean toObject = (m.get(ValueLayout.JAVA_BYTE, FLAGS) & TO_OBJECT) != 0;
        RemoteInterface ri;
        Object impl;
        boolean virtual = false;
        if (toObject) {
            Local l;
            synchronized (locals) {
                l = locals.get(target);
            }
            if (l == null) {
                releaseUnread(m, HEADER);
                fail(FAIL, callId, Reason.NOT_FOUND, "object #" + target + " is no longer exported by " + description);
                return false;
            }
            ri = l.remote;
            impl = l.impl;
        } else {
            Exports.Export e = exports.byId(target);
            if (e == null) {
                releaseUnread(m, HEADER);
                fail(FAIL, callId, Reason.NOT_FOUND, "export #" + target + " was unexported at " + description);
                return false;
            }
            Exports.Bound bound = e.bound;
            ri = bound.remote();
            impl = bound.impl();
            virtual = e.options.virtualThreads();
        }
        RemoteInterface.MethodInfo mi = ri.byId(methodId);
        if (mi == null) {
            releaseUnread(m, HEADER);
            fail(FAIL, callId, Reason.INCOMPATIBLE, ri.type.getName() + " has no method with id "
                    + String.format("%016x", methodId));
            return false;
        }
        int count = m.get(ValueLayout.JAVA_SHORT_UNALIGNED, COUNT);
        if (count != mi.params.length) {
            protocol("a call of " + mi.signature + " with " + count + " arguments");
            return false;
        }
        if (mi.async && asyncCalls.get() >= MAX_ASYNC_CALLS) {
            releaseUnread(m, HEADER);
            fail(FAIL, callId, Reason.OVERLOADED, MAX_ASYNC_CALLS + " asynchronous calls are already running at " + description);
            return false;
        }
        // Which thread runs it (J-RPC's delegate threads): a nested call of a chain one of our
        // callers waits in runs on that caller (as a local call would: its monitors are re-entered,
        // not deadlocked on); any other call never runs on a waiting caller, but on a virtual thread
        // (if the export asks) or on the dispatcher, inline when the dispatcher is the one reading.
        long chain = m.get(ValueLayout.JAVA_LONG_UNALIGNED, CHAIN);
        Thread me = Thread.currentThread();
        Pending delegate = chain == 0 || (solo == null && pending.isEmpty()) ? null : waitingIn(chain);
        boolean inline = delegate != null ? delegate.caller == me : !virtual && me == dispatcher && !callersWait();
        if (inline) {
            // views and segments read the message during the call: retained, so that another thread
            // reading on cannot free its area (every other argument is decoded before the lock goes)
            Delivery kept = owned || !mi.inPlace ? d : d.retain();
            boolean keep = false;
            // the read lock is given away while the call runs, so that what it waits for (a call of
            // another thread of this process, say) can be read; taken back after, if still free
            boolean reading = recvLock.isHeldByCurrentThread();
            try {
                Object[] args;
                try {
                    args = arguments(kept, m, callId, mi); // before the read lock goes: see arguments()
                } finally {
                    if (reading) {
                        recvLock.unlock();
                    }
                }
                if (args != null) {
                    keep = run(kept, m, args, callId, chain, ri, mi, impl);
                }
            } finally {
                if (kept != d && !keep) {
                    kept.release();
                }
            }
            if (reading && !recvLock.tryLock()) {
                if (owned && !keep) {
                    releaseQuietly(d);
                }
                throw Yield.INSTANCE; // out of the transport's poll: the new holder reads on
            }
            return keep;
        }
        Delivery kept = owned ? d : d.retain(); // the arguments stay readable on the thread that runs the call
        final RemoteInterface fri = ri;
        final Object fimpl = impl;
        Runnable task = () -> {
            boolean keep = false;
            try {
                Object[] args = arguments(kept, kept.payload(), callId, mi);
                if (args != null) {
                    keep = run(kept, kept.payload(), args, callId, chain, fri, mi, fimpl);
                }
            } catch (IllegalStateException closed) {
                // the connection closed before the call ran: its caller learnt that already
            } finally {
                if (!keep) {
                    releaseQuietly(kept);
                }
            }
        };
        if (delegate != null && delegate.offer(task)) {
            return true;
        }
        if (virtual) {
            if (virtualCalls.tryAcquire()) {
                startVirtual(task);
            } else {
                // back-pressure: the dispatcher waits for a running call to end, outside the read
                // lock, so that the running calls' own nested calls still get their replies
                queue(() -> {
                    if (acquireVirtual()) {
                        startVirtual(task);
                    } else {
                        releaseQuietly(kept);
                    }
                });
            }
            return true;
        }
        queue(task);
        return true;
    }

    // ------------------------------------------------------------------ in-place arguments kept past their call

    /** What a thread knows of the incoming calls it runs. Thread-confined. */
    private static final class Context {
        /** The innermost running call's chain (0: none): the thread's outgoing calls carry it. */
        long chain;
        /** The innermost running call with in-place arguments, or null. */
        Frame frame;
        /** A virtual thread this endpoint started for a call (which a CANCEL may interrupt). */
        boolean callThread;
    }

    /** A running call with view or segment arguments: where {@link #inPlace} finds their bytes. */
    private static final class Frame {
        final MemorySegment message;
        final Object[] args;
        final RemoteInterface.MethodInfo method;
        final Frame outer;

        Frame(MemorySegment message, Object[] args, RemoteInterface.MethodInfo method, Frame outer) {
            this.message = message;
            this.args = args;
            this.method = method;
            this.outer = outer;
        }

        /** The bytes of {@code arg}, if it is one of this call's in-place arguments. */
        InPlace find(Object arg) {
            for (int i = 0; i < args.length; i++) {
                ValueKind k = method.params[i];
                if (args[i] != arg || k.tag() != ValueKind.Tag.VIEW && k.tag() != ValueKind.Tag.SEGMENT) {
                    continue;
                }
                if (k.tag() == ValueKind.Tag.SEGMENT) {
                    return new InPlace((MemorySegment) arg, null);
                }
                long at = HEADER;
                for (int j = 0; j < i; j++) {
                    at = next(message, at);
                }
                long n = message.get(ValueLayout.JAVA_INT_UNALIGNED, at + 4) & 0xFFFF_FFFFL;
                return new InPlace(message.asSlice(at + VALUE_HEADER, n), k.type());
            }
            return null;
        }
    }

    /**
     * A view or segment argument of a call running now, as its bytes: what {@code Node.keep} copies.
     *
     * @param bytes the wire message of a view, or the segment itself (in place: valid only during the call)
     * @param view  the view interface, or null for a segment
     */
    public record InPlace(MemorySegment bytes, Class<?> view) {}

    /**
     * {@code arg} as an in-place argument of a call this thread runs (the innermost first), or of an
     * asynchronous method whose future has not completed; null if it is neither.
     */
    public static InPlace inPlace(Object arg) {
        for (Frame f = CONTEXT.get().frame; f != null; f = f.outer) {
            InPlace p = f.find(arg);
            if (p != null) {
                return p;
            }
        }
        for (Frame f : ASYNC_FRAMES) {
            InPlace p = f.find(arg);
            if (p != null) {
                return p;
            }
        }
        return null;
    }

    /** A sync caller of this endpoint waiting in {@code chain}, if any. */
    private Pending waitingIn(long chain) {
        Pending s1 = solo;
        if (s1 != null && s1.chain == chain && !s1.isDone()) {
            return s1;
        }
        for (Pending p : pending.values()) {
            if (p.chain == chain && p.caller != null && !p.isDone()) {
                return p;
            }
        }
        return null;
    }

    private void startVirtual(Runnable task) {
        Thread.ofVirtual().name("verbatim-rpc-call").start(() -> {
            try {
                CONTEXT.get().callThread = true;
                task.run();
            } finally {
                virtualCalls.release();
            }
        });
    }

    private boolean acquireVirtual() {
        try {
            while (!closed) {
                if (virtualCalls.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                    return true;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return false;
    }

    /** Hands an incoming call to the dispatcher (read by a caller, which must not run it). */
    private void queue(Runnable task) {
        queued.add(task);
        ensureDispatcher();
        Thread t = dispatcher;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    private void runQueued() {
        for (Runnable t = queued.poll(); t != null; t = queued.poll()) {
            t.run();
        }
    }

    private static void releaseQuietly(Delivery d) {
        try {
            d.release();
        } catch (IllegalStateException ignored) {
            // the connection closed meanwhile
        }
    }

    /**
     * A call rejected before its arguments were read may still carry references to the caller's
     * objects, which the caller counted as held: give them back, or they would leak until the
     * connection closes.
     */
    private void releaseUnread(MemorySegment m, long at) {
        int count = m.get(ValueLayout.JAVA_SHORT_UNALIGNED, COUNT) & 0xFFFF;
        try {
            for (int i = 0; i < count && at < m.byteSize(); i++) {
                long end = next(m, at);
                if (m.get(ValueLayout.JAVA_INT_UNALIGNED, at) == T_REMOTE) {
                    long ref = m.get(ValueLayout.JAVA_LONG_UNALIGNED, at + VALUE_HEADER);
                    if ((int) (ref >>> 32) == 0) {
                        int id = (int) ref;
                        answer(RELEASE, 0, 0, id, 1, 0, NOTHING, null);
                    }
                }
                at = end;
            }
        } catch (RuntimeException ignored) {
            // a malformed message: nothing more to give back
        }
    }

    /**
     * Reads a call's arguments (views and segments in place); null when they cannot be read: the caller
     * was told why and the connection is closed. A reading thread decodes before it gives the read lock
     * away: once another thread reads on, a callback's delivery is gone (its area may be reused).
     */
    private Object[] arguments(Delivery d, MemorySegment m, long callId, RemoteInterface.MethodInfo mi) {
        if (mi.params.length == 0) {
            return NO_ARGS;
        }
        Object[] args = new Object[mi.params.length];
        long at = HEADER;
        try {
            for (int i = 0; i < args.length; i++) {
                args[i] = read(d, m, at, mi.params[i], mi);
                at = next(m, at);
            }
            return args;
        } catch (RuntimeException e) {
            // a malformed call: the caller learns why, then the connection is dropped (other connections go on)
            String why = "the arguments of " + mi.signature + " could not be read: " + e.getMessage();
            try {
                byte[] b = why.getBytes(StandardCharsets.UTF_8);
                MemorySegment bytes = MemorySegment.ofArray(b);
                send(FAIL, Reason.PROTOCOL.ordinal(), 1, 0, callId, 0, 0, span(b.length), BODY,
                        (Body) (s, a) -> putBytes(s, a, bytes), null); // waits for room: nothing comes after it
            } catch (RuntimeException ignored) {
                // the connection failed first
            } finally {
                closeWith("the peer sent " + why);
            }
            return null;
        }
    }

    /**
     * Runs a call whose arguments were read (with its chain as this thread's, so nested calls carry it)
     * and replies. Returns true when an asynchronous method still reads its in-place arguments: {@code d}
     * is then released when its future completes, not by the caller.
     */
    private boolean run(Delivery d, MemorySegment m, Object[] args, long callId, long chain, RemoteInterface ri,
                        RemoteInterface.MethodInfo mi, Object impl) {
        Context c = CONTEXT.get();
        long outerChain = c.chain;
        Frame outerFrame = c.frame;
        c.chain = chain;
        Frame f = mi.inPlace ? new Frame(m, args, mi, outerFrame) : null;
        if (f != null) {
            c.frame = f;
        }
        try {
            return runIn(c, d, f, args, callId, ri, mi, impl);
        } finally {
            c.chain = outerChain;
            c.frame = outerFrame;
        }
    }

    private boolean runIn(Context context, Delivery d, Frame frame, Object[] args, long callId, RemoteInterface ri,
                          RemoteInterface.MethodInfo mi, Object impl) {
        Object result = null;
        Throwable failure = null;
        Running cancellable = null;
        if (context.callThread) { // our own call thread: a CANCEL may interrupt it
            cancellable = new Running(Thread.currentThread(), null);
            running.put(callId, cancellable);
        }
        boolean asyncFrame = mi.async && frame != null;
        if (asyncFrame) {
            ASYNC_FRAMES.add(frame); // the method may hand its arguments to another thread before it returns
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
            ASYNC_FRAMES.remove(frame);
        }
        if (failure != null) {
            thrown(callId, failure);
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
                    ASYNC_FRAMES.remove(frame);
                }
                try {
                    if (t != null) {
                        thrown(callId, t instanceof java.util.concurrent.CompletionException && t.getCause() != null
                                ? t.getCause() : t);
                    } else {
                        replyValue(callId, mi, v);
                    }
                } finally {
                    asyncCalls.decrementAndGet();
                    if (keep) {
                        releaseQuietly(d);
                    }
                }
            });
            return keep;
        }
        replyValue(callId, mi, result);
        return false;
    }

    private void replyValue(long callId, RemoteInterface.MethodInfo mi, Object result) {
        try {
            if (mi.result.tag() == ValueKind.Tag.VOID) {
                answer(REPLY, 0, 0, 0, callId, 0, NOTHING, null);
                return;
            }
            if (mi.result.primitive()) {
                answer(REPLY, 0, 1, 0, callId, VALUE_HEADER + 8, PRIMITIVE, result);
                return;
            }
            Planned v = planResult(mi.result, result, mi);
            answer(REPLY, 0, 1, 0, callId, span(v.payload), ONE_PLANNED, v);
        } catch (RemoteException e) {
            if (e.reason() == Reason.ARGUMENT) {
                fail(FAIL, callId, Reason.ARGUMENT, "the result of " + mi.signature + " cannot be sent: " + e.getMessage());
            }
        } catch (RuntimeException e) {
            fail(FAIL, callId, Reason.ARGUMENT, "the result of " + mi.signature + " cannot be sent: " + e);
        }
    }

    /** Sends an exception back: class names and messages of its cause chain (never a class to load). */
    private void thrown(long callId, Throwable t) {
        List<MemorySegment> parts = new ArrayList<>();
        long body = 0;
        Set<Throwable> seen = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable c = t; c != null && seen.add(c) && parts.size() < 32; c = c.getCause()) {
            StringBuilder chain = new StringBuilder(c.getClass().getName()); // and its superclasses, so a
            for (Class<?> k = c.getClass().getSuperclass(); k != null && k != Throwable.class
                    && chain.length() < 2000; k = k.getSuperclass()) { // caller can rebuild the nearest declared one
                chain.append(',').append(k.getName());
            }
            byte[] n = chain.toString().getBytes(StandardCharsets.UTF_8);
            String msg = c.getMessage();
            byte[] mb = msg == null ? null : truncate(msg).getBytes(StandardCharsets.UTF_8);
            parts.add(MemorySegment.ofArray(n));
            parts.add(mb == null ? null : MemorySegment.ofArray(mb));
            body += span(n.length) + span(mb == null ? 0 : mb.length);
        }
        try {
            answer(THROWN, 0, parts.size() / 2, 0, callId, body, BODY, (Body) (s, at) -> {
                for (MemorySegment p : parts) {
                    if (p == null) {
                        s.set(ValueLayout.JAVA_INT_UNALIGNED, at, T_NULL);
                        s.set(ValueLayout.JAVA_INT_UNALIGNED, at + 4, 0);
                        at += VALUE_HEADER;
                    } else {
                        at = putBytes(s, at, p);
                    }
                }
            });
        } catch (RuntimeException ignored) {
            // the connection is gone: the caller learns that instead
        }
    }

    /** A peer's string as echoed in a reply: bounded, so a reply always fits. */
    private static String clip(String s) {
        return s == null ? "null" : s.length() > 200 ? s.substring(0, 200) + "..." : s;
    }

    private static String truncate(String s) {
        return s.length() > 8192 ? s.substring(0, 8192) + "..." : s;
    }

    /**
     * Rebuilds a thrown exception at the caller: a type declared by the method's signature, or a
     * common JDK runtime exception, is recreated with its message; anything else is a
     * {@link dev.verbatim.rpc.ServerException} naming the remote class. Causes are chained alike.
     */
    private Throwable rebuild(MemorySegment m, RemoteInterface.MethodInfo mi) {
        int count = m.get(ValueLayout.JAVA_SHORT_UNALIGNED, COUNT);
        String[] names = new String[count];
        String[] messages = new String[count];
        long at = HEADER;
        for (int i = 0; i < count; i++) {
            names[i] = string(m, at);
            at = next(m, at);
            messages[i] = string(m, at);
            at = next(m, at);
        }
        Throwable cause = null;
        for (int i = count - 1; i >= 0; i--) {
            Throwable t = recreate(names[i], messages[i], mi);
            if (cause != null) {
                try {
                    t.initCause(cause);
                } catch (IllegalStateException ignored) {
                    // a constructor already set one
                }
            }
            cause = t;
        }
        return cause == null ? new RemoteException(Reason.PROTOCOL, "an empty exception reply") : cause;
    }

    private static Throwable recreate(String names, String message, RemoteInterface.MethodInfo mi) {
        String[] chain = names == null ? new String[] {"?"} : names.split(",");
        String name = chain[0];
        Class<?> type = null;
        for (int c = 0; c < chain.length; c++) { // the class itself, else its nearest superclass the caller may create
            String candidate = chain[c];
            if (c > 0 && (candidate.equals("java.lang.RuntimeException") || candidate.equals("java.lang.Exception"))) {
                break; // too general to stand for the real class: a ServerException names it instead
            }
            if (mi != null) {
                for (Class<?> declared : mi.method.getExceptionTypes()) {
                    if (declared.getName().equals(candidate)) {
                        type = declared;
                    }
                }
            }
            if (type == null && JDK_UNCHECKED.contains(candidate)) {
                try {
                    type = Class.forName(candidate, false, ClassLoader.getPlatformClassLoader());
                } catch (ClassNotFoundException e) {
                    type = null;
                }
            }
            if (type != null) {
                if (c > 0) {
                    message = name + (message == null ? "" : ": " + message); // the real class, in words
                }
                break;
            }
        }
        if (type != null && Throwable.class.isAssignableFrom(type)) {
            try {
                return (Throwable) type.getConstructor(String.class).newInstance(message);
            } catch (ReflectiveOperationException | RuntimeException e) {
                try {
                    return (Throwable) type.getConstructor().newInstance();
                } catch (ReflectiveOperationException | RuntimeException e2) {
                    // fall through
                }
            }
        }
        return new dev.verbatim.rpc.ServerException(name, message);
    }

    // ------------------------------------------------------------------ the dispatcher

    private synchronized void ensureDispatcher() {
        if (dispatcher != null || closed) {
            return;
        }
        dispatcher = Thread.ofPlatform().daemon().name("verbatim-rpc " + description).start(this::dispatchLoop);
    }

    private void dispatchLoop() {
        try {
            dispatch();
        } catch (RuntimeException | Error e) {
            closeWith("the dispatcher failed: " + e); // never a connection left open and unread
        }
    }

    private void dispatch() {
        while (!closed) {
            runQueued();
            int ended = callsEnded;
            if (ended != callsEndedSeen) {
                callsEndedSeen = ended;
                callerSeenAt = System.nanoTime();
            }
            if (callersWait() || System.nanoTime() - callerSeenAt < STEP_ASIDE_NANOS) {
                // callers are leading (they read replies themselves; a thread hand-off per reply would
                // cost a wake-up), so the dispatcher only glances at the connection now and then: a
                // message nobody waits for (a callback, an asynchronous reply) still goes within ~0.1 ms,
                // and calls a leading caller reads are handed here at once (see queue)
                if (recvLock.tryLock()) {
                    try {
                        connection.poll(handler, 64);
                        tryFlush();
                    } catch (TransportException e) {
                        closeWith(e.getMessage());
                    } catch (Yield y) {
                        // gave the lock away during a call
                    } finally {
                        unlockIfHeld();
                    }
                }
                if (queued.isEmpty()) {
                    LockSupport.parkNanos(PEEK_NANOS);
                }
                expireAsync();
                continue;
            }
            recvLock.lock();
            try {
                // first spin with the allocation-free poll (a busy connection never leaves this: every
                // message restarts the spin), then sleep in take until a message comes (long: a short
                // timeout would restart the spin over and over and burn a core on an idle connection)
                // (after a wait that timed out with nothing, the connection is idle: straight back to sleep)
                long spinUntil = System.nanoTime() + (lastWaitEmpty ? 0 : DISPATCH_SPIN_NANOS);
                int n = 0;
                while (!callersWait() && queued.isEmpty() && recvLock.isHeldByCurrentThread()) {
                    n = connection.poll(handler, 64);
                    if (outboxCount != 0) {
                        tryFlush();
                    }
                    long now = System.nanoTime();
                    if (n > 0) {
                        spinUntil = now + DISPATCH_SPIN_NANOS;
                        if (now - nextExpiry >= 0) {
                            break; // now and then, time out asynchronous calls
                        }
                        continue;
                    }
                    if (now - spinUntil >= 0) {
                        break;
                    }
                    Thread.onSpinWait();
                }
                if (n == 0 && !callersWait() && queued.isEmpty() && recvLock.isHeldByCurrentThread()) {
                    // While asynchronous calls are pending (their timeouts are checked after each wait) or answers
                    // wait in the outbox: 0.1 s (0.05 ms). Else sleep long: a thread that registers an asynchronous
                    // call or stashes an answer meanwhile sees `napping` and wakes the transport's take (napping is
                    // set before the second look, and they register before they look at it: one sees the other).
                    // Every timed wake-up costs CPU (~0.1 ms on a virtual machine), so an idle connection should
                    // have as few as possible.
                    long wait = waitNanos(100_000_000);
                    if (pending.isEmpty() && outboxCount == 0) {
                        napping = true;
                        if (pending.isEmpty() && outboxCount == 0) {
                            wait = IDLE_WAIT_NANOS;
                        }
                    }
                    Delivery d;
                    try {
                        d = connection.take(Duration.ofNanos(wait));
                    } finally {
                        napping = false;
                    }
                    lastWaitEmpty = d == null;
                    if (d != null) {
                        if (!handle(d, true)) {
                            releaseQuietly(d);
                        }
                        while (queued.isEmpty() && connection.poll(handler, 64) > 0) {
                            // drain what else has arrived
                        }
                    }
                }
            } catch (TransportException e) {
                closeWith(e.getMessage());
            } catch (Yield y) {
                // gave the lock away during a call; whoever holds it now reads
            } finally {
                unlockIfHeld();
            }
            expireAsync();
        }
        runQueued(); // calls still queued fail their replies quietly and give their deliveries back
    }

    private long nextExpiry;

    /** The dispatcher's last wait in the transport ended with nothing received (dispatcher thread only). */
    private boolean lastWaitEmpty;

    /** How long an idle dispatcher sleeps in the transport when nothing needs it sooner. */
    private static final long IDLE_WAIT_NANOS = 10_000_000_000L;

    /** The dispatcher sleeps up to {@link #IDLE_WAIT_NANOS}: whoever gives it work sooner calls {@link #rouse}. */
    private volatile boolean napping;

    /** Ends the dispatcher's long sleep, if it sleeps: an asynchronous call's deadline or an outbox entry needs it. */
    private void rouse() {
        if (napping) {
            connection.wakeup();
        }
    }

    /** How long a reader may sleep in the transport: briefly while the outbox waits for room in the peer's window. */
    private long waitNanos(long idle) {
        return outboxCount != 0 ? OUTBOX_RETRY_NANOS : idle;
    }

    /** How often a reader retries sending the outbox (nothing tells it when the peer's window has room). */
    private static final long OUTBOX_RETRY_NANOS = 50_000;

    /** Times out asynchronous calls whose deadline passed (the dispatcher's job), at most every 0.1 ms. */
    private void expireAsync() {
        long now = System.nanoTime();
        if (now - nextExpiry < 0) {
            return;
        }
        nextExpiry = now + PEEK_NANOS;
        if (pending.isEmpty()) {
            return;
        }
        for (Pending p : pending.values()) {
            if (p.caller == null && now - p.deadline() >= 0) { // a synchronous caller times itself out
                timeOut(p);
            }
        }
    }

    // ------------------------------------------------------------------ closing

    private String reason() {
        String r = closeReason;
        return r == null ? "" : " (" + r + ")";
    }

    /** Closes the endpoint: pending calls fail, objects exported on it are dropped. */
    public void closeWith(String why) {
        synchronized (this) {
            if (closed) {
                return;
            }
            closeReason = why;
            closed = true;
        }
        connection.close();
        RemoteException failure = new RemoteException(Reason.CONNECTION, description + " closed" + reason());
        Pending s1 = solo;
        if (s1 != null && forget(s1)) {
            s1.completeExceptionally(failure);
            s1.wake();
        }
        for (Pending p : pending.values()) {
            pending.remove(p.id);
            p.completeExceptionally(failure);
            p.wake();
        }
        synchronized (locals) {
            locals.clear();
            localIds.clear();
        }
        synchronized (outbox) { // answers nobody can send any more
            outbox.clear();
            outboxBytes = 0;
            outboxCount = 0;
        }
        imported.clear();
        onClose.run();
    }

    public void close() {
        closeWith("closed by this side");
        Thread t = dispatcher;
        if (t != null && t != Thread.currentThread()) {
            try {
                t.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
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
            b.endpoint.releaseRemote(b);
        }
    }
}
