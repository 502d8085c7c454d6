package dev.verbatim.bench.wire;

import dev.verbatim.bench.fixtures.EventBatch;
import dev.verbatim.bench.fixtures.EventBatchView;
import dev.verbatim.bench.fixtures.Graphs;
import dev.verbatim.bench.fixtures.ListNode;
import dev.verbatim.bench.fixtures.ListNodeView;
import dev.verbatim.bench.fixtures.Pair;
import dev.verbatim.bench.fixtures.Payloads;
import dev.verbatim.bench.fixtures.Profile;
import dev.verbatim.bench.fixtures.ProfileView;
import dev.verbatim.bench.fixtures.Pso;
import dev.verbatim.bench.fixtures.PsoView;
import dev.verbatim.bench.fixtures.Trade;
import dev.verbatim.bench.fixtures.TradeView;
import dev.verbatim.bench.harness.Blackhole;
import dev.verbatim.wire.ArrayView;
import dev.verbatim.wire.Message;
import dev.verbatim.wire.WireReader;
import dev.verbatim.wire.WireWriter;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Verbatim, read zero-copy. Marshal is {@link WireWriter#write} straight into a reused off-heap
 * segment that is already large enough (as a transport's claimed space would be; no
 * {@link WireWriter#sizeOf} pass, just as the peers write into an already-grown buffer).
 * Unmarshal is {@link WireReader#validate} of the received message (its own off-heap segment,
 * as a receive area would hold it) followed by reading every field through views; for a byte
 * array, the view's length and its first and last byte, with no copy; for a payload, every field,
 * strings char by char as {@link CharSequence} ({@link Payloads#touchView}).
 */
public final class VerbatimCodec implements Codec {
    private static final long ALIGN = 64;

    final WireWriter writer = new WireWriter();
    final WireReader reader = new WireReader();
    private final Arena arena = Arena.ofAuto();
    private MemorySegment out = arena.allocate(4096, ALIGN);
    MemorySegment received = MemorySegment.NULL;
    Class<?> receivedClass = Object.class;

    @Override
    public String name() {
        return "verbatim";
    }

    @Override
    public long marshal(Object root) {
        return writer.write(root, out, 0);
    }

    @Override
    public void marshalBatch(Object root, int n, Blackhole bh) {
        for (int i = 0; i < n; i++) {
            bh.consume(marshal(root));
        }
    }

    /** Also sizes the reusable output for {@code root}: call it before {@link #marshal}. */
    @Override
    public long receive(Object root) {
        long size = writer.sizeOf(root);
        if (out.byteSize() < size) {
            out = arena.allocate(Math.max(size, out.byteSize() * 2), ALIGN);
        }
        long written = marshal(root);
        if (written != size) {
            throw new IllegalStateException("WireWriter.sizeOf said " + size + " bytes, write() wrote " + written);
        }
        received = arena.allocate(size, ALIGN);
        MemorySegment.copy(out, 0, received, 0, size);
        receivedClass = heapClass(root);
        return size;
    }

    @Override
    public long unmarshal(MessageKind kind) {
        Message m = reader.validate(received);
        return switch (kind) {
            case BYTES -> Graphs.touchView(m.view(ArrayView.OfByte.class));
            case LIST -> Graphs.touchView(m.view(ListNodeView.class));
            case PSO -> Graphs.touchView(m.view(PsoView.class));
            case TRADE -> Payloads.touchView(m.view(TradeView.class));
            case PROFILE -> Payloads.touchView(m.view(ProfileView.class));
            case EVENTS -> Payloads.touchView(m.view(EventBatchView.class));
        };
    }

    @Override
    public void unmarshalBatch(MessageKind kind, int n, Blackhole bh) {
        for (int i = 0; i < n; i++) {
            bh.consume(unmarshal(kind));
        }
    }

    @Override
    public Object decode() {
        return reader.validate(received).materialize(receivedClass);
    }

    @Override
    public String verifyReceived(Object expected) {
        Message m = reader.validate(received);
        Object view = switch (expected) {
            case byte[] _ -> m.view(ArrayView.OfByte.class);
            case ListNode _ -> m.view(ListNodeView.class);
            case Pso _ -> m.view(PsoView.class);
            case Trade _ -> m.view(TradeView.class);
            case Profile _ -> m.view(ProfileView.class);
            case EventBatch _ -> m.view(EventBatchView.class);
            default -> throw new IllegalArgumentException("not a suite graph: " + expected.getClass());
        };
        return Graphs.diffView(expected, view);
    }

    /** The heap class the received message materializes to, for a suite graph. */
    static Class<?> heapClass(Object graph) {
        return switch (graph) {
            case byte[] _ -> byte[].class;
            case ListNode _ -> ListNode.class;
            case Pso _ -> Pso.class;
            case Pair _ -> Pair.class;
            case Trade _ -> Trade.class;
            case Profile _ -> Profile.class;
            case EventBatch _ -> EventBatch.class;
            default -> throw new IllegalArgumentException("not a suite graph: " + graph.getClass());
        };
    }
}
