package dev.verbatim.transport.internal;

import dev.verbatim.transport.Connection;
import dev.verbatim.transport.TransportException;
import dev.verbatim.transport.TransportException.Reason;

import java.io.IOException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The accepting half of a listener: one platform thread ({@code verbatim-accept}) takes sockets
 * from the kernel and runs each handshake on its own virtual thread, so a connector that says
 * nothing delays nobody but itself; completed connections wait in a bounded queue for
 * {@link #accept(Duration)}. At most {@link #MAX_HANDSHAKES} handshakes run at once (more
 * connectors are dropped, logged) and at most {@link #MAX_READY} connections wait to be accepted
 * (then handshakes wait, and the kernel's backlog fills). Closing stops the thread and closes what
 * was never accepted. Thread-safe.
 */
final class Acceptor implements AutoCloseable {
    static final int MAX_HANDSHAKES = 64;
    static final int MAX_READY = 128;

    /** Completes one connector's handshake, or drops it (closing the socket, recording why) and returns null. */
    interface Handshake {
        Connection complete(SocketChannel channel);
    }

    private final String address;
    private final ServerSocketChannel server;
    private final Handshake handshake;
    /** Connections ready to be accepted, and {@link #WAKE} once closed or failed. */
    private final BlockingQueue<Object> ready = new LinkedBlockingQueue<>(MAX_READY);
    /**
     * Put in {@link #ready} by {@link #close()} or a failure to wake every waiting {@link #accept} (each puts it back
     * for the next). If the queue is full, nobody waits: a waiter finds a connection, and its next call sees
     * {@code closed}. Waiters therefore sleep for their whole timeout instead of in slices (each wake-up of an idle
     * listener costs CPU).
     */
    private static final Object WAKE = new Object();
    private final Semaphore handshakes = new Semaphore(MAX_HANDSHAKES);
    private final Thread thread;
    private volatile boolean closed;
    private volatile IOException failure;

    Acceptor(String address, ServerSocketChannel server, Handshake handshake) throws IOException {
        this.address = address;
        this.server = server;
        this.handshake = handshake;
        server.configureBlocking(true);
        this.thread = Thread.ofPlatform().daemon().name("verbatim-accept " + address).start(this::run);
    }

    private void run() {
        while (!closed) {
            SocketChannel channel;
            try {
                channel = server.accept();
            } catch (IOException e) {
                if (!closed) {
                    failure = e;
                    ready.offer(WAKE);
                }
                return;
            }
            if (!handshakes.tryAcquire()) {
                ChannelIO.closeQuietly(channel);
                Rejections.record(address, MAX_HANDSHAKES + " handshakes are already in progress");
                continue;
            }
            Thread.ofVirtual().name("verbatim-handshake").start(() -> {
                try {
                    Connection c = handshake.complete(channel);
                    if (c != null) {
                        while (!closed && !ready.offer(c, 100, TimeUnit.MILLISECONDS)) {
                            // the queue is full: wait for accept() to take some
                        }
                        if (closed) {
                            c.close();
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    handshakes.release();
                }
            });
        }
    }

    Connection accept(Duration timeout) {
        if (closed) {
            throw new TransportException(Reason.CLOSED, "the listener at " + address + " is closed");
        }
        try {
            long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
            // after a failure nothing more comes (and a WAKE may not have fit in a full queue): what is ready, then
            // the failure, without waiting
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
        Object o;
        while ((o = ready.poll()) != null) {
            if (o instanceof Connection c) {
                c.close();
            }
        }
        ready.offer(WAKE); // for the waiting accepts, and any later one
    }
}
