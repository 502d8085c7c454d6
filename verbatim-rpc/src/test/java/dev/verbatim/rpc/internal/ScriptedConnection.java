package dev.verbatim.rpc.internal;

import dev.verbatim.transport.Claim;
import dev.verbatim.transport.Connection;
import dev.verbatim.transport.ConnectionStats;
import dev.verbatim.transport.Delivery;
import dev.verbatim.transport.DeliveryHandler;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A connection played by a script (tests): a poll hands out the {@link #incoming} messages in order,
 * recording what the handler answers ({@link #actions}); what is sent is recorded ({@link #sent}). No
 * threads, no timing.
 */
final class ScriptedConnection implements Connection {
    final ArrayDeque<MemorySegment> incoming = new ArrayDeque<>();
    final List<DeliveryHandler.Action> actions = new ArrayList<>();
    final List<MemorySegment> sent = new ArrayList<>();
    boolean inCallback;
    /** Whether the endpoint closed the connection. */
    volatile boolean closed;

    /**
     * Plays the peer looking up {@code name} as {@code iface} (a {@code LOOKUP} polled by {@code endpoint},
     * answered): the peer may then call that export. What the lookup left in {@link #actions} and
     * {@link #sent} is cleared.
     */
    void lookUp(Endpoint endpoint, String name, Class<?> iface) {
        byte[][] values = {name.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                iface.getName().getBytes(java.nio.charset.StandardCharsets.UTF_8),
                MemorySegment.ofArray(RemoteInterface.of(iface).ids()).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)};
        long size = RpcDescriptor.HEADER;
        for (byte[] v : values) {
            size += RpcDescriptor.span(v.length);
        }
        MemorySegment m = MemorySegment.ofArray(new byte[(int) size]);
        RpcDescriptor.putHeader(m, RpcDescriptor.head(RpcDescriptor.LOOKUP, 0, values.length, 0), 1, 0, 0);
        long at = RpcDescriptor.HEADER;
        for (byte[] v : values) {
            at = CallEncoder.putBytes(m, at, MemorySegment.ofArray(v));
        }
        incoming.add(m);
        endpoint.leader().lock().lock();
        try {
            endpoint.poll(1);
        } finally {
            endpoint.leader().unlockIfHeld();
        }
        if (sent.size() != 1 || RpcDescriptor.kind(sent.getFirst()) != RpcDescriptor.LOOKUP_OK) {
            throw new AssertionError("the lookup of '" + name + "' was not granted");
        }
        sent.clear();
        actions.clear();
    }

    @Override
    public int poll(DeliveryHandler handler, int limit) {
        int n = 0;
        while (n < limit && !incoming.isEmpty()) {
            MemorySegment m = incoming.poll();
            inCallback = true;
            DeliveryHandler.Action a;
            try {
                a = handler.onDelivery(new Message(m));
            } finally {
                inCallback = false;
            }
            actions.add(a);
            n++;
            if (a == DeliveryHandler.Action.STOP) {
                break;
            }
        }
        return n;
    }

    /** Whether {@link #hasArrived} tells of the {@link #incoming} messages (else it says false, as by default). */
    boolean tellsArrivals;
    /** Each write as a transport would make it: how many messages it carried ({@link #holdNextCommit}). */
    final List<Integer> writes = java.util.Collections.synchronizedList(new ArrayList<>());
    /** Messages committed held, not yet written (a flush may come from another thread: HeldAnswers). */
    volatile int held;
    private boolean holdNext;

    @Override
    public boolean hasArrived() {
        return tellsArrivals && !incoming.isEmpty();
    }

    @Override
    public boolean holdsCommits() {
        return true;
    }

    @Override
    public void holdNextCommit() {
        holdNext = true;
    }

    @Override
    public void flush() {
        holdNext = false;
        if (held > 0) {
            writes.add(held);
            held = 0;
        }
    }

    private void committed() {
        if (holdNext) {
            holdNext = false;
            held++;
        } else {
            writes.add(held + 1);
            held = 0;
        }
    }

    /** The chain of the call the thread of {@link #inlineCounter()} waits in. */
    static final long WAITING_CHAIN = 5;

    /**
     * An endpoint over this connection that exports a {@link Parts.Counter} ({@code x + 1}) inline, which the peer
     * looked up, with the calling thread waiting in chain {@link #WAITING_CHAIN}: the peer's calls of that chain
     * ({@link #counterCall}) run on it, inline, when it polls ({@link #pollOne}).
     */
    Endpoint inlineCounter() {
        Exports exports = new Exports();
        Parts.Counter counter = x -> x + 1;
        exports.export("counter", Parts.Counter.class, counter, dev.verbatim.rpc.ExportOptions.INLINE);
        Endpoint endpoint = new Endpoint(this, exports, false, () -> { });
        lookUp(endpoint, "counter", Parts.Counter.class);
        endpoint.calls().add(new PendingCall(endpoint, 1, null, java.util.concurrent.TimeUnit.MINUTES.toNanos(1),
                WAITING_CHAIN, Thread.currentThread()), true);
        return endpoint;
    }

    /** The peer's call {@code callId} of the counter with {@code x}, in chain {@link #WAITING_CHAIN}. */
    static MemorySegment counterCall(long callId, int x) {
        MemorySegment m = MemorySegment.ofArray(new byte[RpcDescriptor.HEADER + RpcDescriptor.VALUE_HEADER + 8]);
        long method = RemoteInterface.of(Parts.Counter.class).methods[0].id;
        RpcDescriptor.putHeader(m, RpcDescriptor.head(RpcDescriptor.CALL, 0, 1, 1), callId, method, WAITING_CHAIN);
        CallEncoder.putPrimitive(m, RpcDescriptor.HEADER, x);
        return m;
    }

    /** One poll of {@code endpoint}, holding its read lock as a reader does. */
    static void pollOne(Endpoint endpoint) {
        endpoint.leader().lock().lock();
        try {
            endpoint.poll(1);
        } finally {
            endpoint.leader().unlockIfHeld();
        }
    }

    /** Whether a claim is open: as a transport does, this one hands out one at a time. */
    boolean claimOpen;
    /** Thrown once by the next claim's {@code segment()} (then cleared), as a stack that runs out there would. */
    Error failSegment;
    /** Thrown once by the next claim's {@code commit}, before it publishes or closes anything. */
    Error failCommit;
    /**
     * Run once by the next claim's {@code segment()} (then cleared): a test's stand-in for what happens to a write
     * into the claim (the connection closed under it, say).
     */
    Runnable onSegment;

    @Override
    public Claim tryClaim(int length) {
        if (claimOpen) {
            throw new IllegalStateException("a claim is already open on scripted; commit or abort it first");
        }
        MemorySegment s = MemorySegment.ofArray(new byte[length]);
        claimOpen = true;
        return new Claim() {
            private boolean open = true;

            @Override
            public MemorySegment segment() {
                Error e = failSegment;
                if (e != null) {
                    failSegment = null;
                    throw e;
                }
                Runnable r = onSegment;
                if (r != null) {
                    onSegment = null;
                    r.run();
                }
                return s;
            }

            @Override
            public void commit() {
                commit(length);
            }

            @Override
            public void commit(int n) {
                Error e = failCommit;
                if (e != null) {
                    failCommit = null;
                    throw e;
                }
                close();
                sent.add(n == length ? s : s.asSlice(0, n));
                committed();
            }

            @Override
            public void abort() {
                close();
            }

            @Override
            public boolean isOpen() {
                return open;
            }

            private void close() {
                if (!open) {
                    throw new IllegalStateException("the claim was already committed or aborted");
                }
                open = false;
                claimOpen = false;
            }
        };
    }

    @Override
    public Claim claim(int length) {
        return tryClaim(length);
    }

    @Override
    public String description() {
        return "scripted";
    }

    @Override
    public int maxMessageLength() {
        return 1 << 20;
    }

    @Override
    public int writeRegion(MemorySegment src) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void send(byte[] src, int offset, int length) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void send(MemorySegment src) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Delivery poll() {
        throw new UnsupportedOperationException();
    }

    /** Whether {@link #take} waits (up to 1 ms of its timeout) and returns nothing, as for a dispatcher, instead of failing. */
    volatile boolean takeWaits;

    @Override
    public Delivery take(Duration timeout) {
        if (!takeWaits) {
            throw new UnsupportedOperationException();
        }
        java.util.concurrent.locks.LockSupport.parkNanos(Math.min(timeout.toNanos(), 1_000_000));
        return null;
    }

    @Override
    public byte[] receive(Duration timeout) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void wakeup() {
    }

    @Override
    public ConnectionStats stats() {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean isOpen() {
        return !closed;
    }

    @Override
    public void close() {
        closed = true;
    }

    /** A delivery of a heap message (no regions); a test may override {@link #payload()}. */
    static class Message implements Delivery {
        private final MemorySegment payload;

        Message(MemorySegment payload) {
            this.payload = payload;
        }

        @Override
        public MemorySegment payload() {
            return payload;
        }

        @Override
        public long length() {
            return payload().byteSize();
        }

        @Override
        public int regionCount() {
            return 0;
        }

        @Override
        public MemorySegment region(int index) {
            throw new IndexOutOfBoundsException(index);
        }

        @Override
        public Delivery retain() {
            return this;
        }

        @Override
        public void release() {
        }
    }
}
