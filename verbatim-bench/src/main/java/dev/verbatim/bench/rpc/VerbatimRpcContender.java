package dev.verbatim.bench.rpc;

import dev.verbatim.bench.fixtures.ListNode;
import dev.verbatim.bench.fixtures.ListNodeView;
import dev.verbatim.bench.harness.Medium;
import dev.verbatim.bench.harness.RunPki;
import dev.verbatim.bench.harness.Session;
import dev.verbatim.bench.wire.ForyCodec;
import dev.verbatim.bench.wire.KryoCodec;
import dev.verbatim.rpc.Remote;
import dev.verbatim.transport.ConnectionOptions;
import dev.verbatim.transport.TlsConfig;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Verbatim J-RPC ({@code shm/verbatim}, {@code tcp/verbatim}, {@code tls/verbatim}: the tcp transport inside
 * mutual TLS 1.3, certificates of the run's {@link RunPki}): a {@link dev.verbatim.rpc.Node} exports the
 * service, the client looks it up and calls through the generated proxy. The client's interface
 * passes the list as the {@link ListNode} class (by copy on the wire); the server's declares it as the
 * {@link ListNodeView} accessor interface of the same structure (same method identity), so the server
 * walks the 128 nodes in place; likewise the client passes the 8 KiB argument as a {@code byte[]} and the
 * server declares a {@code MemorySegment} (the same parameter on the wire), reads it in place and takes
 * it in whole into a buffer it reuses, as the floor's server copies the request out of the shared file.
 * {@code verbatim-copy} ({@code shm/verbatim-copy}): the 8 KiB call with the server declaring {@code byte[]},
 * so each call allocates and fills a fresh array (by-copy semantics: what a server that keeps the array
 * pays). {@code jos} ({@code shm/jos}): the same list written with Java
 * serialization into a {@code byte[]} and read back with it, over the same kind of connection; {@code fory}
 * and {@code kryo} ({@code shm/fory}, {@code shm/kryo}, issue 18 §4): likewise with Apache Fory and Kryo, as the
 * wire suite configures them ({@link ForyCodec}, {@link KryoCodec}: classes registered, reference tracking on,
 * as Verbatim keeps sharing), the server walking the list it read ({@link RpcCase#list(ListNode)}).
 *
 * <p>The throughput cases ({@code throughput-C}, issue 18 §2) make the null call over the one proxy of a node
 * with one connection: {@code verbatim} keeping C calls of a {@code CompletableFuture<Void> nullCall()} in flight
 * from one thread ({@link AsyncService}: the same method on the wire as the synchronous one), as gRPC's async stub
 * is measured (the like-for-like figure), {@code verbatim-threads} ({@code shm/verbatim-threads},
 * {@code tcp/verbatim-threads}) from C platform threads calling the synchronous proxy.
 *
 * <p>Waiting is set up as the floor of the same medium waits ({@link #options}): over shm a waiting side
 * spins {@link #SHM_SPIN_NANOS} (1 ms) before it parks, so within a turn, where a call comes every few
 * microseconds, it never parks and spins as the shm floor and Aeron's busy spin do, while between turns
 * (the contenders take turns, see {@link RpcBench}) it parks soon and leaves the cores to the contender
 * measuring; over tcp with the defaults (spin 0.5 ms, then sleep in the kernel), as raw NIO blocks in
 * {@code read()}. The suite compares what the layers cost, not how fast a parked thread wakes on a
 * loaded host.
 */
final class VerbatimRpcContender implements RpcContender {
    /**
     * How long a waiting side spins over shm before it parks: long beyond any gap between calls of a
     * turn (the longest, list-128 with Java serialization, some 40 µs), short against a turn's warm-up
     * (20-30 ms), which lets the previous contender's idle threads park. (Measured when an idle
     * dispatcher still woke every 100 ms and spun again: 10 ms took some 6% of a core per process from
     * the contender measuring, 1 ms ~1%. An idle dispatcher now sleeps until a message or 10 s, and a
     * receiver spins only after it last received, so an idle node costs next to nothing.)
     */
    static final long SHM_SPIN_NANOS = 1_000_000;

    /**
     * The nodes' connection options: {@link dev.verbatim.rpc.Node#DEFAULT_OPTIONS}, spinning
     * {@link #SHM_SPIN_NANOS} over shm; over tls the tcp defaults with mutual TLS 1.3 ({@code tls}:
     * this side's configuration, ignored over shm and tcp).
     */
    static ConnectionOptions options(Medium medium, TlsConfig tls) {
        ConnectionOptions d = dev.verbatim.rpc.Node.DEFAULT_OPTIONS;
        return switch (medium) {
            case SHM -> d.withSpin(SHM_SPIN_NANOS, false);
            case TCP -> d;
            case TLS -> d.withTls(tls);
        };
    }

    /** The name of the plaintext tcp contender in the tls tables, beside the tls one. */
    static final String PLAIN_NAME = "verbatim-plain";

    /** Which calls a Verbatim contender makes. */
    enum Variant {
        /** Every case, the server reading views and segments in place. */
        PLAIN("verbatim"),
        /** The 8 KiB case with the server taking a {@code byte[]} by copy. */
        COPY("verbatim-copy"),
        /** The list case sent as a Java-serialized {@code byte[]}. */
        JOS("jos"),
        /** The list case sent as a {@code byte[]} serialized by Apache Fory (reference tracking on). */
        FORY("fory"),
        /** The list case sent as a {@code byte[]} serialized by Kryo (reference tracking on). */
        KRYO("kryo"),
        /** The throughput cases made by C platform threads on the synchronous proxy. */
        THREADS("verbatim-threads");

        final String key;

        Variant(String key) {
            this.key = key;
        }
    }

    private final Medium medium;
    private final Variant variant;

    VerbatimRpcContender(Medium medium, Variant variant) {
        this.medium = medium;
        this.variant = variant;
    }

    /** The client's view of the service. */
    public interface Service {
        void nullCall();

        int ints4(int a, int b, int c, int d);

        int remoteArg(Token t);

        long bytes(byte[] a);

        long bytesCopy(byte[] a);

        long bulk(byte[] a);

        long list(ListNode head);

        long listJos(byte[] serialized);

        long listFory(byte[] serialized);

        long listKryo(byte[] serialized);
    }

    /** The client's asynchronous view of the null call (the same method on the wire: the export is the same). */
    public interface AsyncService {
        CompletableFuture<Void> nullCall();
    }

    /** The server's: the list as a view of the same structure. */
    public interface ServerService {
        void nullCall();

        int ints4(int a, int b, int c, int d);

        int remoteArg(Token t);

        long bytes(MemorySegment a);

        long bytesCopy(byte[] a);

        /** A bulk argument (issue 18 §3), whole in this side's memory: its stamp. */
        long bulk(MemorySegment a);

        long list(ListNodeView head);

        long listJos(byte[] serialized);

        long listFory(byte[] serialized);

        long listKryo(byte[] serialized);
    }

    public interface Token extends Remote {
        int id();
    }

    static final class Impl implements ServerService {
        @Override
        public void nullCall() {
        }

        @Override
        public int ints4(int a, int b, int c, int d) {
            return RpcCase.ints4(a, b, c, d);
        }

        @Override
        public int remoteArg(Token t) {
            return t == null ? 0 : 1;
        }

        /** Where {@link #bytes} takes its argument in (the floor's server also copies into a buffer it reuses). */
        private final byte[] in = new byte[RpcCase.BYTES];

        @Override
        public long bytes(MemorySegment a) {
            if (a.byteSize() != in.length) {
                return -1;
            }
            MemorySegment.copy(a, ValueLayout.JAVA_BYTE, 0, in, 0, in.length);
            return RpcCase.bytes(in);
        }

        @Override
        public long bytesCopy(byte[] a) {
            return RpcCase.bytes(a);
        }

        @Override
        public long bulk(MemorySegment a) {
            return a.byteSize() < 8 ? -1 : a.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
        }

        @Override
        public long list(ListNodeView head) {
            long sum = 0;
            for (ListNodeView n = head; n != null; n = n.next()) {
                sum += n.value();
            }
            return sum;
        }

        @Override
        public long listJos(byte[] serialized) {
            try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(serialized))) {
                return RpcCase.list((ListNode) in.readObject());
            } catch (IOException | ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
        }

        /**
         * The server's Fory and Kryo, made at the first call (only the fory and kryo servers pay for them); one
         * of each: their calls run one at a time, on the connection's dispatcher.
         */
        private ForyCodec fory;
        private KryoCodec kryo;

        @Override
        public long listFory(byte[] serialized) {
            if (fory == null) {
                fory = new ForyCodec();
            }
            return RpcCase.list((ListNode) fory.fromBytes(serialized));
        }

        @Override
        public long listKryo(byte[] serialized) {
            if (kryo == null) {
                kryo = new KryoCodec();
            }
            return RpcCase.list((ListNode) kryo.fromBytes(serialized));
        }
    }

    @Override
    public String name() {
        return variant.key;
    }

    @Override
    public Medium medium() {
        return medium;
    }

    /** The plaintext tcp contender is shown in the tls tables too, as {@value #PLAIN_NAME}: TLS's cost is the ratio of the two. */
    @Override
    public Set<Medium> shownIn() {
        return medium == Medium.TCP && variant == Variant.PLAIN ? EnumSet.of(Medium.TCP, Medium.TLS) : Set.of(medium);
    }

    @Override
    public String nameIn(Medium m) {
        return m == Medium.TLS && medium == Medium.TCP ? PLAIN_NAME : name();
    }

    /** Every case (the bulk ones over shm only); over tls the null call and the 8 KiB argument (issue 17's cases). */
    @Override
    public Set<RpcCase> cases() {
        return switch (variant) {
            case PLAIN -> medium == Medium.TLS ? EnumSet.of(RpcCase.NULL, RpcCase.BYTES_8192)
                    : medium == Medium.TCP ? EnumSet.complementOf(EnumSet.of(RpcCase.BYTES_1MIB, RpcCase.BYTES_64MIB))
                    : EnumSet.allOf(RpcCase.class);
            case COPY -> EnumSet.of(RpcCase.BYTES_8192);
            case JOS, FORY, KRYO -> EnumSet.of(RpcCase.LIST_128);
            case THREADS -> EnumSet.of(RpcCase.THROUGHPUT_1, RpcCase.THROUGHPUT_16, RpcCase.THROUGHPUT_256);
        };
    }

    @Override
    public boolean spins() {
        return true;
    }

    /** {@code verbatim-threads}: C threads on the one proxy; the others C asynchronous calls in flight. */
    @Override
    public Callers callers() {
        return variant == Variant.THREADS ? Callers.THREADS : Callers.ASYNC;
    }

    @Override
    public Server server(Session session) {
        String address;
        if (medium == Medium.SHM) {
            System.setProperty("verbatim.shm.dir", session.dir().toString());
            address = "shm:" + session.name();
        } else {
            address = "tcp://127.0.0.1:0";
        }
        TlsConfig tls = medium == Medium.TLS ? RunPki.of(session).listener() : null;
        dev.verbatim.rpc.Node node = dev.verbatim.rpc.Node.listen(options(medium, tls), address);
        node.export("bench", ServerService.class, new Impl());
        session.publish("address", node.addresses().getFirst());
        return new Server() {
            @Override
            public void serve() {
                // the node serves on its own dispatcher threads
            }

            @Override
            public void close() {
                node.close();
            }
        };
    }

    @Override
    public Client client(Session session) {
        if (medium == Medium.SHM) {
            System.setProperty("verbatim.shm.dir", session.dir().toString());
        }
        TlsConfig tls = medium == Medium.TLS ? RunPki.of(session).connector() : null;
        dev.verbatim.rpc.Node node = dev.verbatim.rpc.Node.create(options(medium, tls), 1);
        Service s = node.lookup(session.require("address"), "bench", Service.class);
        Token token = () -> 1;
        byte[] bytes = RpcCase.bytes();
        ListNode list = RpcCase.list();
        ForyCodec fory = variant == Variant.FORY ? new ForyCodec() : null;
        KryoCodec kryo = variant == Variant.KRYO ? new KryoCodec() : null;
        return new Client() {
            @Override
            public Call call(RpcCase c) {
                return switch (c) {
                    case NULL -> seq -> {
                        s.nullCall();
                        return 0;
                    };
                    case INTS4 -> seq -> {
                        int[] a = RpcCase.ints(seq);
                        return s.ints4(a[0], a[1], a[2], a[3]);
                    };
                    case REMOTE_ARG -> seq -> s.remoteArg(token);
                    case BYTES_8192 -> variant == Variant.COPY ? seq -> {
                        RpcCase.stamp(bytes, seq);
                        return s.bytesCopy(bytes);
                    } : seq -> {
                        RpcCase.stamp(bytes, seq);
                        return s.bytes(bytes);
                    };
                    case BYTES_1MIB, BYTES_64MIB -> {
                        byte[] big = RpcCase.bulk(c.floorBytes());
                        yield seq -> {
                            RpcCase.stamp(big, seq);
                            return s.bulk(big);
                        };
                    }
                    case LIST_128 -> switch (variant) {
                        case JOS -> seq -> {
                            list.value = (int) seq;
                            ByteArrayOutputStream b = new ByteArrayOutputStream();
                            try (ObjectOutputStream out = new ObjectOutputStream(b)) {
                                out.writeObject(list);
                            }
                            return s.listJos(b.toByteArray());
                        };
                        case FORY -> seq -> {
                            list.value = (int) seq;
                            return s.listFory(fory.toBytes(list));
                        };
                        case KRYO -> seq -> {
                            list.value = (int) seq;
                            return s.listKryo(kryo.toBytes(list));
                        };
                        default -> seq -> {
                            list.value = (int) seq;
                            return s.list(list);
                        };
                    };
                    default -> throw new IllegalArgumentException("no " + c.key() + " call: the throughput cases make the null call");
                };
            }

            @Override
            public AsyncCall asyncCall(RpcCase c) {
                if (c != RpcCase.NULL) {
                    throw new IllegalArgumentException("no asynchronous " + c.key() + " call");
                }
                AsyncService a = node.lookup(session.require("address"), "bench", AsyncService.class);
                return seq -> a.nullCall().thenApply(v -> 0L);
            }

            @Override
            public void close() {
                node.close();
            }
        };
    }
}
