package dev.verbatim.bench.rpc;

import dev.verbatim.bench.harness.ClassArchive;
import dev.verbatim.bench.harness.Contender;
import dev.verbatim.bench.harness.LatencyHistogram;
import dev.verbatim.bench.harness.Medium;
import dev.verbatim.bench.harness.TurnSides;
import dev.verbatim.bench.harness.Turns;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A contender of {@code bench rpc}, its two processes up for the whole run ({@link RpcProcesses}), and
 * what it measured: the server is the {@code first} side, the client the {@code second}. Its processes
 * start from the run's {@linkplain ClassArchive class-data archive} when there is one. Used by one thread
 * at a time (a starter's, then the suite's).
 */
final class LiveContender extends TurnSides {
    final RpcContender c;
    final Map<RpcCase, List<LatencyHistogram>> byCase = new EnumMap<>(RpcCase.class);
    final Map<RpcCase, List<Double>> cpu = new EnumMap<>(RpcCase.class);
    final Map<RpcCase, List<Double>> rates = new EnumMap<>(RpcCase.class);
    private final Optional<ClassArchive> archive;

    LiveContender(RpcContender c, Optional<ClassArchive> archive) {
        super(RpcContenders.id(c));
        this.c = c;
        this.archive = archive;
    }

    @Override
    protected List<String> flags(Contender contender, String label) {
        List<String> f = new ArrayList<>(contender.jvmFlags());
        f.addAll(ClassArchive.flags(archive, label));
        return f;
    }

    @Override
    protected String classPath() {
        return ClassArchive.classPath(archive);
    }

    /** Whether it talks TLS (it needs the run's CA to start). */
    boolean tls() {
        return c.medium() == Medium.TLS;
    }

    /** Puts a spinning server to sleep between turns (the others wait without spinning anyway). */
    void pause() throws Exception {
        if (c.pausedBetweenTurns()) {
            trips = Turns.pause(first, second, trips);
        }
    }

    void resume() throws Exception {
        if (c.pausedBetweenTurns()) {
            first.send("RESUME");
        }
    }

    RpcBench.Result result() {
        Map<Medium, String> names = new EnumMap<>(Medium.class);
        c.shownIn().forEach(m -> names.put(m, c.nameIn(m)));
        return new RpcBench.Result(id, c.name(), c.medium(), c.shownIn(), c.spins(), byCase,
                meanShares(cpu, new EnumMap<>(RpcCase.class)), error, names, rates);
    }
}
