package dev.verbatim.bench.transport;

import dev.verbatim.bench.harness.Medium;
import dev.verbatim.bench.harness.Session;
import dev.verbatim.transport.Claim;
import dev.verbatim.transport.Connection;
import dev.verbatim.transport.ConnectionOptions;
import dev.verbatim.transport.Delivery;
import dev.verbatim.transport.DeliveryHandler;
import dev.verbatim.transport.Listener;
import dev.verbatim.transport.Transport;
import dev.verbatim.transport.TransportException;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;

/**
 * Verbatim's own contenders: a {@link dev.verbatim.transport.Connection} over {@code shm} with the
 * buffer API ({@code buffer}: claim/commit, poll with a handler, nothing allocated) and the copying
 * API ({@code copy}: send a segment, receive a fresh {@code byte[]}), and over {@code tcp}
 * ({@code verbatim}, buffer API). They run in the latency mode ({@link ConnectionOptions#spinOnly()}),
 * as the floor and Aeron spin; the default mode spins 50 µs before it parks, which a ping-pong never
 * reaches on a quiet host.
 */
final class VerbatimContenders {
    private VerbatimContenders() {}

    static final ConnectionOptions OPTIONS = ConnectionOptions.DEFAULT.withSpin(0, true)
            .withSendTimeout(Duration.ofSeconds(60));
    /**
     * Streams use a 4 MiB window like the floor's ring (4 areas just over 1 MiB, so the 1 MiB
     * messages fit): a larger window only spreads the stream over more cache.
     */
    static final ConnectionOptions STREAM_OPTIONS = OPTIONS.withAreas(4, (1 << 20) + 4096);
    private static final Duration WAIT = Duration.ofSeconds(60);

    enum Api { BUFFER, COPY }

    static Listener listen(Session session, Medium medium) {
        return listen(session, medium, OPTIONS);
    }

    static Listener listen(Session session, Medium medium, ConnectionOptions options) {
        if (medium == Medium.SHM) {
            System.setProperty("verbatim.shm.dir", session.dir().toString());
            return Transport.listen("shm:" + session.name(), options);
        }
        Listener l = Transport.listen("tcp://127.0.0.1:0", OPTIONS);
        session.publish("address", l.address());
        return l;
    }

    static Connection connect(Session session, Medium medium) {
        return connect(session, medium, OPTIONS);
    }

    static Connection connect(Session session, Medium medium, ConnectionOptions options) {
        if (medium == Medium.SHM) {
            System.setProperty("verbatim.shm.dir", session.dir().toString());
            return Transport.connect("shm:" + session.name(), options);
        }
        return Transport.connect(session.require("address"), OPTIONS);
    }

    static Connection accept(Listener l) {
        Connection c = l.accept(WAIT);
        if (c == null) {
            throw new IllegalStateException("the other side did not connect within " + WAIT);
        }
        return c;
    }

    /** Copies a delivery's payload into a segment and remembers its size. */
    static final class Into implements DeliveryHandler {
        MemorySegment into;
        long size = -1;

        @Override
        public Action onDelivery(Delivery d) {
            size = d.length();
            MemorySegment.copy(d.payload(), 0, into, 0, size);
            return Action.CONTINUE;
        }
    }

    /**
     * Waits (spinning with {@link Thread#onSpinWait()}, as the floor does by default: on a virtual
     * machine the pause lets the hypervisor run the other side) for one message through the
     * handler; false when the peer closed.
     */
    static boolean pollOne(Connection c, DeliveryHandler h) {
        try {
            while (c.poll(h, 1) == 0) {
                Thread.onSpinWait();
            }
            return true;
        } catch (TransportException e) {
            if (e.reason() == TransportException.Reason.PEER_CLOSED) {
                return false;
            }
            throw e;
        }
    }

    static void sendBuffer(Connection c, MemorySegment message, int size) {
        Claim claim = c.claim(size);
        MemorySegment.copy(message, 0, claim.segment(), 0, size);
        claim.commit();
    }

    // ------------------------------------------------------------------ round trips

    static final class PingPong implements PingPongContender {
        private final Medium medium;
        private final Api api;

