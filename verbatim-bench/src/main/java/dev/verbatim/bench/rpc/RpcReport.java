package dev.verbatim.bench.rpc;

import dev.verbatim.bench.harness.FloorCase;
import dev.verbatim.bench.harness.FloorTable;
import dev.verbatim.bench.harness.Host;
import dev.verbatim.bench.harness.Json;
import dev.verbatim.bench.harness.LatencyHistogram;
import dev.verbatim.bench.harness.Medium;
import dev.verbatim.bench.harness.ReportText;
import dev.verbatim.bench.harness.Stats;
import dev.verbatim.bench.harness.Target;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.ToDoubleFunction;

import static dev.verbatim.bench.harness.FloorCase.FLOOR;
import static dev.verbatim.bench.harness.Target.orMissing;

/**
 * Prints an {@link RpcBench.Run}: tables in the transport suite's form (a row per case, a column
 * per contender, then each contender's ratio to the floor), or one JSON object per line; then the
 * targets, evaluated on this run, and notes.
 *
 * <p>JSON lines: {@code {"suite":"rpc","case":"shm/null","unit":"ns","results":{name: figure},
 * "ratios":{name: figure/floor},"cpu":{name: share},"mode":"quick"}} for the cases of issue #4:
 * {@code shm/null}, {@code shm/ints4}, {@code shm/remote-arg}, {@code tcp/null} (p50, ns; results
 * {@code floor}, {@code verbatim}, and where measured {@code rmi}, {@code grpc}, {@code aeron}),
 * {@code shm/null/p99} (ns, the same keys), {@code shm/bytes-8192} (MB/s of argument bytes; results
 * {@code floor}, {@code verbatim}) and {@code shm/list-128} (p50, ns; results {@code verbatim},
 * {@code jos}, issue 18's {@code fory} and {@code kryo}, and {@code floor}: the transport moving the bytes of
 * Verbatim's call); issue 18's {@code shm/throughput-C} and {@code tcp/throughput-C} for C = 1, 16, 256
 * (unit {@code calls/s}; results {@code verbatim} (C async calls, as grpc), {@code verbatim-threads}, {@code grpc}, {@code rmi}; no
 * ratios), after the others; issue #17's {@code tls/null} (p50, ns;
 * results {@code verbatim} over TLS, {@code verbatim-plain} the plaintext tcp one in the same rounds, {@code grpc}
 * with TLS) and {@code tls/bytes-8192} (MB/s; {@code verbatim}, {@code verbatim-plain}); {@code cpu} only for contenders whose client spins. The tables show more (every
 * case over both media, every contender that measured it). Then one line per target:
 * {@code {"suite":"rpc","target":...,"measured":x|null,"need":...,"pass":true|false|null}}
 * ({@code null}: a contender it needs is missing), and one line per failed contender:
 * {@code {"suite":"rpc","failed":id,"error":...}}.
 */
final class RpcReport {
    private RpcReport() {}

    static final String VERBATIM = "verbatim";
    static final String JOS = "jos";
    static final String VERBATIM_COPY = "verbatim-copy";
    static final String RMI = "rmi";
    static final String GRPC = "grpc";
    static final String AERON = "aeron";
    static final String FORY = "fory";
    static final String KRYO = "kryo";
    static final String VERBATIM_THREADS = "verbatim-threads";
    /** The list call written by hand over the floor's transport ({@link FloorListRpc}). */
    static final String HAND = "hand";
    /** The list call in Verbatim's wire format over the floor's transport, no RPC layer ({@link FloorListRpc}). */
    static final String WIRE = "wire";
    /** The result keys of the throughput cases (issue 18 §2; verbatim-threads beside them). */
    static final Set<String> THROUGHPUT_KEYS = Set.of(VERBATIM, VERBATIM_THREADS, GRPC, RMI);
    /** The throughput cases' unit. */
    static final String PER_SECOND = "calls/s";
    /** The plaintext tcp Verbatim in the tls tables. */
    static final String VERBATIM_PLAIN = VerbatimRpcContender.PLAIN_NAME;
    /** The JDK's SSLEngine alone doing a TLS null call's four record operations ({@link TlsEngineFloor}). */
    static final String ENGINE = TlsEngineFloor.NAME;
    /** The result keys of the JSON cases in ns (issue #4). */
    static final Set<String> NS_KEYS = Set.of(FLOOR, VERBATIM, RMI, GRPC, AERON);

    /** MB/s (10^6 bytes per second) of one turn's argument bytes at its p50 call. */
    static double mbps(LatencyHistogram h) {
        return mbps(RpcCase.BYTES_8192).applyAsDouble(h);
    }

