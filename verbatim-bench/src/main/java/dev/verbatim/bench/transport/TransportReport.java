package dev.verbatim.bench.transport;

import dev.verbatim.bench.harness.FloorCase;
import dev.verbatim.bench.harness.FloorTable;
import dev.verbatim.bench.harness.Host;
import dev.verbatim.bench.harness.Json;
import dev.verbatim.bench.harness.LatencyHistogram;
import dev.verbatim.bench.harness.Medium;
import dev.verbatim.bench.harness.ReportText;
import dev.verbatim.bench.harness.Stats;
import dev.verbatim.bench.harness.Target;
import dev.verbatim.bench.harness.Turns;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

import static dev.verbatim.bench.harness.FloorCase.FLOOR;
import static dev.verbatim.bench.harness.Target.orMissing;

/**
 * Prints a {@link TransportBench.Run}: a table per figure (rows are cases, columns contenders, then
 * each contender's ratio to the floor), or one JSON object per line; then the targets, evaluated on
 * this run, and notes.
 *
 * <p>JSON lines: {@code {"suite":"transport","case":"shm/rtt-8","unit":"ns","results":{name: figure},
 * "ratios":{name: figure/floor},"cpu":{name: share},"mode":"quick"}} ({@code cpu}: the measuring side's
 * CPU share while recording, below 0.9 marked '!' in the tables: the host was busy) for the cases {@code M/rtt-8} (p50),
 * {@code M/rtt-8/p99}, {@code M/rtt-8/p999}, {@code M/rtt-8/mean}, {@code M/rtt-N} (p50 of N-byte
 * messages), {@code M/per-byte} (ns/byte) and {@code M/rtt-fixed} (ns, the fit's intercept) for
 * {@code M} = {@code shm} and {@code tcp}, and {@code shm/bw-N} (MB/s, median of batches). Then one
 * line per target: {@code {"suite":"transport","target":...,"measured":x|null,"need":...,"pass":true|false|null}}
 * ({@code null}: a contender it needs is missing), and one line per failed contender:
 * {@code {"suite":"transport","failed":id,"error":...}}.
 */
public final class TransportReport {
    private TransportReport() {}

    static Map<String, Double> cpu(List<TransportBench.RttResult> rs, int size) {
        Map<String, Double> m = new LinkedHashMap<>();
        rs.forEach(r -> {
            Double c = r.cpu().get(size);
            if (c != null && !c.isNaN()) {
                m.put(r.name(), c);
            }
        });
        return m;
    }

    static Map<String, Double> per(List<TransportBench.RttResult> rs, Function<TransportBench.RttResult, Double> f) {
        Map<String, Double> m = new LinkedHashMap<>();
        rs.forEach(r -> m.put(r.name(), f.apply(r)));
        return m;
    }

    /** Each contender's ratio to the floor, round by round, of a per-turn figure {@code f} of {@code size}-byte round trips. */
    static Map<String, Double> paired(List<TransportBench.RttResult> rs, int size,
                                      java.util.function.ToDoubleFunction<LatencyHistogram> f) {
        Map<String, Double> m = new LinkedHashMap<>();
        rs.stream().filter(r -> r.name().equals(FLOOR)).findFirst().ifPresent(floor -> rs.forEach(r -> {
            if (!r.name().equals(FLOOR)) {
                m.put(r.name(), Stats.pairedRatio(r.turns(size, f), floor.turns(size, f)));
            }
        }));
        return m;
    }

    /** A case of a quantile of {@code size}-byte round trips, its ratios paired by round. */
    private static FloorCase quantileCase(String name, String label, List<TransportBench.RttResult> rs, int size, double q) {
        return new FloorCase(name, label, "ns", per(rs, r -> r.quantile(size, q)), cpu(rs, size),
                paired(rs, size, h -> h.quantile(q)));
    }

