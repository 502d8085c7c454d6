package dev.verbatim.bench.jmh;

import dev.verbatim.bench.fixtures.Graphs;
import dev.verbatim.bench.wire.Codec;
import dev.verbatim.bench.wire.WireBench;
import dev.verbatim.bench.wire.WireCase;
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

import java.util.concurrent.TimeUnit;

/**
 * The wire suite's workloads under JMH: the same cases and the same codec objects as
 * {@code verbatim bench wire}, but each (case, library) pair in a JVM of its own, so no library
 * runs on a profile left by another. Figures are per message (JMH cannot divide by a
 * parameter): divide list cases by their element count for the tables' ns/elem.
 *
 * <p>Run from the repository root after a build ({@code ./verbatim build}), for example:
 * <pre>{@code
 * JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 $JAVA_HOME/bin/java -cp 'verbatim-cli/target/lib/*' \
 *     org.openjdk.jmh.Main 'dev.verbatim.bench.jmh.WireJmh' -p caseName=list-100 -p library=verbatim,kryo
 * }</pre>
 * ({@code verbatim-cli/target/lib} holds verbatim-bench, its peers and JMH; the benchmark list is in
 * the verbatim-bench jar. Add {@code -prof gc} for allocation rates, {@code -f 3} for more forks.) The format's floor,
 * {@code -p library=verbatim-hand,verbatim-hand-materialize}, carries the payload cases only ({@code trade},
 * {@code profile}, {@code batch-100}); it is not in the default list, which crosses every library with every case.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xss4m"})
public class WireJmh {

    @Param({"bytes-10", "bytes-100", "bytes-500", "bytes-1000", "bytes-5000", "bytes-1048576",
            "list-10", "list-100", "list-500", "pso-128", "trade", "profile", "batch-100"})
    public String caseName;

    @Param({"verbatim", "verbatim-materialize", "jos", "kryo", "fory", "kryo-noref", "fory-noref"})
    public String library;

    private Codec codec;
    private WireCase wireCase;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        codec = WireBench.codecs().get(library);
        if (codec == null) {
            throw new IllegalArgumentException("unknown library " + library);
        }
        wireCase = WireCase.all().stream().filter(c -> c.name().equals(caseName)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown case " + caseName));
        codec.receive(wireCase.root());
        String diff = codec.verifyReceived(wireCase.root());
        if (diff != null || codec.unmarshal(wireCase.kind()) != Graphs.touch(wireCase.root())) {
            throw new IllegalStateException(library + " round trip failed on " + caseName + ": " + diff);
        }
    }

    /** Marshal one message into the codec's reused output; returns its size. */
    @Benchmark
    public long marshal() throws Exception {
        return codec.marshal(wireCase.root());
    }

    /** Unmarshal the received message and read every field; returns the sum of the fields. */
    @Benchmark
    public long unmarshal() throws Exception {
        return codec.unmarshal(wireCase.kind());
    }
}
