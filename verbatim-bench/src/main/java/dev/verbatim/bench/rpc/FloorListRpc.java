package dev.verbatim.bench.rpc;

import dev.verbatim.bench.fixtures.Graphs;
import dev.verbatim.bench.fixtures.ListNode;
import dev.verbatim.bench.fixtures.ListNodeView;
import dev.verbatim.bench.harness.ChildMain;
import dev.verbatim.bench.harness.Medium;
import dev.verbatim.bench.harness.Session;
import dev.verbatim.bench.transport.Contenders;
import dev.verbatim.bench.transport.PingPongContender;
import dev.verbatim.wire.WireReader;
import dev.verbatim.wire.WireWriter;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The list call over the shm floor's transport, with no RPC layer, in two variants, so that the list's targets can
 * be read against what its parts cost in the same run ({@link RpcReport#handBound}):
 *
 * <ul>
 *   <li>{@code shm/hand}: written by hand, the least per-node work any call carrying the list does (below);</li>
 *   <li>{@code shm/wire}: Verbatim's wire format alone: the client writes the list with a {@link WireWriter}, the
 *       server validates the message it took in with a {@link WireReader} and walks it through views
 *       ({@link Graphs#touchView(ListNodeView)}), as the RPC server does; what it costs over {@code hand} is the
 *       format's (validation, types, sharing, views), what {@code verbatim} costs over it is the call's.</li>
 * </ul>
 *
 * <p>{@code hand}: the client walks the heap list and writes each node as two words, its value and
 * the index of the next node (-1: none), the way a flyweight codec without a schema compiler writes a repeating
 * group; the server follows the indices through the message it took in, checking each against the count (a
 * server that reads a peer's bytes must), and replies the sum. The message is as long as Verbatim's list call
 * ({@link RpcCase#listCallBytes()}), so it moves the floor's bytes: what it costs over the floor is the per-node
 * work alone.
 *
 * <p>What it leaves out, which Verbatim does: types (nothing says the message holds list nodes), sharing (a node
 * reached twice would be written twice, and a cycle would never end on the client), validation of the whole
 * message before its first read (this server checks only what its walk touches), the call (method ids, an
 * answer, exceptions) and views that a program reads as its own interfaces.
 *
 * <pre>
 *   0        8                 24                    8 + 16k          8 + 16k + 8
 *   | count  | value 0 | next 0 | value 1 | next 1 | ... | value k | next k (index, or -1) | ... padding
 * </pre>
 */
final class FloorListRpc implements RpcContender {
    private static final String FLOOR = "shm/floor";

    /** How the list is written and read. */
    enum Variant {
        HAND("hand"),
        WIRE("wire");

        final String key;

        Variant(String key) {
            this.key = key;
        }
    }

    private final Variant variant;

    FloorListRpc(Variant variant) {
        this.variant = variant;
    }
    /** Where node 0 starts: after the node count. */
    private static final long NODES = 8;
    /** The bytes of one node: its value and its next node's index, a word each. */
    private static final long NODE = 16;

    @Override
    public String name() {
        return variant.key;
    }

    @Override
    public Medium medium() {
        return Medium.SHM;
    }

    @Override
    public Set<RpcCase> cases() {
        return EnumSet.of(RpcCase.LIST_128);
    }

    /** It explains the list floor target's bound ({@link RpcReport#handBound}): full runs only. */
    @Override
    public boolean inQuickRuns() {
        return false;
    }

    @Override
    public boolean spins() {
        return true;
    }

    @Override
    public boolean pausedBetweenTurns() {
        return true;
    }

    @Override
    public List<String> jvmFlags() {
        return Contenders.pingPong(FLOOR).jvmFlags();
    }

    /**
     * Writes the list at {@code head} into {@code m}, in {@code [0, size)}: its count, then its nodes in list order.
     *
     * @throws IllegalArgumentException when the list has more nodes than {@code size} holds
     */
    static void encode(ListNode head, MemorySegment m, int size) {
        long capacity = (size - NODES) / NODE;
        long k = 0;
        for (ListNode n = head; n != null; n = n.next, k++) {
            if (k == capacity) {
                throw new IllegalArgumentException("a list of more than " + capacity + " nodes does not fit "
                        + size + " bytes");
            }
            long at = NODES + k * NODE;
            m.set(ValueLayout.JAVA_LONG_UNALIGNED, at, n.value);
            m.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 8, n.next == null ? -1 : k + 1);
        }
        m.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, k);
    }

    /**
     * The sum of the values of the list in {@code m[0, size)}, following the next indices from node 0.
     *
     * @throws IOException when the count does not fit {@code size}, an index is out of range, or the walk takes more
     *                     steps than there are nodes (a cycle)
     */
    static long walk(MemorySegment m, int size) throws IOException {
        long count = m.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
        if (count < 0 || count > (size - NODES) / NODE) {
            throw new IOException("a hand-written list of " + count + " nodes in " + size + " bytes");
        }
        long sum = 0;
        long i = count == 0 ? -1 : 0;
        for (long steps = 0; i != -1; steps++) {
            if (Long.compareUnsigned(i, count) >= 0 || steps == count) {
                throw new IOException("a hand-written list whose node " + steps + " leads to index " + i + " of " + count);
            }
            long at = NODES + i * NODE;
            sum += m.get(ValueLayout.JAVA_LONG_UNALIGNED, at);
            i = m.get(ValueLayout.JAVA_LONG_UNALIGNED, at + 8);
        }
        return sum;
    }

    /** The {@code wire} server's work: validates the message, then sums the list through views. */
    static PingPongContender.Work wireWalk() {
        dev.verbatim.wire.Schema.fingerprint(ListNode.class); // the reader knows the types its program knows, as an RPC server its interface's
        WireReader reader = new WireReader();
        return (m, size) -> Graphs.touchView(reader.validate(m.asSlice(0, size)).view(ListNodeView.class));
    }

    @Override
    public Server server(Session session) throws Exception {
        PingPongContender.Pong pong = Contenders.servingFloor(session, variant == Variant.HAND ? FloorListRpc::walk
                : wireWalk());
        return new Server() {
            @Override
            public void serve() throws Exception {
                long served = 0;
                while (pong.echo()) { // until the client closes
                    ChildMain.echoed(++served); // paused between turns (it spins)
                }
            }

            @Override
            public void close() throws IOException {
                pong.close();
            }
        };
    }

    @Override
    public Client client(Session session) throws Exception {
        Arena arena = Arena.ofConfined();
        MemorySegment msg = arena.allocate(session.maxSize(), 4096);
        MemorySegment reply = arena.allocate(session.maxSize(), 4096);
        PingPongContender.Ping ping;
        try {
            ping = Contenders.pingPong(FLOOR).ping(session);
        } catch (Exception | Error e) {
            arena.close();
            throw e;
        }
        return new Client() {
            @Override
            public Call call(RpcCase c) {
                if (c != RpcCase.LIST_128) {
                    throw new IllegalArgumentException("shm/" + variant.key + " has no " + c.key());
                }
                int size = c.floorBytes();
                ListNode head = RpcCase.list();
                if (variant == Variant.WIRE) {
                    WireWriter writer = new WireWriter();
                    return seq -> {
                        head.value = (int) seq;
                        ping.roundTrip(msg, reply, Math.toIntExact(writer.write(head, msg, 0)));
                        return reply.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
                    };
                }
                return seq -> {
                    head.value = (int) seq;
                    encode(head, msg, size);
                    ping.roundTrip(msg, reply, size);
                    return reply.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
                };
            }

            @Override
            public void close() throws IOException {
                try {
                    ping.close();
                } finally {
                    arena.close();
                }
            }
        };
    }
}