    /** MB/s of one turn of case {@code c}: its argument bytes at its p50 call. */
    static ToDoubleFunction<LatencyHistogram> mbps(RpcCase c) {
        long bytes = c.floorBytes();
        return h -> bytes * 1e3 / h.quantile(0.5);
    }

    /**
     * One case's figure per contender shown in {@code m} that measured it ({@code keys}: only those
     * names; null: all): the median over its turns of {@code f} of each turn; each one's ratio to the
     * floor of {@code m}, the median over rounds of the ratio within a round.
     */
    static FloorCase figure(RpcBench.Run run, Medium m, RpcCase c, String suffix, String label, String unit,
                       ToDoubleFunction<LatencyHistogram> f, Set<String> keys) {
        Map<String, Double> results = new LinkedHashMap<>();
        Map<String, Double> cpu = new LinkedHashMap<>();
        Map<String, Double> paired = new LinkedHashMap<>();
        Optional<RpcBench.Result> floor = result(run, m, FLOOR, c);
        for (RpcBench.Result r : run.shownIn(m)) {
            String name = r.nameIn(m);
            if (r.has(c) && (keys == null || keys.contains(name)) && !results.containsKey(name)) {
                results.put(name, Stats.median(r.turns(c, f)));
                if (floor.isPresent() && !name.equals(FLOOR)) {
                    paired.put(name, Stats.pairedRatio(r.turns(c, f), floor.get().turns(c, f)));
                }
                Double share = r.cpu().get(c);
                if (r.spins() && share != null && !share.isNaN()) {
                    cpu.put(name, share);
                }
            }
        }
        return new FloorCase(m.key() + "/" + c.key() + suffix, label, unit, results, cpu, paired);
    }

    /** The contender shown in {@code m} as {@code name} ({@link RpcBench.Result#nameIn}) that measured {@code c}. */
    static Optional<RpcBench.Result> result(RpcBench.Run run, Medium m, String name, RpcCase c) {
        return run.shownIn(m).stream().filter(r -> r.nameIn(m).equals(name) && r.has(c)).findFirst();
    }

    /**
     * A row per case that a contender of {@code m} itself measured (contenders shown from another medium,
     * such as gRPC in the shm table or the plaintext tcp Verbatim in the tls table, add no rows).
     */
    static List<FloorCase> latency(RpcBench.Run run, Medium m, double q, String suffix) {
        List<FloorCase> cases = new ArrayList<>();
        for (RpcCase c : RpcCase.values()) {
            if (c.isThroughput() || run.results().stream().noneMatch(r -> r.ok() && r.medium() == m && r.has(c))) {
                continue;
            }
            FloorCase k = figure(run, m, c, suffix, c.key(), "ns", h -> h.quantile(q), null);
            if (!k.results().isEmpty()) {
                cases.add(k);
            }
        }
        return cases;
    }

    /** The bulk cases over shm (issue 18 §3), MB/s. */
    static List<FloorCase> bulk(RpcBench.Run run) {
        List<FloorCase> cases = new ArrayList<>();
        for (RpcCase c : List.of(RpcCase.BYTES_1MIB, RpcCase.BYTES_64MIB)) {
            FloorCase k = figure(run, Medium.SHM, c, "", c.key(), "MB/s", mbps(c), null);
            if (!k.results().isEmpty()) {
                cases.add(k);
            }
        }
        return cases;
    }

    static List<FloorCase> bandwidth(RpcBench.Run run) {
        List<FloorCase> cases = new ArrayList<>();
        for (Medium m : Medium.values()) {
            FloorCase k = figure(run, m, RpcCase.BYTES_8192, "", m.key(), "MB/s", RpcReport::mbps, null);
            if (!k.results().isEmpty()) {
                cases.add(k);
            }
        }
        return cases;
    }

    /**
     * Throughput case {@code c} over {@code m}: per contender shown in {@code m} that measured it (of
     * {@link #THROUGHPUT_KEYS}), the median over its turns of the calls per second; no ratios (there is no
     * floor of many callers: the targets compare with gRPC).
     */
    static FloorCase throughput(RpcBench.Run run, Medium m, RpcCase c) {
        Map<String, Double> results = new LinkedHashMap<>();
        for (RpcBench.Result r : run.shownIn(m)) {
            String name = r.nameIn(m);
            if (r.rates(c).length > 0 && THROUGHPUT_KEYS.contains(name) && !results.containsKey(name)) {
                results.put(name, Stats.median(r.rates(c)));
            }
        }
        return new FloorCase(m.key() + "/" + c.key(), m.key() + " C=" + c.callers(), PER_SECOND, results, Map.of(),
                Map.of());
    }

