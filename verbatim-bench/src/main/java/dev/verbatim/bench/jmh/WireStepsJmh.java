package dev.verbatim.bench.jmh;

import dev.verbatim.bench.fixtures.Graphs;
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
 * Figures are per message; divide by {@code n} for per element.
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

    @Setup(Level.Trial)
    public void setUp() {
        root = shape.equals("pso") ? Graphs.psoList(n) : Graphs.list(n);
        long size = writer.sizeOf(root);
        out = Arena.ofAuto().allocate(size, 64);
        received = Arena.ofAuto().allocate(size, 64);
        writer.write(root, received, 0);
        validated = reader.validate(received);
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
