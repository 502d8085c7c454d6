package dev.verbatim.cli;

import dev.verbatim.fuzz.Campaign;
import dev.verbatim.fuzz.CampaignResult;
import dev.verbatim.wire.WireLimits;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code verbatim fuzz [--seconds N] [--iterations N] [--seed S] [--threads T] [--heap] [--replay I] [--out DIR]}:
 * the validator fuzz campaign of the {@code dev.verbatim.fuzz} module ({@link Campaign}). This class only parses
 * the arguments and prints; what the campaign checks is said in that module.
 */
public final class FuzzCommand {
    private FuzzCommand() {}

    /** {@code verbatim fuzz ...}, printing to {@code out}; returns 0 when nothing failed, 1 on failures, 2 on bad usage. */
    public static int run(String[] args, PrintStream out) {
        return run(args, out, out);
    }

    /** As {@link #run(String[], PrintStream)}, with usage errors printed to {@code err}. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        Map<String, String> opts = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--heap")) {
                opts.put(a, "true");
                continue;
            }
            if (!List.of("--seconds", "--iterations", "--seed", "--threads", "--replay", "--out").contains(a) || i + 1 >= args.length) {
                return usage(err, "unexpected argument '" + a + "'");
            }
            opts.put(a, args[++i]);
        }
        long seconds, iterations, seed, replay;
        int threads;
        try {
            seconds = Long.parseLong(opts.getOrDefault("--seconds", opts.containsKey("--iterations") ? "0" : "10"));
            iterations = Long.parseLong(opts.getOrDefault("--iterations", Long.toString(Long.MAX_VALUE)));
            seed = opts.containsKey("--seed") ? Long.decode(opts.get("--seed")) : System.nanoTime() ^ System.currentTimeMillis();
            threads = Integer.parseInt(opts.getOrDefault("--threads", Integer.toString(Campaign.defaultThreads())));
            replay = Long.parseLong(opts.getOrDefault("--replay", "-1"));
        } catch (NumberFormatException e) {
            return usage(err, "not a number: " + e.getMessage());
        }
        if (seconds < 0 || iterations < 0 || threads < 1) return usage(err, "counts must be positive");
        Path outDir = Path.of(opts.getOrDefault("--out", Path.of("target", "fuzz").toString()));
        boolean heap = opts.containsKey("--heap");
        if (replay >= 0) return replay(seed, replay, heap, out);
        long maxMillis = seconds == 0 ? Long.MAX_VALUE : seconds * 1000;
        WireLimits limits = Campaign.limits();
        out.printf("verbatim fuzz: seed %d, %d thread(s), %s memory, %s; limits %d bytes, %d objects, %d types%n", seed, threads,
                heap ? "heap" : "native",
                seconds == 0 ? iterations + " iterations" : "up to " + seconds + " s" + (iterations == Long.MAX_VALUE ? "" : " or " + iterations + " iterations"),
                limits.maxMessageBytes(), limits.maxObjects(), limits.maxTypes());
        CampaignResult r = Campaign.run(seed, iterations, maxMillis, new Campaign.Options(threads, outDir, Campaign.HANG_MILLIS, heap, null));
        out.print(r.summary());
        return r.ok() ? 0 : 1;
    }

    /** Runs one iteration on this thread and prints what happened, with the full stack trace of a failure. */
    static int replay(long seed, long iteration, boolean heap, PrintStream out) {
        Campaign.Replay r = Campaign.replay(seed, iteration, heap);
        out.printf("seed %d, iteration %d: %s, %d bytes%n", seed, iteration, r.origin(), r.bytes().length);
        HexFormat hex = HexFormat.of();
        for (int i = 0; i < r.bytes().length && i < 4096; i += 32) out.println("  " + hex.formatHex(r.bytes(), i, Math.min(r.bytes().length, i + 32)));
        if (!r.failed()) {
            out.println(r.verdict());
            return 0;
        }
        out.println("FAILED: " + r.verdict());
        if (r.detail() != null) out.print(r.detail().endsWith("\n") ? r.detail() : r.detail() + "\n");
        return 1;
    }

    private static int usage(PrintStream err, String problem) {
        err.println("verbatim fuzz: " + problem);
        err.println("usage: ./verbatim fuzz [--seconds N] [--iterations N] [--seed S] [--threads T] [--heap] [--out DIR]");
        err.println("       ./verbatim fuzz --seed S --replay I [--heap]   re-run iteration I of seed S and print it");
        err.println("  --seconds N     stop after N seconds (default 10; 0 = no time limit)");
        err.println("  --iterations N  stop after N messages");
        err.println("  --seed S        reproducible campaign (default: a random seed, printed)");
        err.println("  --threads T     worker threads (default: min(4, cores))");
        err.println("  --heap          read messages from heap segments (default: native memory, as a transport hands them over)");
        err.println("  --out DIR       where failing messages are written as hex (default target/fuzz)");
        return 2;
    }
}