        PingPong(Medium medium, Api api) {
            this.medium = medium;
            this.api = api;
        }

        @Override
        public String name() {
            return medium == Medium.TCP ? "verbatim" : api == Api.BUFFER ? "buffer" : "copy";
        }

        @Override
        public Medium medium() {
            return medium;
        }

        @Override
        public Pong pong(Session session) {
            Listener l = listen(session, medium);
            return new Pong() {
                private Connection c;
                private final MemorySegment echo = MemorySegment.ofArray(new byte[session.maxSize()]);
                private final DeliveryHandler bounce = d -> {
                    Claim claim = c.claim((int) d.length());
                    MemorySegment.copy(d.payload(), 0, claim.segment(), 0, d.length());
                    claim.commit();
                    return DeliveryHandler.Action.CONTINUE;
                };

                @Override
                public boolean echo() {
                    if (c == null) {
                        c = accept(l);
                    }
                    if (api == Api.BUFFER) {
                        return pollOne(c, bounce);
                    }
                    byte[] m;
                    try {
                        m = c.receive(WAIT);
                    } catch (TransportException e) {
                        if (e.reason() == TransportException.Reason.PEER_CLOSED) {
                            return false;
                        }
                        throw e;
                    }
                    c.send(m, 0, m.length);
                    return echo != null;
                }

                @Override
                public void close() {
                    if (c != null) {
                        c.close();
                    }
                    l.close();
                }
            };
        }

        @Override
        public Ping ping(Session session) {
            Connection c = connect(session, medium);
            Into into = new Into();
            return new Ping() {
                @Override
                public void roundTrip(MemorySegment message, MemorySegment reply, int size) throws IOException {
                    if (api == Api.BUFFER) {
                        sendBuffer(c, message, size);
                        into.into = reply;
                        if (!pollOne(c, into) || into.size != size) {
                            throw new IOException("echo of " + into.size + " bytes, sent " + size);
                        }
                        return;
                    }
                    c.send(message.asSlice(0, size));
                    byte[] m = c.receive(WAIT);
                    if (m == null || m.length != size) {
                        throw new IOException("no echo, or an echo of the wrong size");
                    }
                    MemorySegment.copy(m, 0, reply, ValueLayout.JAVA_BYTE, 0, size);
                }

                @Override
                public void close() {
                    c.close();
                }
            };
        }
    }

    // ------------------------------------------------------------------ streaming

    static final class Stream implements StreamContender {
        private final Api api;

        Stream(Api api) {
            this.api = api;
        }

        @Override
        public String name() {
            return api == Api.BUFFER ? "buffer" : "copy";
        }

        @Override
        public Medium medium() {
            return Medium.SHM;
        }

        @Override
        public Consumer consumer(Session session) {
            Listener l = listen(session, Medium.SHM, STREAM_OPTIONS);
            Into into = new Into();
            return new Consumer() {
                private Connection c;

                @Override
                public int receive(MemorySegment target) throws IOException {
                    if (c == null) {
                        c = accept(l);
                    }
                    if (api == Api.BUFFER) {
                        into.into = target;
                        if (!pollOne(c, into)) {
                            throw new IOException("the producer closed early");
                        }
                        return (int) into.size;
                    }
                    byte[] m = c.receive(WAIT);
                    if (m == null) {
                        throw new IOException("nothing arrived for " + WAIT);
                    }
                    MemorySegment.copy(m, 0, target, ValueLayout.JAVA_BYTE, 0, m.length);
                    return m.length;
                }

                @Override
                public void close() {
                    if (c != null) {
                        c.close();
                    }
                    l.close();
                }
            };
        }

        @Override
        public Producer producer(Session session) {
            Connection c = connect(session, Medium.SHM, STREAM_OPTIONS);
            return new Producer() {
                @Override
                public void send(MemorySegment message, int size) {
                    if (api == Api.BUFFER) {
                        sendBuffer(c, message, size);
                    } else {
                        c.send(message.asSlice(0, size));
                    }
                }

                @Override
                public void close() {
                    c.close();
                }
            };
        }
    }
}