    /** The throughput cases that some contender measured: shm, then tcp, C ascending. */
    static List<FloorCase> throughput(RpcBench.Run run) {
        List<FloorCase> cases = new ArrayList<>();
        for (Medium m : List.of(Medium.SHM, Medium.TCP)) {
            for (RpcCase c : RpcCase.values()) {
                if (c.isThroughput()) {
                    FloorCase k = throughput(run, m, c);
                    if (!k.results().isEmpty()) {
                        cases.add(k);
                    }
                }
            }
        }
        return cases;
    }

    /** The JSON cases of issue #4 in its order, then issue 18's throughput cases (those measured). */
    static List<FloorCase> jsonCases(RpcBench.Run run) {
        List<FloorCase> cases = new ArrayList<>(latencyJsonCases(run));
        cases.addAll(throughput(run));
        return cases;
    }

    private static List<FloorCase> latencyJsonCases(RpcBench.Run run) {
        ToDoubleFunction<LatencyHistogram> p50 = h -> h.quantile(0.5);
        return List.of(
                figure(run, Medium.SHM, RpcCase.NULL, "", "p50", "ns", p50, NS_KEYS),
                figure(run, Medium.SHM, RpcCase.INTS4, "", "p50", "ns", p50, NS_KEYS),
                figure(run, Medium.SHM, RpcCase.REMOTE_ARG, "", "p50", "ns", p50, NS_KEYS),
                figure(run, Medium.TCP, RpcCase.NULL, "", "p50", "ns", p50, NS_KEYS),
                figure(run, Medium.SHM, RpcCase.NULL, "/p99", "p99", "ns", h -> h.quantile(0.99), NS_KEYS),
                figure(run, Medium.SHM, RpcCase.BYTES_8192, "", "MB/s", "MB/s", RpcReport::mbps, Set.of(FLOOR, VERBATIM, VERBATIM_COPY)),
                figure(run, Medium.SHM, RpcCase.BYTES_1MIB, "", "MB/s", "MB/s", mbps(RpcCase.BYTES_1MIB), Set.of(FLOOR, VERBATIM, GRPC)),
                figure(run, Medium.SHM, RpcCase.BYTES_64MIB, "", "MB/s", "MB/s", mbps(RpcCase.BYTES_64MIB), Set.of(FLOOR, VERBATIM, GRPC)),
                figure(run, Medium.SHM, RpcCase.LIST_128, "", "p50", "ns", p50, Set.of(FLOOR, HAND, WIRE, VERBATIM, JOS, FORY, KRYO)),
                figure(run, Medium.TLS, RpcCase.NULL, "", "p50", "ns", p50, Set.of(VERBATIM, VERBATIM_PLAIN, GRPC, ENGINE)),
                figure(run, Medium.TLS, RpcCase.BYTES_8192, "", "MB/s", "MB/s", RpcReport::mbps, Set.of(VERBATIM, VERBATIM_PLAIN)));
    }

    // ---- targets --------------------------------------------------------------------------

    private static Optional<Double> p50(RpcBench.Run run, Medium m, String name, RpcCase c) {
        return result(run, m, name, c).map(r -> r.quantile(c, 0.5));
    }

    /**
     * The ratio of {@code a}'s p50 to {@code b}'s in case {@code c} (both shown in {@code m}): the
     * median over rounds of the ratio of their turns' p50s within a round ({@link Stats#pairedRatio}).
     */
    static Optional<Double> ratio(RpcBench.Run run, Medium m, RpcCase c, String a, String b) {
        Optional<RpcBench.Result> ra = result(run, m, a, c);
        Optional<RpcBench.Result> rb = result(run, m, b, c);
        ToDoubleFunction<LatencyHistogram> p50 = h -> h.quantile(0.5);
        return ra.isPresent() && rb.isPresent()
                ? Optional.of(Stats.pairedRatio(ra.get().turns(c, p50), rb.get().turns(c, p50)))
                : Optional.empty();
    }

    /**
     * The ratio of {@code a}'s calls per second to {@code b}'s in throughput case {@code c} (both shown in
     * {@code m}), paired by round.
     */
    static Optional<Double> rateRatio(RpcBench.Run run, Medium m, RpcCase c, String a, String b) {
        Optional<RpcBench.Result> ra = run.shownIn(m).stream().filter(r -> r.nameIn(m).equals(a) && r.rates(c).length > 0).findFirst();
        Optional<RpcBench.Result> rb = run.shownIn(m).stream().filter(r -> r.nameIn(m).equals(b) && r.rates(c).length > 0).findFirst();
        return ra.isPresent() && rb.isPresent()
                ? Optional.of(Stats.pairedRatio(ra.get().rates(c), rb.get().rates(c))).filter(Double::isFinite) // b made no calls: n/a
                : Optional.empty();
    }

