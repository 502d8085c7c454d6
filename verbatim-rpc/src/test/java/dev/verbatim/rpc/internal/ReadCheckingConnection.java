package dev.verbatim.rpc.internal;

import dev.verbatim.transport.Claim;
import dev.verbatim.transport.Connection;
import dev.verbatim.transport.ConnectionStats;
import dev.verbatim.transport.Delivery;
import dev.verbatim.transport.DeliveryHandler;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * A connection that checks who reads it (tests). The transport allows one receiving thread at a time;
 * an endpoint's receiving thread is the one holding its read lock, and a thread that gave the lock away
 * during an inline call must stop reading. So every read here is checked:
 * <ul>
 *   <li>a {@code poll}, a {@code take}, a poll's callback, and a poll going on after a callback
 *       ({@code CONTINUE}) must come from the thread holding the {@linkplain #watch watched} read lock;</li>
 *   <li>a poll's callback returns holding the read lock, whatever it answers: the transport goes on with
 *       its reader's state when the callback returns (it invalidates the delivery it handed out), which
 *       another thread may be using by then;</li>
 *   <li>two threads never read at once: a thread is <em>reading</em> from its entry into {@code poll} or
 *       {@code take} to its exit, except while a poll's callback runs (it may give the lock away
 *       then), and again once its callback answers {@code CONTINUE}.</li>
 * </ul>
 * What breaks these is recorded ({@link #violations()}), not thrown: the endpoint must not swallow it.
 * Sending is passed through unchecked.
 */
final class ReadCheckingConnection implements Connection {
    private final Connection c;
    private volatile ReentrantLock readLock;
    private final AtomicReference<Thread> reading = new AtomicReference<>();
    private final List<String> violations = new CopyOnWriteArrayList<>();
    /** Told of every thread that starts a read (poll or take), before it reads. */
    volatile Consumer<Thread> onRead = t -> { };
    /** How many {@code CALL} messages each thread read. */
    private final ThreadLocal<int[]> callsRead = ThreadLocal.withInitial(() -> new int[1]);

    ReadCheckingConnection(Connection c) {
        this.c = c;
    }

    /** From now on, every read must come from the holder of {@code lock}. */
    void watch(ReentrantLock lock) {
        this.readLock = lock;
    }

    List<String> violations() {
        return violations;
    }

    /** How many {@code CALL} messages the calling thread read (by poll or take). */
    int callsRead() {
        return callsRead.get()[0];
    }

    private void count(Delivery d) {
        if (d != null && RpcDescriptor.checkHeader(d.payload()) == RpcDescriptor.CALL) {
            callsRead.get()[0]++;
        }
    }

    private void violation(String what) {
        violations.add(what + " (thread " + Thread.currentThread().getName() + ")");
    }

    private void startReading(String what) {
        Thread me = Thread.currentThread();
        ReentrantLock lock = readLock;
        if (lock != null && !lock.isHeldByCurrentThread()) {
            violation(what + " without the read lock");
        }
        Thread other = reading.compareAndExchange(null, me);
        if (other != null && other != me) {
            violation(what + " while " + other.getName() + " reads");
        }
    }

    private void stopReading() {
        reading.compareAndSet(Thread.currentThread(), null);
    }

    @Override
    public int poll(DeliveryHandler handler, int limit) {
        onRead.accept(Thread.currentThread());
        startReading("a poll");
        try {
            return c.poll(d -> checked(handler, d), limit);
        } finally {
            stopReading();
        }
    }

    private DeliveryHandler.Action checked(DeliveryHandler handler, Delivery d) {
        ReentrantLock lock = readLock;
        if (lock != null && !lock.isHeldByCurrentThread()) {
            violation("a poll's callback without the read lock");
        }
        count(d);
        stopReading(); // (a callback that gave the lock away lets another thread read meanwhile: caught below)
        DeliveryHandler.Action action = handler.onDelivery(d);
        lock = readLock;
        if (lock != null && !lock.isHeldByCurrentThread()) {
            violation("a poll's callback returned into the transport without the read lock");
        }
        if (action == DeliveryHandler.Action.CONTINUE) {
            startReading("a poll going on after its callback");
        }
        return action;
    }

    @Override
    public Delivery take(Duration timeout) {
        onRead.accept(Thread.currentThread());
        startReading("a take");
        try {
            Delivery d = c.take(timeout);
            count(d);
            return d;
        } finally {
            stopReading();
        }
    }

    @Override
    public Delivery poll() {
        onRead.accept(Thread.currentThread());
        startReading("a poll");
        try {
            return c.poll();
        } finally {
            stopReading();
        }
    }

    @Override
    public byte[] receive(Duration timeout) {
        onRead.accept(Thread.currentThread());
        startReading("a receive");
        try {
            return c.receive(timeout);
        } finally {
            stopReading();
        }
    }

    @Override
    public String description() {
        return c.description();
    }

    @Override
    public int maxMessageLength() {
        return c.maxMessageLength();
    }

    @Override
    public Claim tryClaim(int length) {
        return c.tryClaim(length);
    }

    @Override
    public Claim claim(int length) {
        return c.claim(length);
    }

    @Override
    public int writeRegion(MemorySegment src) {
        return c.writeRegion(src);
    }

    @Override
    public void send(byte[] src, int offset, int length) {
        c.send(src, offset, length);
    }

    @Override
    public void send(MemorySegment src) {
        c.send(src);
    }

    @Override
    public void wakeup() {
        c.wakeup();
    }

    @Override
    public ConnectionStats stats() {
        return c.stats();
    }

    @Override
    public boolean isOpen() {
        return c.isOpen();
    }

    @Override
    public void close() {
        c.close();
    }
}
