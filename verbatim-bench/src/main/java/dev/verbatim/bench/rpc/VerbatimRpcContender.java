package dev.verbatim.bench.rpc;

import dev.verbatim.bench.fixtures.ListNode;
import dev.verbatim.bench.fixtures.ListNodeView;
import dev.verbatim.bench.harness.Medium;
import dev.verbatim.bench.harness.Session;
import dev.verbatim.rpc.Remote;
import dev.verbatim.transport.ConnectionOptions;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.Set;

/**
 * Verbatim J-RPC ({@code shm/verbatim}, {@code tcp/verbatim}): a {@link dev.verbatim.rpc.Node} exports the
 * service, the client looks it up and calls through the generated proxy. The client's interface
 * passes the list as the {@link ListNode} class (by copy on the wire); the server's declares it as the
 * {@link ListNodeView} accessor interface of the same structure (same method identity), so the server
 * walks the 128 nodes in place; likewise the client passes the 8 KiB argument as a {@code byte[]} and the
 * server declares a {@code MemorySegment} (the same parameter on the wire), reads it in place and takes
 * it in whole into a buffer it reuses, as the floor's server copies the request out of the shared file.
 * {@code verbatim-copy} ({@code shm/verbatim-copy}): the 8 KiB call with the server declaring {@code byte[]},
 * so each call allocates and fills a fresh array (by-copy semantics: what a server that keeps the array
 * pays). {@code jos} ({@code shm/jos}): the same list written with Java
 * serialization into a {@code byte[]} and read back with it, over the same kind of connection.
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

    /** The nodes' connection options: {@link dev.verbatim.rpc.Node#DEFAULT_OPTIONS}, spinning {@link #SHM_SPIN_NANOS} over shm. */
    static ConnectionOptions options(Medium medium) {
        ConnectionOptions d = dev.verbatim.rpc.Node.DEFAULT_OPTIONS;
        return medium == Medium.SHM ? d.withSpin(SHM_SPIN_NANOS, false) : d;
    }

    /** Which calls a Verbatim contender makes. */
    enum Variant {
        /** Every case, the server reading views and segments in place. */
        PLAIN("verbatim"),
        /** The 8 KiB case with the server taking a {@code byte[]} by copy. */
        COPY("verbatim-copy"),
        /** The list case sent as a Java-serialized {@code byte[]}. */
        JOS("jos");

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

        long list(ListNode head);

        long listJos(byte[] serialized);
    }

    /** The server's: the list as a view of the same structure. */
    public interface ServerService {
        void nullCall();

        int ints4(int a, int b, int c, int d);

        int remoteArg(Token t);

        long bytes(MemorySegment a);

        long bytesCopy(byte[] a);

        long list(ListNodeView head);

        long listJos(byte[] serialized);
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
    }

    @Override
    public String name() {
        return variant.key;
    }

    @Override
    public Medium medium() {
        return medium;
    }

    @Override
    public Set<RpcCase> cases() {
        return switch (variant) {
            case PLAIN -> EnumSet.allOf(RpcCase.class);
            case COPY -> EnumSet.of(RpcCase.BYTES_8192);
            case JOS -> EnumSet.of(RpcCase.LIST_128);
        };
    }

    @Override
    public boolean spins() {
        return true;
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
        dev.verbatim.rpc.Node node = dev.verbatim.rpc.Node.listen(options(medium), address);
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
        dev.verbatim.rpc.Node node = dev.verbatim.rpc.Node.create(options(medium), 1);
        Service s = node.lookup(session.require("address"), "bench", Service.class);
        Token token = () -> 1;
        byte[] bytes = RpcCase.bytes();
        ListNode list = RpcCase.list();
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
                    case LIST_128 -> variant == Variant.JOS ? seq -> {
                        list.value = (int) seq;
                        ByteArrayOutputStream b = new ByteArrayOutputStream();
                        try (ObjectOutputStream out = new ObjectOutputStream(b)) {
                            out.writeObject(list);
                        }
                        return s.listJos(b.toByteArray());
                    } : seq -> {
                        list.value = (int) seq;
                        return s.list(list);
                    };
                };
            }

            @Override
            public void close() {
                node.close();
            }
        };
    }
}