    /**
     * The targets of issues 4, 17 and 18, each a ratio of two contenders' figures measured in the same rounds
     * (paired by round). Issue 17's, over tls: the TLS null call within 1.3x the plaintext tcp one and at
     * least 2x faster than gRPC-java with TLS; the 8 KiB argument's bandwidth with TLS at least 0.6x
     * plaintext's. Issue 18's: the list call at least 2x faster than the list sent as Fory's and Kryo's bytes
     * and within 4x the list floor; over tcp, Verbatim's calls per second with C asynchronous calls in flight on one
     * proxy at least 2x gRPC-java's (async stub, C calls in flight) at every C: like for like ({@code verbatim-threads},
     * C threads, is shown beside it, not judged).
     */
    static List<Target> targets(RpcBench.Run run) {
        List<Target> ts = new ArrayList<>(latencyTargets(run));
        ts.add(Target.atLeast("shm/list-128 p50 fory/verbatim", orMissing(ratio(run, Medium.SHM, RpcCase.LIST_128, FORY, VERBATIM)),
                2.0, ">= 2.00x"));
        ts.add(Target.atLeast("shm/list-128 p50 kryo/verbatim", orMissing(ratio(run, Medium.SHM, RpcCase.LIST_128, KRYO, VERBATIM)),
                2.0, ">= 2.00x"));
        ts.add(Target.atMost("shm/list-128 p50 verbatim/floor", orMissing(ratio(run, Medium.SHM, RpcCase.LIST_128, VERBATIM, FLOOR)),
                4.0, "<= 4.00x"));
        for (RpcCase c : List.of(RpcCase.BYTES_1MIB, RpcCase.BYTES_64MIB)) { // issue 18 §3: streamed through the window
            ts.add(Target.atLeast("shm/" + c.key() + " MB/s verbatim/floor", orMissing(ratio(run, Medium.SHM, c, FLOOR, VERBATIM)),
                    0.75, ">= 0.75x"));
        }
        for (RpcCase c : RpcCase.values()) {
            if (c.isThroughput()) {
                ts.add(Target.atLeast("tcp/" + c.key() + " calls/s verbatim/grpc (both C async calls in flight)",
                        orMissing(rateRatio(run, Medium.TCP, c, VERBATIM, GRPC)), 2.0, ">= 2.00x"));
            }
        }
        return ts;
    }

    private static List<Target> latencyTargets(RpcBench.Run run) {
        return List.of(
                Target.atMost("shm/null p50 verbatim/floor", orMissing(ratio(run, Medium.SHM, RpcCase.NULL, VERBATIM, FLOOR)),
                        2.0, "<= 2.00x"),
                Target.atLeast("shm/null p50 rmi/verbatim", orMissing(ratio(run, Medium.SHM, RpcCase.NULL, RMI, VERBATIM)),
                        100, ">= 100x"),
                Target.atMost("tcp/null p50 verbatim/floor (raw NIO)",
                        orMissing(ratio(run, Medium.TCP, RpcCase.NULL, VERBATIM, FLOOR)), 1.2, "<= 1.20x"),
                Target.atLeast("tcp/null p50 grpc/verbatim", orMissing(ratio(run, Medium.TCP, RpcCase.NULL, GRPC, VERBATIM)),
                        2.0, ">= 2.00x"),
                // bandwidth at the p50 call is bytes / p50, so the bandwidth ratio is the inverse time ratio
                Target.atLeast("shm/bytes-8192 MB/s verbatim/floor",
                        orMissing(ratio(run, Medium.SHM, RpcCase.BYTES_8192, FLOOR, VERBATIM)), 0.75, ">= 0.75x"),
                Target.atLeast("shm/list-128 p50 jos/verbatim", orMissing(ratio(run, Medium.SHM, RpcCase.LIST_128, JOS, VERBATIM)),
                        50, ">= 50x"),
                Target.atMost("tls/null p50 verbatim/verbatim-plain",
                        orMissing(ratio(run, Medium.TLS, RpcCase.NULL, VERBATIM, VERBATIM_PLAIN)), 1.3, "<= 1.30x"),
                Target.atLeast("tls/null p50 grpc/verbatim", orMissing(ratio(run, Medium.TLS, RpcCase.NULL, GRPC, VERBATIM)),
                        2.0, ">= 2.00x"),
                Target.atLeast("tls/bytes-8192 MB/s verbatim/verbatim-plain",
                        orMissing(ratio(run, Medium.TLS, RpcCase.BYTES_8192, VERBATIM_PLAIN, VERBATIM)), 0.6, ">= 0.60x"));
    }

