package dev.verbatim.bench.jmh;

import dev.verbatim.bench.fixtures.Graphs;
import dev.verbatim.bench.fixtures.HandList;
import dev.verbatim.bench.fixtures.ListNode;
import dev.verbatim.bench.fixtures.ListNodeView;
import dev.verbatim.bench.fixtures.PsoView;
import dev.verbatim.wire.Message;
import dev.verbatim.wire.WireReader;
import dev.verbatim.wire.WireWriter;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

/**
 * Verbatim's wire steps one by one, for finding where a list's time goes: marshal (write into a
 * reused off-heap segment), size (the sizing pass), validate, walk (read every field of an already
 * validated message through views) and validate + walk (what {@code bench wire} calls unmarshal).
 * Figures are per message; divide by {@code n} for per element. Beside them, for the list, the same steps without a
 * format: {@code handEncode} and {@code handWalk} ({@link HandList}: two words a node, checked indices),
 * {@code heapWalk} (the heap list itself) and {@code objectPerNodeWalk} (the hand-written walk making one 24-byte
 * object per node, as a view walk makes one view per node): what the format's steps cost over the least work
 * (docs/benchmarks.md, the list floor's bound).
 *
 * <pre>{@code
 * $JAVA_HOME/bin/java -cp 'verbatim-cli/target/lib/*' org.openjdk.jmh.Main WireStepsJmh -p n=100
 * }</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 4, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
public class WireStepsJmh {
    @Param({"100"})
    public int n;

    @Param({"list"})
    public String shape;

    private final WireWriter writer = new WireWriter();
    private final WireReader reader = new WireReader();
    private Object root;
    private MemorySegment out;
    private MemorySegment received;
    private Message validated;
    private MemorySegment hand;

    @Setup(Level.Trial)
    public void setUp() {
        root = shape.equals("pso") ? Graphs.psoList(n) : Graphs.list(n);
        long size = writer.sizeOf(root);
        out = Arena.ofAuto().allocate(size, 64);
        received = Arena.ofAuto().allocate(size, 64);
        writer.write(root, received, 0);
        validated = reader.validate(received);
        hand = Arena.ofAuto().allocate(HandList.bytes(n), 64);
        if (root instanceof ListNode l) {
            HandList.encode(l, hand, Math.toIntExact(hand.byteSize()));
        }
    }

    @Benchmark
    public MemorySegment handEncode() {
        HandList.encode((ListNode) root, hand, Math.toIntExact(hand.byteSize()));
        return hand;
    }

    @Benchmark
    public long handWalk() throws java.io.IOException {
        return HandList.walk(hand, Math.toIntExact(hand.byteSize()));
    }

    @Benchmark
    public long heapWalk() {
        return Graphs.touch((ListNode) root);
    }

    @Benchmark
    public long objectPerNodeWalk() {
        long sum = 0;
        for (Node x = new Node(hand, HandList.node(0), this); x != null; x = x.next()) {
            sum += x.value();
        }
        return sum;
    }

    /** A node of the hand-written list as an object of a view's size: a segment, an owner and an int offset. */
    private static final class Node {
        final MemorySegment seg;
        final Object owner;
        final int off;

        Node(MemorySegment seg, long off, Object owner) {
            this.seg = seg;
            this.owner = owner;
            this.off = (int) off;
        }

        long value() {
            return seg.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, off);
        }

        Node next() {
            long i = seg.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, off + 8);
            if (i == -1) {
                return null;
            }
            if (Long.compareUnsigned(i, HandList.capacity(seg.byteSize())) >= 0) {
                throw new IllegalStateException("index " + i + " out of range");
            }
            return new Node(seg, HandList.node(i), owner);
        }
    }

    @Benchmark
    public long marshal() {
        return writer.write(root, out, 0);
    }

    @Benchmark
    public long size() {
        return writer.sizeOf(root);
    }

    @Benchmark
    public Message validate() {
        return reader.validate(received);
    }

    @Benchmark
    public long walk() {
        return touch(validated);
    }

    @Benchmark
    public long unmarshal() {
        return touch(reader.validate(received));
    }

    private long touch(Message m) {
        return root instanceof ListNode ? Graphs.touchView(m.view(ListNodeView.class)) : Graphs.touchView(m.view(PsoView.class));
    }
}
