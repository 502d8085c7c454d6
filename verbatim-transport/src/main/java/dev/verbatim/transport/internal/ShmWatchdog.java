package dev.verbatim.transport.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Watches the Unix-domain control socket of every open {@code shm} connection of this process and
 * tells a connection at once when its peer closed (a {@link #CLOSE} byte) or died (end of stream:
 * the kernel closes a dead process's sockets). One daemon thread, {@code verbatim-shm-watchdog},
 * that runs only while at least one connection is watched: the hot paths never make a system call
 * to learn whether the peer lives. Thread-safe.
 */
public final class ShmWatchdog {
    public static final byte CLOSE = 'C';

    private static final ShmWatchdog INSTANCE = new ShmWatchdog();

    public static ShmWatchdog instance() {
        return INSTANCE;
    }

    private final Map<SocketChannel, BaseConnection> live = new IdentityHashMap<>();
    private final List<SocketChannel> toRegister = new ArrayList<>();
    private Selector selector;
    private Thread thread;

    private ShmWatchdog() {}

    /** Starts watching {@code control} for {@code connection}. */
    public synchronized void watch(SocketChannel control, BaseConnection connection) throws IOException {
        if (thread == null) {
            selector = Selector.open();
            Selector s = selector;
            thread = Thread.ofPlatform().daemon().name("verbatim-shm-watchdog").unstarted(() -> run(s));
            thread.start();
        }
        live.put(control, connection);
        toRegister.add(control);
        selector.wakeup();
    }

    /** Stops watching {@code control}; the caller closes it. */
    public synchronized void forget(SocketChannel control) {
        if (live.remove(control) != null && selector != null) {
            selector.wakeup();
        }
    }

    /** Whether the watchdog thread runs (it stops once no connection is watched). */
    public synchronized boolean running() {
        return thread != null;
    }

    private void run(Selector s) {
        ByteBuffer buffer = ByteBuffer.allocate(64);
        try {
            while (true) {
                synchronized (this) {
                    for (SocketChannel c : toRegister) {
                        BaseConnection connection = live.get(c);
                        if (connection == null) {
                            continue;
                        }
                        try {
                            c.register(s, SelectionKey.OP_READ, connection);
                        } catch (ClosedChannelException e) {
                            live.remove(c);
                        }
                    }
                    toRegister.clear();
                    for (SelectionKey key : s.keys()) {
                        if (key.isValid() && !live.containsKey((SocketChannel) key.channel())) {
                            key.cancel();
                        }
                    }
                    if (live.isEmpty()) {
                        thread = null;
                        selector = null;
                        s.close();
                        return;
                    }
                }
                s.select(1000);
                for (SelectionKey key : s.selectedKeys()) {
                    BaseConnection connection = (BaseConnection) key.attachment();
                    try {
                        buffer.clear();
                        int n = ((SocketChannel) key.channel()).read(buffer);
                        if (n < 0) {
                            end(key, connection, false, "the peer process exited or crashed");
                        } else if (n > 0) {
                            boolean clean = buffer.get(0) == CLOSE;
                            end(key, connection, clean, clean ? null : "an unexpected control message");
                        }
                    } catch (IOException | CancelledKeyException e) {
                        end(key, connection, false, "its control socket failed: " + e.getMessage());
                    }
                }
                s.selectedKeys().clear();
            }
        } catch (IOException | RuntimeException e) {
            synchronized (this) {
                for (BaseConnection c : live.values()) {
                    c.peerEnded(false, "the shm watchdog failed: " + e);
                }
                live.clear();
                thread = null;
                selector = null;
            }
        }
    }

    private void end(SelectionKey key, BaseConnection connection, boolean clean, String reason) {
        key.cancel();
        synchronized (this) {
            live.remove((SocketChannel) key.channel());
        }
        connection.peerEnded(clean, reason);
    }
}