    /**
     * What bounds the "100x faster than RMI" target in this run: no RPC over shm is faster than the floor,
     * so rmi/floor is the most any can be faster than RMI here, and the target needs Verbatim within
     * (rmi/floor)/100 of the floor.
     */
    static Optional<String> rmiBound(RpcBench.Run run) {
        return bound(run, RpcCase.NULL, RMI, 100, "", "RMI", "a null call");
    }

    /**
     * What bounds the "50x faster than Java serialization" list target in this run: the floor moves the
     * bytes of Verbatim's list call ({@link RpcCase#listCallBytes()}) and copies them out with no
     * marshalling, validation or walk, so jos/floor is the most a call carrying the list in Verbatim's
     * format can be faster than Java serialization here, and the target needs the call within
     * (jos/floor)/50 of the floor.
     */
    static Optional<String> listBound(RpcBench.Run run) {
        return bound(run, RpcCase.LIST_128, JOS, 50, String.format(Locale.ROOT, "the floor moves the %,d bytes of the list"
                + " call with no marshalling, validation or walk; ", RpcCase.listCallBytes()), "Java serialization", "the call");
    }

    /**
     * The note on a target "{@code times}x faster than {@code peer}" in shm case {@code c}: peer/floor is the most
     * any call can be faster than the peer in this run, so the target needs the call within (peer/floor)/times of
     * the floor, {@code peer}'s p50 / times.
     */
    private static Optional<String> bound(RpcBench.Run run, RpcCase c, String peer, int times, String why,
                                          String peerName, String call) {
        Optional<Double> p = p50(run, Medium.SHM, peer, c);
        Optional<Double> ratio = ratio(run, Medium.SHM, c, peer, FLOOR);
        if (p.isEmpty() || ratio.isEmpty()) {
            return Optional.empty();
        }
        double bound = ratio.get();
        return Optional.of(String.format(Locale.ROOT, "  note  %s/floor (shm %s) is %.1fx in this run: %s%dx faster than %s"
                + " needs %s within %.2fx the floor (%.0f ns)", peer, c.key(), bound, why, times, peerName, call,
                bound / times, p.get() / times));
    }

    /**
     * What bounds the "within 4x the list floor" target in this run: the hand-written list call ({@link FloorListRpc})
     * does the least per-node work any call carrying the list does (the client reads the heap list, the server
     * follows its links) over the floor's transport, and a Verbatim call costs at least the null call's own cost over
     * its floor on top; what 4x the floor leaves after both is all Verbatim may spend on what the hand-written code
     * leaves out (the whole message validated before its first read, types, sharing, views). Medians of the turns' p50s.
     */
    static Optional<String> handBound(RpcBench.Run run) {
        Optional<Double> floor = p50(run, Medium.SHM, FLOOR, RpcCase.LIST_128);
        Optional<Double> hand = p50(run, Medium.SHM, HAND, RpcCase.LIST_128);
        Optional<Double> verbatim = p50(run, Medium.SHM, VERBATIM, RpcCase.LIST_128);
        Optional<Double> nullFloor = p50(run, Medium.SHM, FLOOR, RpcCase.NULL);
        Optional<Double> nullCall = p50(run, Medium.SHM, VERBATIM, RpcCase.NULL);
        if (floor.isEmpty() || hand.isEmpty() || verbatim.isEmpty() || nullFloor.isEmpty() || nullCall.isEmpty()) {
            return Optional.empty();
        }
        double call = Math.max(0, nullCall.get() - nullFloor.get());
        double budget = 4 * floor.get() - hand.get() - call;
        double spent = verbatim.get() - hand.get() - call;
        int nodes = RpcCase.LIST;
        String parts = p50(run, Medium.SHM, WIRE, RpcCase.LIST_128).map(wire -> String.format(Locale.ROOT, ": the wire"
                + " format alone over the floor's transport (written, validated, walked through views; no call) %.0f ns"
                + " of it (%.2f a node), the RPC layer around the list the other %.0f", wire - hand.get(),
                (wire - hand.get()) / nodes, spent - (wire - hand.get()))).orElse("");
        return Optional.of(String.format(Locale.ROOT, "  note  hand/floor (shm list-128) is %.2fx in this run: the list"
                + " written and walked by hand over the floor's transport (no types, sharing, whole-message validation"
                + " or call) takes %.0f ns, and a Verbatim call's own cost over its floor is %.0f ns (shm null); 4x the"
                + " floor (%.0f ns) leaves %.0f ns (%.2f ns a node) for all Verbatim does beyond the hand-written code;"
                + " it spends %.0f ns (%.2f ns a node)%s", hand.get() / floor.get(), hand.get(), call, 4 * floor.get(),
                budget, budget / nodes, spent, spent / nodes, parts));
    }

