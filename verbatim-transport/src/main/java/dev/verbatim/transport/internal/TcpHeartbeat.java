package dev.verbatim.transport.internal;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Liveness of one tcp connection (docs/transport.md §4.5): heartbeats to the peer and a watch for
 * its silence, run by one daemon thread per process ({@code verbatim-tcp-heartbeat}, started with
 * the first connection that needs it and ended 2 s after the last one closed).
 *
 * <p>Every {@code period} (a quarter of the shorter of the two timeouts) the thread, for each watched
 * connection: reads what the socket holds into the window (unless another thread is reading it),
 * so that the frames of a peer whose program is busy elsewhere still count; declares the peer gone
 * if nothing at all arrived for {@code silenceNanos} (this side's {@code peerTimeout}); and sends
 * an empty {@code NOTICE} frame if this side wrote nothing for {@code heartbeatNanos} (a quarter of
 * the timeout the peer announced). A peer process that is stopped or dead, or a network path that
 * swallows bytes, is thus detected within the timeout plus one period; a peer whose program is only
 * slow still has this thread sending for it.
 *
 * <p>Invariants: locks are only tried, never waited for; a heartbeat the socket does not take at once
 * is skipped (a full socket is the send timeout's business; one taken only in part, rare, is
 * finished within the send timeout, as any frame); state fields are touched by the heartbeat thread
 * only.
 */
final class TcpHeartbeat implements Runnable {
    /** What the heartbeat needs of its connection. */
    interface Peer {
        /** Reads what has arrived, if no other thread is reading; returns the bytes received so far (a counter). */
        long pumpAndCount();

        /** Frames written so far (a counter). */
        long framesOut();

        /** Sends an empty NOTICE now if the socket takes it at once and no other thread is writing; true if sent. */
        boolean sendHeartbeat();

        /** The peer was silent too long: ends the connection with {@code reason}. */
        void silent(String reason);

        /** Whether the connection is still open (else the watch ends). */
        boolean open();
    }

    private static final ScheduledThreadPoolExecutor TIMER = timer();

    private static ScheduledThreadPoolExecutor timer() {
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1,
                r -> Thread.ofPlatform().daemon().name("verbatim-tcp-heartbeat").unstarted(r));
        t.setKeepAliveTime(2, TimeUnit.SECONDS);
        t.allowCoreThreadTimeOut(true);
        t.setRemoveOnCancelPolicy(true);
        return t;
    }

    private final Peer peer;
    private final long silenceNanos;
    private final long heartbeatNanos;
    private final long silenceMs;
    private long lastIn = -1;
    private long heardAt;
    private long lastOut = -1;
    private long sentAt;
    private volatile ScheduledFuture<?> task;

    private TcpHeartbeat(Peer peer, long silenceMs, long heartbeatMs) {
        this.peer = peer;
        this.silenceMs = silenceMs;
        this.silenceNanos = silenceMs <= 0 ? Long.MAX_VALUE : TimeUnit.MILLISECONDS.toNanos(silenceMs);
        this.heartbeatNanos = heartbeatMs <= 0 ? Long.MAX_VALUE : TimeUnit.MILLISECONDS.toNanos(heartbeatMs);
    }

    /**
     * Watches a connection whose side declares the peer gone after {@code silenceMs} (0: never) and
     * whose peer asked for a frame every {@code peerTimeoutMs / 4} (0: never); null if neither applies.
     */
    static TcpHeartbeat watch(Peer peer, long silenceMs, long peerTimeoutMs) {
        if (silenceMs <= 0 && peerTimeoutMs <= 0) {
            return null;
        }
        TcpHeartbeat h = new TcpHeartbeat(peer, silenceMs, peerTimeoutMs / 4);
        long period = Math.max(TimeUnit.MILLISECONDS.toNanos(10), Math.min(h.silenceNanos, h.heartbeatNanos * 4) / 4);
        long now = System.nanoTime();
        h.heardAt = now;
        h.sentAt = now;
        h.task = TIMER.scheduleWithFixedDelay(h, period, period, TimeUnit.NANOSECONDS);
        return h;
    }

    /** Ends the watch (the connection closed). */
    void stop() {
        ScheduledFuture<?> t = task;
        if (t != null) {
            t.cancel(false);
        }
    }

    @Override
    public void run() {
        try {
            if (!peer.open()) {
                stop();
                return;
            }
            long now = System.nanoTime();
            long in = peer.pumpAndCount();
            if (in != lastIn) {
                lastIn = in;
                heardAt = now;
            } else if (now - heardAt >= silenceNanos) {
                stop();
                peer.silent("the peer sent nothing for " + silenceMs + " ms, heartbeats included (its process is"
                        + " stopped or dead, or the network lost the path): closed by this side's peerTimeout");
                return;
            }
            long out = peer.framesOut();
            if (out != lastOut) {
                lastOut = out;
                sentAt = now;
            } else if (now - sentAt >= heartbeatNanos && peer.sendHeartbeat()) {
                lastOut = peer.framesOut();
                sentAt = now;
            }
        } catch (RuntimeException e) {
            // the connection failed meanwhile: its next use reports it; the watch goes on until it is closed
        }
    }
}
