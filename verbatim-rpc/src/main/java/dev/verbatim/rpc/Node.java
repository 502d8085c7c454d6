package dev.verbatim.rpc;

import dev.verbatim.rpc.internal.CallContext;
import dev.verbatim.rpc.internal.ChainDirectory;
import dev.verbatim.rpc.internal.Endpoint;
import dev.verbatim.rpc.internal.Exports;
import dev.verbatim.rpc.internal.NodeAccess;
import dev.verbatim.rpc.internal.NodeExtension;
import dev.verbatim.rpc.internal.RemoteInterface;
import dev.verbatim.transport.Connection;
import dev.verbatim.transport.ConnectionOptions;
import dev.verbatim.transport.Listener;
import dev.verbatim.transport.Transport;
import dev.verbatim.transport.TransportException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A process's presence in J-RPC: it exports objects under names, as exactly one interface each, on
 * the addresses it listens at, and looks up objects exported by others.
 *
 * <pre>{@code
 * Node server = Node.listen("shm:quotes");                       // or "tcp://:7000"
 * server.export("quotes", QuoteService.class, new QuoteServiceImpl());
 *
 * Node client = Node.create();
 * QuoteService q = client.lookup("shm:quotes", "quotes", QuoteService.class);
 * Quote best = q.best("ACME");                                   // a call, as if local
 * }</pre>
 *
 * <p>Call semantics follow the signature: primitives, strings, enums, records, classes and arrays are
 * passed by copy (a record or class graph keeps its sharing and cycles, {@code transient} fields
 * excluded); an accessor-interface parameter arrives as a zero-copy view valid during the call; a
 * {@code MemorySegment} as a zero-copy slice valid during the call (either can be kept longer with
 * {@link #keep}); an interface extending
 * {@link Remote} by reference. A {@code byte[]} and a {@code MemorySegment} are the same parameter on the
 * wire: a server may declare a segment, read in place, where its clients pass an array (as it may
 * declare a view where they pass a record), and skip allocating a copy. Large primitive arrays and
 * segments travel as one-sided writes ahead of the call. Exceptions thrown by the implementation are rethrown at the caller; failures of the
 * distribution are {@link RemoteException}. Thread-safe; many threads may share one proxy.
 */
public final class Node implements AutoCloseable {
    /** The default call timeout of proxies. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    /**
     * Connections of nodes spin 500 µs before they park (the transport's default is 50 µs): waking a
     * parked peer costs tens of microseconds on a virtual machine, and if both sides of a call sleep
     * longer than they spin, every call pays two wake-ups. An idle node still parks.
     */
    public static final ConnectionOptions DEFAULT_OPTIONS = ConnectionOptions.DEFAULT.withSpin(500_000, false);

    private final Exports exports = new Exports();
    private final List<Listener> listeners = new ArrayList<>();
    private final List<Thread> acceptors = new ArrayList<>();
    private final Set<Endpoint> endpoints = ConcurrentHashMap.newKeySet();
    private final Map<String, Endpoint[]> clients = new ConcurrentHashMap<>();
    private final ConnectionOptions options;
    private final int connectionsPerAddress;
    /** The object layer's additions (dev.verbatim.objects), or null for a plain node. */
    private final NodeExtension extension;
    /** Chains matched across this node's connections (with an object layer), or null. */
    private final ChainDirectory chains;
    /** Set once, by the first {@link #close()}: read by the acceptors, lookups and {@link #isClosed()}. */
    private final AtomicBoolean closed = new AtomicBoolean();
    private final CountDownLatch closedLatch = new CountDownLatch(1);

    static {
        NodeAccess.install(new NodeAccess.Nodes() {
            @Override
            public Node listen(ConnectionOptions options, NodeExtension extension, String... addresses) {
                return Node.listen(new Node(options, 1, extension), addresses);
            }

            @Override
            public Endpoint[] connect(Node node, String address) {
                return node.endpoints(address);
            }

            @Override
            public Endpoint connectApart(Node node, String address) {
                try {
                    return node.newEndpoint(Transport.connect(address, node.options), false);
                } catch (TransportException t) {
                    throw new RemoteException(RemoteException.Reason.CONNECTION, "cannot reach " + address + ": "
                            + t.getMessage(), t);
                }
            }

            @Override
            public long messagesReceived(Node node) {
                return node.sumOfStats(dev.verbatim.transport.ConnectionStats::messagesReceived);
            }

            @Override
            public long parks(Node node) {
                return node.sumOfStats(dev.verbatim.transport.ConnectionStats::parks);
            }
        });
    }

    /** {@code stat} summed over this node's connections open now (tests). */
    private long sumOfStats(java.util.function.ToLongFunction<dev.verbatim.transport.ConnectionStats> stat) {
        long n = 0;
        for (Endpoint e : endpoints) {
            n += stat.applyAsLong(e.stats());
        }
        return n;
    }

    private Node(ConnectionOptions options, int connectionsPerAddress) {
        this(options, connectionsPerAddress, null);
    }

    private Node(ConnectionOptions options, int connectionsPerAddress, NodeExtension extension) {
        this.extension = extension;
        this.chains = extension == null ? null : new ChainDirectory();
        if (connectionsPerAddress < 1 || connectionsPerAddress > 64) {
            throw new IllegalArgumentException("connections per address must be 1 to 64, not " + connectionsPerAddress);
        }
        this.options = options;
        this.connectionsPerAddress = connectionsPerAddress;
    }

    /** A node that only looks up (and can still pass its objects by reference). */
    public static Node create() {
        return new Node(DEFAULT_OPTIONS, 1);
    }

    /**
     * A node that opens {@code connectionsPerAddress} connections to each address it looks up (J-RPC's
     * several connections per binding): a proxy spreads the threads calling it over them, each thread
     * always on the same one, so threads do not queue behind each other's sends and replies. Each
     * connection costs its receive windows (on shm, 2 × 16 MiB of shared memory with the default
     * options) and, while its callers are idle, nothing else.
     *
     * @throws IllegalArgumentException unless {@code 1 <= connectionsPerAddress <= 64}
     */
    public static Node create(ConnectionOptions options, int connectionsPerAddress) {
        return new Node(options, connectionsPerAddress);
    }

    /** A node listening at each address ({@code shm:NAME}, {@code tcp://HOST:PORT}). */
    public static Node listen(String... addresses) {
        return listen(DEFAULT_OPTIONS, addresses);
    }

    /**
     * A node listening at each address with {@code options}, which also serve the connections this
     * node opens by {@code lookup}: with {@link ConnectionOptions#withSharedSecret(byte[])}, a tcp
     * peer must prove the secret before any call is dispatched, and this node's own lookups prove it
     * (and require the other node to prove it). A peer without it fails at lookup with
     * {@link RemoteException.Reason#CONNECTION} caused by a transport {@code AUTH} failure.
     */
    public static Node listen(ConnectionOptions options, String... addresses) {
        return listen(new Node(options, 1), addresses);
    }

    private static Node listen(Node n, String... addresses) {
        ConnectionOptions options = n.options;
        try {
            for (String a : addresses) {
                Listener l = Transport.listen(a, options);
                n.listeners.add(l);
                Thread t = Thread.ofPlatform().daemon().name("verbatim-rpc-accept " + l.address()).start(() -> n.acceptLoop(l));
                n.acceptors.add(t);
            }
        } catch (RuntimeException e) {
            n.close();
            throw e;
        }
        return n;
    }

    /** The addresses this node listens at (with real ports). */
    public List<String> addresses() {
        return listeners.stream().map(Listener::address).toList();
    }

    private void acceptLoop(Listener l) {
        while (!closed.get()) {
            Connection c;
            try {
                c = l.accept(Duration.ofSeconds(1));
            } catch (TransportException e) {
                return; // closed
            }
            if (c != null) {
                Endpoint e = newEndpoint(c, true);
                if (closed.get()) {
                    e.close();
                }
            }
        }
    }

    /** Exports {@code impl} under {@code name} as {@code iface} only; calls run inline on the connection's dispatcher. */
    public <T> void export(String name, Class<T> iface, T impl) {
        export(name, iface, impl, ExportOptions.INLINE);
    }

    /**
     * Exports with options: calls on virtual threads, for methods that block; what a failure the method
     * does not declare tells the caller ({@link ExportOptions#withErrorDetails}: by default, nothing of the
     * implementation). A peer may call the export only over a connection it looked it up over.
     */
    public <T> void export(String name, Class<T> iface, T impl, ExportOptions options) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(impl, "impl");
        exports.export(name, iface, impl, options);
    }

    /** Replaces the implementation under {@code name}; bound clients go on calling, now the new one. */
    public void rebind(String name, Object impl) {
        exports.rebind(name, exportedInterface(name), impl);
    }

    /**
     * Upgrades the export under {@code name} to {@code iface}, which must extend the interface
     * exported so far (J-RPC §3.3): clients bound to the old interface keep calling; new lookups may
     * use the new one.
     */
    public <T> void rebind(String name, Class<T> iface, T impl) {
        exports.rebind(name, iface, impl);
    }

    private Class<?> exportedInterface(String name) {
        Class<?> c = exports.interfaceOf(name);
        if (c == null) {
            throw new IllegalStateException("nothing is exported as '" + name + "'");
        }
        return c;
    }

    /** Stops exporting {@code name}; later calls through bound proxies fail with {@code NOT_FOUND}. */
    public boolean unexport(String name) {
        return exports.unexport(name);
    }

    /** Looks up {@code name} at {@code address} as {@code iface}, with the default timeout. */
    public <T> T lookup(String address, String name, Class<T> iface) {
        return lookup(address, name, iface, DEFAULT_TIMEOUT);
    }

    /**
     * Looks up {@code name} at {@code address}: a proxy implementing {@code iface} only, whose calls
     * time out after {@code timeout}. The connections to an address (one, or as many as
     * {@link #create(ConnectionOptions, int)} says) are shared by all proxies of this node.
     *
     * @throws RemoteException {@code NOT_FOUND} if nothing is exported under the name,
     *         {@code INCOMPATIBLE} if the export does not offer every method of {@code iface},
     *         {@code CONNECTION} if the address cannot be reached
     */
    public <T> T lookup(String address, String name, Class<T> iface, Duration timeout) {
        RemoteInterface ri = RemoteInterface.of(iface);
        Endpoint[] group = endpoints(address);
        return iface.cast(group[0].lookup(name, ri, timeout, group));
    }

    /** The open connections to {@code address}, made when there are none or one of them closed. */
    private Endpoint[] endpoints(String address) {
        if (closed.get()) {
            throw new RemoteException(RemoteException.Reason.NOT_SENT, "the node is closed");
        }
        Endpoint[] g = clients.get(address);
        if (g != null && allOpen(g)) {
            return g;
        }
        synchronized (clients) {
            g = clients.get(address);
            if (g != null && allOpen(g)) {
                return g;
            }
            Endpoint[] group = new Endpoint[connectionsPerAddress];
            List<Endpoint> made = new ArrayList<>();
            for (int i = 0; i < group.length; i++) {
                if (g != null && g[i].isOpen()) {
                    group[i] = g[i]; // proxies bound to the old group keep these
                    continue;
                }
                Connection c;
                try {
                    c = Transport.connect(address, options);
                } catch (TransportException t) {
                    made.forEach(Endpoint::close);
                    throw new RemoteException(RemoteException.Reason.CONNECTION, "cannot reach " + address + ": "
                            + t.getMessage(), t);
                }
                group[i] = newEndpoint(c, false);
                made.add(group[i]);
            }
            clients.put(address, group);
            return group;
        }
    }

    /** One end of a new connection, entered among this node's endpoints (and gone from them when it closes). */
    private Endpoint newEndpoint(Connection c, boolean server) {
        Endpoint[] self = new Endpoint[1];
        self[0] = new Endpoint(c, exports, server, () -> endpoints.remove(self[0]), extension, chains);
        endpoints.add(self[0]); // before a server's endpoint reads: what the peer does first is counted
        if (server) {
            self[0].start();
        }
        return self[0];
    }

    private static boolean allOpen(Endpoint[] group) {
        for (Endpoint e : group) {
            if (!e.isOpen()) {
                return false;
            }
        }
        return true;
    }

    /** A proxy of the same binding with another call timeout. */
    @SuppressWarnings("unchecked")
    public static <T> T withTimeout(T proxy, Duration timeout) {
        return (T) Endpoint.withTimeout(proxy, timeout);
    }

    /**
     * Releases now, instead of when the garbage collector finds it unreachable, this process's
     * references to the object behind a proxy received by reference: every proxy of that object in
     * this process (one object arrives as one proxy, and copies made by {@link #withTimeout} share
     * it) stops working, and the exporter forgets the object once no process holds it.
     */
    public static void release(Object proxy) {
        Endpoint.release(proxy);
    }

    /**
     * Keeps a view or {@code MemorySegment} argument past its call. Such an argument is read in place, in
     * the connection's receive memory, and is valid only while its call runs (for an asynchronous method,
     * until its future completes); an implementation that needs it longer (to queue it, cache it, hand it
     * to a worker) keeps it:
     *
     * <pre>{@code
     * public void submit(OrderView order) {                 // an accessor-interface parameter
     *     Kept<OrderView> kept = Node.keep(order);          // during the call
     *     worker.execute(() -> {
     *         try (kept) { process(kept.get()); }           // after it: a view of the kept copy
     *     });
     * }
     * }</pre>
     *
     * The kept value is a copy of the argument's bytes outside the connection (so it never holds up the
     * connection, and reads of it can never fault), read as the same view interface (or as a read-only
     * segment). Close it when done; one that is dropped unclosed is freed by the garbage collector. See
     * {@link Kept}.
     *
     * @param argument a view or segment parameter of a call the calling thread is running (an outer call it
     *                 runs a nested call for counts too), or of an asynchronous method whose future has not
     *                 completed; the argument object itself, not a view read from it
     * @throws IllegalArgumentException if {@code argument} is not such an argument
     * @throws dev.verbatim.wire.WireFormatException if the argument's bytes were changed by a shared-memory
     *         peer after they were validated
     */
    public static <T> Kept<T> keep(T argument) {
        Objects.requireNonNull(argument, "argument");
        CallContext.InPlace p = CallContext.inPlace(argument);
        if (p == null) {
            throw new IllegalArgumentException("only a view or MemorySegment argument of a call running now can be kept"
                    + " (during the call, or until an asynchronous method's future completes), not "
                    + argument.getClass().getName());
        }
        return Kept.copy(p.bytes(), p.view());
    }

    /** Bytes held by {@link Kept} arguments of this process that were neither closed nor collected. */
    public static long keptBytes() {
        return Kept.liveBytes();
    }

    /** Objects this node passed by reference that peers still hold. */
    public int exportedObjects() {
        int n = 0;
        for (Endpoint e : endpoints) {
            n += e.exportedObjects();
        }
        return n;
    }

    /** Open connections of this node (accepted and connected). */
    public int connections() {
        return endpoints.size();
    }

    /**
     * Blocks until this node is closed, so that a server's {@code main} can keep serving: every thread
     * the library starts is a daemon, and a {@code main} that returns after {@code export} ends the
     * process. Close the node from another thread, or from a shutdown hook ({@link #closeOnShutdown()}),
     * to return from here.
     *
     * @throws InterruptedException if the waiting thread is interrupted (the node stays open)
     */
    public void awaitClose() throws InterruptedException {
        closedLatch.await();
    }

    /**
     * Waits at most {@code timeout} for this node to be closed.
     *
     * @return true if the node is closed, false if the time ran out
     * @throws InterruptedException if the waiting thread is interrupted (the node stays open)
     */
    public boolean awaitClose(Duration timeout) throws InterruptedException {
        return closedLatch.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /**
     * Closes this node when the JVM shuts down normally (the end of {@code main}'s last non-daemon thread,
     * {@code System.exit}, SIGTERM or Ctrl-C): its listeners stop, its connections close and its shm
     * files go. A node closed earlier is not closed twice. Returns this node.
     */
    public Node closeOnShutdown() {
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(this::close));
        return this;
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        return closed.get();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return; // closed, or being closed by another thread
        }
        try {
            closeAll();
        } finally {
            closedLatch.countDown();
        }
    }

    private void closeAll() {
        for (Listener l : listeners) {
            l.close();
        }
        for (Thread t : acceptors) {
            try {
                t.join(3000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (Endpoint e : List.copyOf(endpoints)) {
            e.close();
        }
    }
}