    /** Table 1-2 rows of a medium: 8-byte percentiles, mean, per-byte cost, fixed cost. */
    static List<FloorCase> rtt8(TransportBench.Run run, Medium m) {
        List<TransportBench.RttResult> rs = run.rtt(m).stream().filter(r -> r.bySize().containsKey(TransportBench.RTT_8)).toList();
        String p = m.key() + "/rtt-8";
        List<FloorCase> c = new ArrayList<>();
        Map<String, Double> cpu = cpu(rs, 8);
        c.add(quantileCase(p, "p50", rs, 8, 0.5));
        c.add(quantileCase(p + "/p99", "p99", rs, 8, 0.99));
        c.add(quantileCase(p + "/p999", "p99.9", rs, 8, 0.999));
        c.add(new FloorCase(p + "/mean", "mean", "ns", per(rs, r -> r.mean(8)), cpu, paired(rs, 8, LatencyHistogram::mean)));
        List<TransportBench.RttResult> fitted = run.rtt(m).stream().filter(r -> r.bySize().size() >= 2).toList();
        c.add(new FloorCase(m.key() + "/per-byte", "per-byte (ns/B)", "ns/byte", per(fitted, r -> r.fit().slope()), Map.of()));
        c.add(new FloorCase(m.key() + "/rtt-fixed", "fixed (ns)", "ns", per(fitted, r -> r.fit().intercept()), Map.of()));
        return c;
    }

    /** p50 round trip per message size. */
    static List<FloorCase> rttBySize(TransportBench.Run run, Medium m) {
        List<FloorCase> c = new ArrayList<>();
        for (int size : TransportBench.RTT_SIZES) {
            List<TransportBench.RttResult> rs = run.rtt(m).stream().filter(r -> r.bySize().containsKey(size)).toList();
            if (!rs.isEmpty()) {
                c.add(quantileCase(m.key() + "/rtt-" + size, Integer.toString(size), rs, size, 0.5));
            }
        }
        return c;
    }

    static List<FloorCase> bandwidth(TransportBench.Run run, Medium m) {
        List<FloorCase> c = new ArrayList<>();
        for (int size : TransportBench.BW_SIZES) {
            Map<String, Double> f = new LinkedHashMap<>();
            Map<String, Double> cpu = new LinkedHashMap<>();
            Map<String, Double> paired = new LinkedHashMap<>();
            List<TransportBench.BwResult> rs = run.bw(m).stream().filter(r -> r.bySize().containsKey(size)).toList();
            rs.stream().filter(r -> r.name().equals(FLOOR)).findFirst().ifPresent(floor -> rs.forEach(r -> {
                if (!r.name().equals(FLOOR)) {
                    paired.put(r.name(), Stats.pairedRatio(r.turns(size), floor.turns(size)));
                }
            }));
            rs.forEach(r -> {
                f.put(r.name(), r.median(size));
                Double share = r.cpu().get(size);
                if (share != null && !share.isNaN()) {
                    cpu.put(r.name(), share);
                }
            });
            if (!f.isEmpty()) {
                c.add(new FloorCase(m.key() + "/bw-" + size, Integer.toString(size), "MB/s", f, cpu, paired));
            }
        }
        return c;
    }

    static List<FloorCase> allCases(TransportBench.Run run) {
        List<FloorCase> all = new ArrayList<>();
        for (Medium m : Medium.values()) {
            all.addAll(rtt8(run, m));
            all.addAll(rttBySize(run, m).stream().filter(c -> !c.label().equals("8")).toList());
            all.addAll(bandwidth(run, m));
        }
        return all;
    }

    // ---- targets --------------------------------------------------------------------------

    /** The ratio of two contenders' p50 round trips of {@code size} bytes, paired by round. */
    private static Optional<Double> rttRatio(TransportBench.Run run, Medium m, String a, String b, int size) {
        Optional<TransportBench.RttResult> ra = rtt(run, m, a, size);
        Optional<TransportBench.RttResult> rb = rtt(run, m, b, size);
        return ra.isPresent() && rb.isPresent()
                ? Optional.of(Stats.pairedRatio(ra.get().turns(size, h -> h.quantile(0.5)),
                        rb.get().turns(size, h -> h.quantile(0.5))))
                : Optional.empty();
    }