    /**
     * What bounds the "TLS within 1.3x plaintext" target in this run: a TLS null call is a plaintext one plus
     * four record operations of the JDK's engine, which {@code engine} does alone, warm, in one thread; so
     * (verbatim-plain + engine) / verbatim-plain, paired by round, is the lowest ratio reachable with that engine.
     */
    static Optional<String> tlsBound(RpcBench.Run run) {
        Optional<RpcBench.Result> plain = result(run, Medium.TLS, VERBATIM_PLAIN, RpcCase.NULL);
        Optional<RpcBench.Result> engine = result(run, Medium.TLS, ENGINE, RpcCase.NULL);
        if (plain.isEmpty() || engine.isEmpty()) {
            return Optional.empty();
        }
        double bound = engineBound(plain.get().turns(RpcCase.NULL, h -> h.quantile(0.5)),
                engine.get().turns(RpcCase.NULL, h -> h.quantile(0.5)));
        return Optional.of(String.format(Locale.ROOT, "  note  the JDK's SSLEngine alone (tls/engine: the null call's"
                + " 4 record operations, warm, one thread) is %.0f ns, %.2fx verbatim-plain's %.0f ns: no TLS call on"
                + " that engine can be under %.2fx plaintext in this run", p50(run, Medium.TLS, ENGINE, RpcCase.NULL).get(),
                bound - 1, p50(run, Medium.TLS, VERBATIM_PLAIN, RpcCase.NULL).get(), bound));
    }

    /** The median over rounds of (plain + engine) / plain, the two turns of a round paired. */
    static double engineBound(double[] plain, double[] engine) {
        double[] ratios = new double[Math.min(plain.length, engine.length)];
        for (int i = 0; i < ratios.length; i++) {
            ratios[i] = (plain[i] + engine[i]) / plain[i];
        }
        return Stats.median(ratios);
    }

    // ---- human form -----------------------------------------------------------------------

    static void printTables(RpcBench.Run run, PrintStream out) {
        out.println("Verbatim RPC benchmark: J-RPC Table 2 and Figure 7, Jaguar Figure 8's list, with peers");
        out.printf(Locale.ROOT, "%s; %s run; every contender's server and client in two processes, all up for the"
                + " whole run, taking turns%n", Host.jvm(), run.mode());
        boolean quick = run.mode().equals("quick");
        out.printf(Locale.ROOT, "Per case: %d rounds, each giving every contender one turn (order rotating): warm-up of"
                        + " %d ms, then every call of %d ms timed; a case's first turn warms up %d ms and %,d calls at"
                        + " least (a contender's first case: %d ms and %,d calls; at most %d s). Every result checked.%n",
                run.rounds(), run.warmMillis(), run.measureMillis(), RpcBench.warmMillis(quick),
                RpcBench.warmCalls(quick, false), RpcBench.warmMillis(quick) + RpcBench.firstWarmExtraMillis(quick),
                RpcBench.warmCalls(quick, true), RpcBench.maxWarmMillis(quick, true) / 1000);
        if (quick) {
            out.printf(Locale.ROOT, "Quick: a contender's first case warms up %d s at most and its other cases %,d ms, which"
                    + " leaves gRPC's JIT partly cold (its ratios to Verbatim come out flattering to Verbatim); judge the"
                    + " targets on a full run.%n", RpcBench.maxWarmMillis(true, true) / 1000, RpcBench.maxWarmMillis(true, false));
        }
        out.println("Figures are medians of the turns' figures; ratios are contender / floor (the transport's ping-pong"
                + " of the same argument bytes, a one-word reply), the median over rounds of the ratio within a round;"
                + " rmi and grpc run on loopback TCP and are shown with both media.");
        out.println();
        FloorTable.print(out, "Table 1. shm: call round trip, p50 (ns)", "case", latency(run, Medium.SHM, 0.5, ""));
        FloorTable.print(out, "Table 2. shm: call round trip, p99 (ns)", "case", latency(run, Medium.SHM, 0.99, "/p99"));
        FloorTable.print(out, "Table 3. tcp loopback: call round trip, p50 (ns); floor = raw Java NIO", "case",
                latency(run, Medium.TCP, 0.5, ""));
        FloorTable.print(out, "Table 4. tcp loopback: call round trip, p99 (ns)", "case",
                latency(run, Medium.TCP, 0.99, "/p99"));
        FloorTable.print(out, "Table 5. 8 KiB byte[] argument: bandwidth (MB/s of argument bytes = 8192 B / p50 call)",
                "medium", bandwidth(run));
        FloorTable.print(out, "Table 5b. shm: bulk byte[] argument larger than (64 MiB) or half (1 MiB) a receive area:"
                + " bandwidth (MB/s of argument bytes / p50 call); floor = the transport streaming the same bytes in pieces,"
                + " its receiver copying them into one buffer", "case", bulk(run));
        FloorTable.print(out, "Table 6. tls loopback (mutual TLS 1.3): call round trip, p50 (ns); verbatim-plain = tcp"
                + " without TLS", "case", latency(run, Medium.TLS, 0.5, ""));
        FloorTable.print(out, "Table 7. tls loopback: call round trip, p99 (ns)", "case", latency(run, Medium.TLS, 0.99, "/p99"));
        FloorTable.print(out, "Table 8. throughput: null calls per second with C callers at once on one proxy (verbatim,"
                + " grpc: C async calls in flight; verbatim-threads, rmi: C threads; grpc and rmi on loopback tcp"
                + " in both media)", "medium, callers", throughput(run));
        Target.print(out, targets(run), 48, FloorTable::ratio, Target.Missing.CONTENDER);
        rmiBound(run).ifPresent(out::println);
        listBound(run).ifPresent(out::println);
        handBound(run).ifPresent(out::println);
        tlsBound(run).ifPresent(out::println);
        out.println();
        busyNote(run, out);
        out.println(run.jit().line("the contenders'"));
        out.println();
        ReportText.closing(out, run.failures(), notes(), run.seconds());
    }

