package dev.verbatim.bench.rpc;

import dev.verbatim.bench.fixtures.Graphs;
import dev.verbatim.bench.fixtures.HandList;
import dev.verbatim.bench.fixtures.ListNode;
import dev.verbatim.bench.fixtures.ListNodeView;
import dev.verbatim.bench.harness.Medium;
import dev.verbatim.bench.harness.Session;
import dev.verbatim.bench.transport.Contenders;
import dev.verbatim.bench.transport.PingPongContender;
import dev.verbatim.wire.WireReader;
import dev.verbatim.wire.WireWriter;

import java.io.IOException;
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
 *       ({@link Graphs#touchView(ListNodeView)}), as the RPC server does (its message is the list's wire message: the
 *       floor's bytes less the call's 40 bytes of headers); what it costs over {@code hand} is the
 *       format's (validation, types, sharing, views), what {@code verbatim} costs over it is the call's.</li>
 * </ul>
 *
 * <p>{@code hand} ({@link HandList}): the client walks the heap list and writes each node as two words, its value and
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

    /** The {@code wire} server's work: validates the message, then sums the list through views. */
    static PingPongContender.Work wireWalk() {
        dev.verbatim.wire.Schema.fingerprint(ListNode.class); // the reader knows the types its program knows, as an RPC server its interface's
        WireReader reader = new WireReader();
        return (m, size) -> Graphs.touchView(reader.validate(m.asSlice(0, size)).view(ListNodeView.class));
    }

    @Override
    public Server server(Session session) throws Exception {
        return PingPongRpc.serving(Contenders.servingFloor(session, variant == Variant.HAND ? HandList::walk
                : wireWalk()));
    }

    @Override
    public Client client(Session session) throws Exception {
        PingPongRpc.Link link = PingPongRpc.Link.open(FLOOR, session);
        MemorySegment msg = link.msg();
        MemorySegment reply = link.reply();
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
                        link.ping().roundTrip(msg, reply, Math.toIntExact(writer.write(head, msg, 0)));
                        return reply.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
                    };
                }
                return seq -> {
                    head.value = (int) seq;
                    HandList.encode(head, msg, size);
                    link.ping().roundTrip(msg, reply, size);
                    return reply.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
                };
            }

            @Override
            public void close() throws IOException {
                link.close();
            }
        };
    }
}