    private static Optional<TransportBench.RttResult> rtt(TransportBench.Run run, Medium m, String name, int size) {
        return run.rtt(m).stream().filter(r -> r.name().equals(name) && r.bySize().containsKey(size)).findFirst();
    }

    /** The ratio of two contenders' bandwidth at {@code size}, paired by round. */
    private static Optional<Double> bwRatio(TransportBench.Run run, String a, String b, int size) {
        Optional<TransportBench.BwResult> ra = bwResult(run, a, size);
        Optional<TransportBench.BwResult> rb = bwResult(run, b, size);
        return ra.isPresent() && rb.isPresent()
                ? Optional.of(Stats.pairedRatio(ra.get().turns(size), rb.get().turns(size)))
                : Optional.empty();
    }

    private static Optional<TransportBench.BwResult> bwResult(TransportBench.Run run, String name, int size) {
        return run.bw(Medium.SHM).stream().filter(r -> r.name().equals(name) && r.bySize().containsKey(size)).findFirst();
    }

    /** The targets, each a ratio of two contenders measured in the same rounds (paired by round). */
    static List<Target> targets(TransportBench.Run run) {
        return List.of(
                Target.atMost("shm/rtt-8 p50 buffer/floor", orMissing(rttRatio(run, Medium.SHM, "buffer", FLOOR, 8)), 1.30,
                        "<= 1.30x"),
                Target.below("shm/rtt-8 p50 buffer/aeron", orMissing(rttRatio(run, Medium.SHM, "buffer", "aeron", 8)), 1.0,
                        "< 1.00x"),
                Target.atLeast("shm/bw-8192 buffer/floor", orMissing(bwRatio(run, "buffer", FLOOR, 8192)), 0.80, ">= 0.80x"),
                Target.atMost("tcp/rtt-8 p50 verbatim/floor (raw NIO)", orMissing(rttRatio(run, Medium.TCP, "verbatim", FLOOR, 8)),
                        1.15, "<= 1.15x"));
    }

    // ---- human form -----------------------------------------------------------------------

    static void printTables(TransportBench.Run run, PrintStream out) {
        out.println("Verbatim transport benchmark: Javia Tables 1-2 and Figures 3/6, with peers");
        out.printf(Locale.ROOT, "%s; %s run; every contender's two sides in two processes, contenders taking turns%n",
                Host.jvm(), run.mode());
        Plan.Rtt first = run.rttPlan().getFirst();
        Plan.Rtt other = run.rttPlan().size() > 1 ? run.rttPlan().get(1) : first;
        Plan.Bw bw = run.bwPlan().getFirst();
        out.printf(Locale.ROOT, "Round trips: %d-byte messages %d turns of %d ms recorded, other sizes %d of %d ms;"
                        + " every echo checked. Streams: %d turns of %d batch(es) of %d MiB per size.%n",
                first.size(), first.rounds(), first.measureMillis(), other.rounds(), other.measureMillis(),
                bw.rounds(), bw.batches(), bw.perBatch() * bw.size() >> 20);
        out.println("Figures are medians over a contender's turns; ratios are contender / floor, the median over rounds of the"
                + " ratio within a round (times: above 1 is slower than the floor; bandwidth: below 1).");
        out.println();
        FloorTable.print(out, "Table 1. shm round trip, 8-byte messages (ns), and per-byte cost (least squares, 8 B - 64 KiB)",
                "figure", rtt8(run, Medium.SHM));
        FloorTable.print(out, "Table 2. shm round trip by message size (p50, ns)", "bytes", rttBySize(run, Medium.SHM));
        FloorTable.print(out, "Table 3. tcp loopback round trip, 8-byte messages (ns); floor = raw Java NIO", "figure",
                rtt8(run, Medium.TCP));
        FloorTable.print(out, "Table 4. tcp loopback round trip by message size (p50, ns)", "bytes", rttBySize(run, Medium.TCP));
        FloorTable.print(out, "Table 5. shm one-way streaming bandwidth (MB/s = 10^6 B/s, median batch)", "bytes",
                bandwidth(run, Medium.SHM));
        Target.print(out, targets(run), 44, FloorTable::ratio, Target.Missing.CONTENDER);
        out.println();
        busyNote(run, out);
        ReportText.closing(out, run.failures(), notes(), run.seconds());
    }