    private static void busyNote(RpcBench.Run run, PrintStream out) {
        FloorTable.LowestShare lowest = FloorTable.LowestShare.NONE;
        for (RpcBench.Result r : run.results()) {
            if (r.ok() && r.spins()) {
                for (var e : r.cpu().entrySet()) {
                    lowest = lowest.lower(e.getValue(), r.id() + " " + e.getKey().key());
                }
            }
        }
        FloorTable.busyNote(out, run.loadBefore(), run.loadAfter(), "the lowest CPU share of a spinning client", lowest,
                "WARNING: the host was busy (figures marked '!' had a spinning client off its CPU for more than"
                        + " 10% of the time): tails are inflated; rerun on a quiet host before quoting them.");
    }

    static List<String> notes() {
        return List.of(
                "Call: System.nanoTime() around one call on one client thread, every call of a turn recorded in a"
                        + " log-linear histogram (0.8% resolution); p50/p99 by nearest rank per turn, a figure the"
                        + " median of its turns' (every turn counts alike); a ratio to the floor (and each target) the"
                        + " median over rounds of the two turns' ratio in a round (the turns of a round ran back to back,"
                        + " on the same host). Contenders take turns because this shared VM changes under a run for"
                        + " seconds at a time (the two vCPUs' distance moves an 8-byte shm round trip between ~130 and"
                        + " ~500 ns): measured one after the other, ratios were noise. Idle contenders wait without"
                        + " spinning: clients block for their next command, the shm floor's and aeron's pongs are"
                        + " paused after a counted echo, Verbatim's shm nodes park after a 1 ms spin; before a turn the previous contender's processes get up to"
                        + " 1 s (quick: 0.2 s) to fall quiet (RMI's and gRPC's JIT goes on compiling after their turn). Cases and the service's contract:"
                        + " null (void, no arguments), ints4 (four ints, returns their sum), remote-arg (one"
                        + " remote-interface argument, the same exported object each call, not called back),"
                        + " bytes-8192 (an 8 KiB byte[], returns its first long), list-128 (the 128-node linked list"
                        + " of Jaguar Figure 8, the server sums every node).",
                "floor: the transport suite's ping-pong (shm: FFM spin over a shared file in /dev/shm; tcp: raw NIO,"
                        + " TCP_NODELAY) sending the call's argument bytes (null 8, ints4 16, remote-arg 16,"
                        + " bytes-8192 8192; list-128, shm only: the " + String.format(Locale.ROOT, "%,d", RpcCase.listCallBytes())
                        + " bytes of Verbatim's whole call message), the server side taking them in whole (shm: copied out of the file;"
                        + " tcp: read), and getting one word back: what any RPC over that medium must pay.",
                "hand, wire (list-128, full runs only): the list over the shm floor's transport with no RPC layer; hand:"
                        + " written by hand (two words a node, value and next index) from the heap list and walked by its"
                        + " server through checked indices, the least per-node work any call carrying the list does; wire:"
                        + " Verbatim's wire format alone (WireWriter; WireReader validation, then a walk through views, as"
                        + " the RPC server walks). hand sends the floor's bytes, wire the list's wire message (those less the call's"
                        + " headers); the note under the targets splits what"
                        + " Verbatim spends over hand into the format's share (wire - hand) and the RPC layer's.",
                "verbatim: a dev.verbatim.rpc.Node exports the service (calls run inline on the connection's"
                        + " dispatcher), the client calls its generated proxy. Waiting as the floor of the medium waits:"
                        + " over shm both nodes spin 1 ms before they park (within a turn, calls microseconds apart,"
                        + " they never park and spin as the floor and aeron do; between turns they park), over tcp the defaults (spin 0.5 ms, then sleep in the kernel). The list goes as a"
                        + " record graph by copy and the server walks it as a view of the same structure; bytes-8192"
                        + " goes as a one-sided write ahead of the call, the client passing a byte[] and the server"
                        + " declaring a MemorySegment (the same parameter on the wire), read in place and copied whole"
                        + " into a buffer it reuses, as the floor's server does. verbatim-copy: bytes-8192 with the"
                        + " server declaring byte[]: each call allocates and fills a fresh 8 KiB array (by-copy"
                        + " semantics, what a server keeping the array pays). jos: the list Java-serialized to a byte[]"
                        + " and read back with ObjectInputStream, passed over the same Verbatim connection; fory and"
                        + " kryo: likewise with Apache Fory " + Host.version(org.apache.fory.Fory.class, "1.6")
                        + " and Kryo " + Host.version(com.esotericsoftware.kryo.Kryo.class, "5.6")
                        + " (classes registered, reference tracking on, as Verbatim keeps sharing; the wire suite's"
                        + " codecs), the server deserializing and walking the list.",
                "throughput-C (issue 18): the null call by C = 1, 16, 256 callers at once on one proxy (one"
                        + " connection, channel or stub), as many as the replies allow, for a turn's warm-up and then its"
                        + " measuring time; the figure is the calls completed within the measured window over its length"
                        + " (calls/s), the median of the turns'. verbatim: one thread keeping C calls of a CompletableFuture"
                        + " method in flight; verbatim-threads: C platform threads calling the synchronous proxy; grpc:"
                        + " the async stub (asyncUnaryCall), C calls in flight on one channel, its default Netty"
                        + " transport on loopback tcp (also in the shm rows: gRPC has no shared-memory transport);"
                        + " rmi: C threads on one stub (RMI opens a connection per concurrent call). The targets compare"
                        + " verbatim (async) with grpc (async) over tcp, like for like, paired by round.",
                "aeron: Aeron IPC echo (the transport suite's contender, embedded driver, busy-spin), request as"
                        + " above, one-word reply.",
                "rmi: java.rmi on loopback, a registry created in the server process, UnicastRemoteObject on"
                        + " 127.0.0.1, java.rmi.server.hostname=127.0.0.1; arguments by Java serialization, one TCP"
                        + " connection reused; remote-arg passes an exported object (the server gets its stub).",
                "grpc: gRPC-java " + Host.version(io.grpc.ManagedChannel.class, "1.79")
                        + " (grpc-netty-shaded, HTTP/2 plaintext) on loopback, unary calls"
                        + " with a byte[] marshaller (no protobuf), direct executors on both sides, blockingUnaryCall;"
                        + " null = empty request and reply, ints4 = 16 bytes, bytes-8192 = the array.",
                "tls: the same calls over loopback TCP inside mutual TLS 1.3 (issue 17), both sides with the JDK's"
                        + " SSLEngine and the keys of one throwaway CA made for the run (keytool, EC P-256): verbatim ="
                        + " a Node with TlsConfig (the tcp defaults otherwise), verbatim-plain = tcp's verbatim, taking"
                        + " turns in the same rounds, grpc = the grpc contender with NettyServerBuilder/NettyChannelBuilder"
                        + ".sslContext(GrpcSslContexts, SslProvider.JDK). The cipher suite is the handshake's choice. engine = the"
                        + " JDK's SSLEngine alone doing the null call's four record operations (encrypt the 48-byte call"
                        + " frame, decrypt it, encrypt the 32-byte reply frame, decrypt it) in memory, warm, in one thread:"
                        + " what TLS adds to a plaintext call at the least.",
                "bandwidth: argument bytes over the p50 call (J-RPC Figure 7: an RPC's bandwidth at one array size).",
                "Children run with -XX:+UseSerialGC; nothing is pinned to a CPU. Spinning clients (floors, aeron)"
                        + " take a core each side; rmi and grpc block in the kernel.");
    }

    // ---- JSON -----------------------------------------------------------------------------

    static void printJson(RpcBench.Run run, PrintStream out) {
        FloorTable.printJson(out, "rpc", run.mode(), jsonCases(run), targets(run));
        for (RpcBench.Result r : run.results()) {
            if (!r.ok()) {
                out.println(Json.line("rpc").string("failed", r.id()).string("error", r.error()));
            }
        }
    }
}
