package dev.verbatim.transport.internal;

import dev.verbatim.transport.Connection;
import dev.verbatim.transport.ConnectionOptions;
import dev.verbatim.transport.ListenerStats;
import dev.verbatim.transport.TransportException;
import dev.verbatim.transport.TransportException.Reason;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The accepting half of a listener: one platform thread ({@code verbatim-accept}) takes sockets
 * from the kernel and runs each handshake on its own virtual thread, so a connector that says
 * nothing delays nobody but itself; completed connections wait in a queue for
 * {@link #accept(Duration)}. Thread-safe. What it bounds (docs/transport.md §6.1):
 *
 * <ul>
 *   <li><b>Handshakes:</b> at most {@link #MAX_HANDSHAKES} at once, each within its deadline (the
 *       shorter of the handshake and connect timeouts). When every slot is taken, a new connector
 *       does not wait and is not dropped: the oldest handshake of the remote address holding the most
 *       slots is ended (evicted) and the newcomer takes its place. So a connector that completes its
 *       handshake before {@code MAX_HANDSHAKES} newer sockets arrive from its own address (or from
 *       one that holds more slots) always gets in, whatever number of silent sockets others hold.</li>
 *   <li><b>Connections:</b> at most {@code maxConnections} accepted and not closed (waiting in the
 *       queue or handed out). A handshake asks {@link Attempt#overLimit()} before it welcomes the
 *       connector; over the limit, it answers with a refusal ({@code BUSY}) instead. The check
 *       counts established connections, so handshakes in flight when the limit is reached may pass
 *       it together (at most {@code MAX_HANDSHAKES} over).</li>
 *   <li><b>Accept failures:</b> an {@code accept} that fails while the server socket is open (no
 *       descriptors left: {@code EMFILE}, {@code ENFILE}; no buffers) is counted and logged, and the
 *       thread backs off (10 ms doubling to 1 s, reset by the next success) and accepts again. Only a
 *       failure of a closed server socket ends the thread (then {@link #accept} reports it).</li>
 * </ul>
 *
 * Closing stops the thread, ends the handshakes and closes what was never accepted.
 */
final class Acceptor implements AutoCloseable {
    static final int MAX_HANDSHAKES = 128;
    private static final long FIRST_BACKOFF_MS = 10;
    private static final long MAX_BACKOFF_MS = 1000;

    /** Completes one connector's handshake, or drops it (closing the socket, {@link Attempt#drop}) and returns null. */
    interface Handshake {
        Connection complete(Attempt attempt);
    }

    /** One connector's handshake in progress: its socket, deadline and standing with the listener's bounds. */
    final class Attempt {
        private final SocketChannel channel;
        private final Object remote;
        private final long deadline;
        /** Set under {@link #lock} when ended early to make room; the socket is closed after. */
        private boolean evicted;
        /** {@link #overLimit()} said so: the handshake refuses the connector ({@code BUSY}). */
        private boolean refused;

        private Attempt(SocketChannel channel, Object remote, long deadline) {
            this.channel = channel;
            this.remote = remote;
            this.deadline = deadline;
        }

        SocketChannel channel() {
            return channel;
        }

        /** {@link System#nanoTime()} by which the whole handshake must be done. */
        long deadline() {
            return deadline;
        }

        /**
         * Whether the listener holds its limit of connections: the handshake must then refuse the
         * connector ({@code BUSY}) instead of welcoming it. Counts the refusal.
         */
        boolean overLimit() {
            if (connections.get() < options.maxConnections()) {
                return false;
            }
            refusedBusy.incrementAndGet();
            refused = true;
            return true;
        }

        /** The handshake failed: the socket is closed by the caller; records why (once). */
        void drop(String reason) {
            boolean wasEvicted;
            synchronized (lock) {
                wasEvicted = evicted;
            }
            if (wasEvicted) {
                Rejections.record(address, "evicted: all " + MAX_HANDSHAKES + " handshake slots were taken and this"
                        + " was the oldest of the address holding the most");
            } else {
                if (!refused) {
                    dropped.incrementAndGet();
                }
                Rejections.record(address, reason);
            }
        }
    }

    private final String address;
    private final ServerSocketChannel server;
    private final ConnectionOptions options;
    private final Handshake handshake;
    /** Connections ready to be accepted, and {@link #WAKE} once closed or failed. Bounded by maxConnections. */
    private final BlockingQueue<Object> ready = new LinkedBlockingQueue<>();
    /**
     * Put in {@link #ready} by {@link #close()} or a failure to wake every waiting {@link #accept} (each puts it back
     * for the next). Waiters therefore sleep for their whole timeout instead of in slices (each wake-up of an idle
     * listener costs CPU).
     */
    private static final Object WAKE = new Object();
    /** Guards {@link #byRemote}, {@link #handshakes} and {@link Attempt#evicted}. */
    private final Object lock = new Object();
    /** Handshakes in progress by remote address (an InetAddress, or one key for Unix-domain peers), oldest first. */
    private final Map<Object, ArrayDeque<Attempt>> byRemote = new HashMap<>();
    private int handshakes;
    private final AtomicInteger connections = new AtomicInteger();
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong refusedBusy = new AtomicLong();
    private final AtomicLong evictions = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong acceptFailures = new AtomicLong();
    private final Thread thread;
    private volatile boolean closed;
    private volatile IOException failure;

    Acceptor(String address, ServerSocketChannel server, ConnectionOptions options, Handshake handshake)
            throws IOException {
        this.address = address;
        this.server = server;
        this.options = options;
        this.handshake = handshake;
        try {
            prepareWaits();
        } catch (IOException e) {
            ChannelIO.closeQuietly(server);
            throw e;
        }
        Rejections.count(); // loaded now: a class loaded while descriptors run out may fail to load
        server.configureBlocking(true);
        this.thread = Thread.ofPlatform().daemon().name("verbatim-accept " + address).start(this::run);
    }

    /** Set once {@link #prepareWaits()} succeeded in this process. */
    private static volatile boolean waitsPrepared;

    /**
     * Makes ready, while descriptors are to be had, what a handshake needs the first time it waits for its
     * peer: the JDK's poller, on which a virtual thread waiting in {@code Selector.select} parks, and the
     * classes of the wait ({@link ChannelIO}, {@link TransportException}). Both come into being lazily, at the
     * first wait of any virtual thread; when that comes after a flood of sockets took every descriptor, the
     * poller cannot open its epoll instances or the class file cannot be opened, and either failure lasts as
     * long as the process (the JVM keeps a class that failed to initialize or resolve failed): every handshake
     * that waits would then throw, and the listener drop every connector from then on. Once per process; a
     * failure fails the listen.
     */
    private static void prepareWaits() throws IOException {
        if (waitsPrepared) {
            return;
        }
        AtomicReference<Throwable> failed = new AtomicReference<>();
        try (Selector selector = Selector.open()) {
            Thread.ofVirtual().name("verbatim-accept-prepare").start(() -> {
                try {
                    selector.select(1); // parks this virtual thread on the JDK's poller, which starts it
                    ChannelIO.await(selector, System.nanoTime(), "preparing a listener"); // past its deadline: throws
                } catch (TransportException expected) {
                    // the wait's classes are loaded
                } catch (IOException | RuntimeException | Error e) {
                    failed.set(e);
                }
            }).join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while preparing the listener", e);
        }
        Throwable f = failed.get();
        if (f != null) {
            throw new IOException("a handshake could not wait for its peer in this process: " + f, f);
        }
        waitsPrepared = true;
    }

    private void run() {
        long backoff = 0;
        while (!closed) {
            SocketChannel channel;
            try {
                channel = server.accept();
                backoff = 0;
            } catch (IOException e) {
                if (closed || !server.isOpen()) {
                    if (!closed) {
                        failure = e;
                        ready.offer(WAKE);
                    }
                    return;
                }
                acceptFailures.incrementAndGet();
                backoff = backoff == 0 ? FIRST_BACKOFF_MS : Math.min(MAX_BACKOFF_MS, backoff * 2);
                Rejections.acceptFailed(address, e, backoff);
                sleep(backoff);
                continue;
            }
            try {
                start(channel);
            } catch (RuntimeException | Error e) { // no thread or memory for one more handshake: that one is lost
                ChannelIO.closeQuietly(channel);
                acceptFailures.incrementAndGet();
                backoff = backoff == 0 ? FIRST_BACKOFF_MS : Math.min(MAX_BACKOFF_MS, backoff * 2);
                sleep(backoff);
            }
        }
    }

    private void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closed = true;
        }
    }

    /** Takes a slot for {@code channel} (evicting if all are taken) and runs its handshake on a virtual thread. */
    private void start(SocketChannel channel) {
        long timeout = Math.min(options.handshakeTimeout().toNanos(), options.connectTimeout().toNanos());
        Attempt attempt = new Attempt(channel, remoteKey(channel), System.nanoTime() + timeout);
        Attempt victim = null;
        synchronized (lock) {
            if (handshakes >= MAX_HANDSHAKES) {
                victim = victim();
                victim.evicted = true;
                remove(victim);
                evictions.incrementAndGet();
            }
            byRemote.computeIfAbsent(attempt.remote, k -> new ArrayDeque<>()).addLast(attempt);
            handshakes++;
        }
        if (victim != null) {
            ChannelIO.closeQuietly(victim.channel); // its handshake fails at its next read or write, and drops it
        }
        Thread.ofVirtual().name("verbatim-handshake").start(() -> run(attempt));
    }

    private void run(Attempt attempt) {
        Connection c = null;
        try {
            c = handshake.complete(attempt);
        } catch (RuntimeException | Error e) { // not a refusal: a failure of this side (no memory, a class that did not load)
            ChannelIO.closeQuietly(attempt.channel);
            dropped.incrementAndGet();
            Rejections.record(address, "this side failed during the handshake: " + e); // never silently
        } finally {
            synchronized (lock) {
                if (!attempt.evicted) {
                    remove(attempt);
                }
            }
        }
        if (c == null) {
            return;
        }
        accepted.incrementAndGet();
        countIn(c);
        ready.offer(c);
        if (closed && ready.remove(c)) { // raced with close(): never handed out
            c.close();
        }
    }

    /** Counts {@code c} among the open connections until it closes. */
    private void countIn(Connection c) {
        connections.incrementAndGet();
        AtomicBoolean out = new AtomicBoolean();
        Runnable countOut = () -> {
            if (out.compareAndSet(false, true)) {
                connections.decrementAndGet();
            }
        };
        if (c instanceof BaseConnection b) {
            b.onClose(countOut);
            if (b.isClosed()) { // closed before the hook was set
                countOut.run();
            }
        }
    }

    /** The oldest handshake of the remote address with the most in progress (under {@link #lock}; there is one). */
    private Attempt victim() {
        ArrayDeque<Attempt> most = null;
        for (ArrayDeque<Attempt> q : byRemote.values()) {
            if (most == null || q.size() > most.size()) {
                most = q;
            }
        }
        return most.peekFirst();
    }

    private void remove(Attempt a) {
        ArrayDeque<Attempt> q = byRemote.get(a.remote);
        if (q != null && q.remove(a)) {
            handshakes--;
            if (q.isEmpty()) {
                byRemote.remove(a.remote);
            }
        }
    }

    private static Object remoteKey(SocketChannel channel) {
        try {
            SocketAddress a = channel.getRemoteAddress();
            return a instanceof InetSocketAddress i ? i.getAddress() : "local";
        } catch (IOException e) {
            return "unknown";
        }
    }

    ListenerStats stats() {
        int h;
        synchronized (lock) {
            h = handshakes;
        }
        return new ListenerStats(connections.get(), options.maxConnections(), h, MAX_HANDSHAKES, accepted.get(),
                refusedBusy.get(), evictions.get(), dropped.get(), acceptFailures.get());
    }

    Connection accept(Duration timeout) {
        if (closed) {
            throw new TransportException(Reason.CLOSED, "the listener at " + address + " is closed");
        }
        try {
            long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
            // after a failure nothing more comes: what is ready, then the failure, without waiting
            Object o = failure != null ? ready.poll()
                    : ready.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (o == WAKE) {
                ready.offer(WAKE); // for the other waiters
            }
            Connection c = o instanceof Connection k ? k : null;
            if (c == null) {
                if (closed) {
                    throw new TransportException(Reason.CLOSED, "the listener at " + address + " is closed");
                }
                IOException f = failure;
                if (f != null) {
                    throw new TransportException(Reason.IO, "the listener at " + address + " failed: " + f.getMessage(), f);
                }
                return null;
            }
            if (closed) { // raced with close(): the connection was never handed out
                c.close();
                throw new TransportException(Reason.CLOSED, "the listener at " + address + " is closed");
            }
            return c;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TransportException(Reason.CLOSED, "interrupted while accepting at " + address);
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // closing
        }
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (lock) {
            for (ArrayDeque<Attempt> q : byRemote.values()) {
                for (Attempt a : q) {
                    ChannelIO.closeQuietly(a.channel); // each handshake fails and drops its connector
                }
            }
        }
        Object o;
        while ((o = ready.poll()) != null) {
            if (o instanceof Connection c) {
                c.close();
            }
        }
        ready.offer(WAKE); // for the waiting accepts, and any later one
    }
}