    private static void busyNote(TransportBench.Run run, PrintStream out) {
        FloorTable.LowestShare lowest = FloorTable.LowestShare.NONE;
        for (FloorCase c : allCases(run)) {
            for (var e : c.cpu().entrySet()) {
                lowest = lowest.lower(e.getValue(), c.name() + " " + e.getKey());
            }
        }
        FloorTable.busyNote(out, run.loadBefore(), run.loadAfter(), "the measuring side's lowest CPU share", lowest,
                "WARNING: the host was busy (figures marked '!' had the measuring side off its CPU for more than"
                        + " 10% of the time): spinning sides were descheduled, tails and means are inflated; rerun on a"
                        + " quiet host before quoting them.");
    }

    static List<String> notes() {
        return List.of(
                "Round trip: System.nanoTime() around one call that sends a message and waits for its echo, every"
                        + " one recorded in a log-linear histogram (0.4% resolution); p50/p99/p99.9 by nearest rank."
                        + " The ping copies its message in and the echo out (every byte read); stamps in the first and"
                        + " last 8 bytes are checked outside the timed region.",
                "shm floor: two processes map one owner-only file under /dev/shm (FFM, no Unsafe, no JNI) and spin"
                        + " with getAcquire/setRelease on their own cache line, 128 bytes apart; messages up to 48 bytes"
                        + " ride in the line, larger ones are copied into a payload area, from there into the reverse"
                        + " area by the pong, and out by the ping (three MemorySegment.copy per round trip).",
                "aeron: Aeron IPC (aeron:ipc, aeron-all " + Host.version(io.aeron.Aeron.class, "1.49.3")
                        + "), embedded media driver in the pong"
                        + " process (threading: " + AeronPingPong.mode() + ", IPC term 16 MiB), ping and pong busy-spin"
                        + " (BusySpinIdleStrategy) on ExclusivePublication.offer and Subscription.poll through a"
                        + " FragmentAssembler; default IPC MTU, so messages above ~1.4 KB are fragmented and reassembled.",
                "tcp floor: raw Java NIO on loopback, blocking SocketChannels, TCP_NODELAY, a 4-byte length before"
                        + " each message, one write per message.",
                "per-byte: the slope of a least-squares line through the p50 round trips of 8 B to 64 KiB (Javia"
                        + " Tables 1-2); fixed: its intercept.",
                "Streaming: one-way, the producer copies each message into a shared single-producer/single-consumer"
                        + " ring (4 MiB, 8-byte record headers), the consumer copies it out and checks its stamps; each"
                        + " batch is timed at the consumer.",
                "Turns: every contender's processes stay up for the whole figure; for each message size the"
                        + " contenders take turns (round after round, the order rotating), only the pair whose turn it is"
                        + " running; a figure is the median of its turns' and a ratio the median of the ratios within a round. On a shared virtual machine the host changes under a"
                        + " run (the two CPUs' distance alone moves an 8-byte round trip 3-4x, for seconds at a time):"
                        + " turns give the floor and every contender the same mixture. -Dverbatim.bench.trace=true prints"
                        + " each turn.",
                "Children run with -XX:+UseSerialGC (no concurrent GC threads on a 2-core host); nothing is pinned to"
                        + " a CPU. Each side spins on one core, so other load on the host shows in the tails.");
    }

    // ---- JSON -----------------------------------------------------------------------------

    static void printJson(TransportBench.Run run, PrintStream out) {
        FloorTable.printJson(out, "transport", run.mode(), allCases(run), targets(run));
        for (var r : run.rtt()) {
            if (!r.ok()) {
                out.println(failed(r.medium(), r.name(), "rtt", r.error()));
            }
        }
        for (var r : run.bw()) {
            if (!r.ok()) {
                out.println(failed(r.medium(), r.name(), "bw", r.error()));
            }
        }
    }

    private static String failed(Medium m, String name, String figure, String error) {
        return Json.line("transport").string("failed", m.key() + "/" + name).string("figure", figure)
                .string("error", error).toString();
    }
}
