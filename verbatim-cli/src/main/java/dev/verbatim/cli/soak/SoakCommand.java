package dev.verbatim.cli.soak;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * {@code ./verbatim soak [--seconds N] [--clients K] [--threads T] [--seed S] [--json]}: a server and K client
 * processes of T threads each making mixed calls over shm and tcp while faults are injected ({@link SoakRun},
 * {@link SoakFaults}); prints calls answered, failed by reason, <b>lost</b> and <b>wrong</b> (both must be 0), the
 * server's heap, off-heap memory, threads and descriptors over time with a verdict on their growth after warm-up,
 * and what is left in the shm directory (must be nothing). Exit 0 when every check holds, 1 otherwise, 2 on a
 * usage error.
 */
public final class SoakCommand {
    private SoakCommand() {}

    /** Heap growth allowed from the first half of the run after warm-up to the second: 25% plus this. */
    static final long SLACK_HEAP = 32L << 20;

    public static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        int seconds = 60, clients = 3, threads = 6;
        long seed = 1;
        boolean json = false;
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--seconds" -> seconds = Integer.parseInt(args[++i]);
                    case "--clients" -> clients = Integer.parseInt(args[++i]);
                    case "--threads" -> threads = Integer.parseInt(args[++i]);
                    case "--seed" -> seed = Long.parseLong(args[++i]);
                    case "--json" -> json = true;
                    default -> throw new IllegalArgumentException("unknown option " + args[i]);
                }
            }
            if (seconds < 8 || clients < 1 || threads < 1) throw new IllegalArgumentException("need --seconds >= 8, --clients >= 1, --threads >= 1");
        } catch (RuntimeException e) {
            err.println("verbatim soak: " + e.getMessage());
            err.println("usage: ./verbatim soak [--seconds N] [--clients K] [--threads T] [--seed S] [--json]");
            return 2;
        }
        err.printf(Locale.ROOT, "verbatim soak: %d s, %d client processes of %d threads, faults every 0.5-1.5 s ...%n",
                seconds, clients, threads);
        SoakRun.Result r = new SoakRun(seconds, clients, threads, seed).run();
        List<String> growth = growth(r);
        boolean ok = r.lost() == 0 && r.wrong() == 0 && r.leftovers().isEmpty() && growth.isEmpty() && r.answered() > 0;
        if (json) {
            out.println(json(r, growth, ok));
        } else {
            print(r, growth, ok, out);
        }
        return ok ? 0 : 1;
    }

    /**
     * What grew, or nothing. Two checks: while the clients run, the heap after a GC does not grow from the first half
     * after warm-up to the second (off-heap memory, threads and descriptors go up and down with the connections that
     * faults close and clients reopen, so they are judged by the second check); once every client is gone, the
     * server is back where it started before any client came: its off-heap memory, threads and descriptors, and no
     * connection left.
     */
    static List<String> growth(SoakRun.Result r) {
        List<SoakRun.Sample> all = r.samples();
        List<String> grew = new ArrayList<>();
        if (all.size() < 3) return List.of("too few samples to judge: " + all.size());
        SoakRun.Sample before = all.getFirst(), after = all.getLast();
        List<SoakRun.Sample> s = all.subList(1, all.size() - 1);
        int warm = Math.max(0, r.warmIndex() - 1);
        if (s.size() >= warm + 4) {
            int mid = (warm + s.size()) / 2;
            check(grew, "heap", s.subList(warm, mid), s.subList(mid, s.size()), SoakRun.Sample::heapBytes, SLACK_HEAP);
        }
        if (after.offHeapBytes() > before.offHeapBytes() + (1 << 20)) {
            grew.add("off-heap " + before.offHeapBytes() + " before the clients, " + after.offHeapBytes() + " after them");
        }
        if (after.threads() > before.threads() + 2) {
            grew.add("threads " + before.threads() + " before the clients, " + after.threads() + " after them");
        }
        if (after.descriptors() > before.descriptors() + 4) {
            grew.add("descriptors " + before.descriptors() + " before the clients, " + after.descriptors() + " after them");
        }
        if (after.connections() != 0) grew.add(after.connections() + " connections left after every client ended");
        return grew;
    }

    private static void check(List<String> grew, String what, List<SoakRun.Sample> a, List<SoakRun.Sample> b,
                              ToLongFunction<SoakRun.Sample> f, long slack) {
        long ma = a.stream().mapToLong(f).max().orElse(0), mb = b.stream().mapToLong(f).max().orElse(0);
        if (mb > ma + ma / 4 + slack) grew.add(what + " grew from " + ma + " to " + mb);
    }

    private static void print(SoakRun.Result r, List<String> growth, boolean ok, PrintStream out) {
        out.printf(Locale.ROOT, "verbatim soak: %.1f s, %d client processes started%n", r.seconds(), r.clientStarts());
        out.printf(Locale.ROOT, "  calls answered   %,d (and %,d timed out as asked)%n", r.answered(), r.askedTimeouts());
        r.failed().forEach((k, v) -> out.printf(Locale.ROOT, "  failed %-9s %,d%n", k, v));
        out.printf(Locale.ROOT, "  lost             %d   (must be 0)%n", r.lost());
        out.printf(Locale.ROOT, "  wrong            %d   (must be 0)%s%n", r.wrong(), r.wrongSamples().isEmpty() ? "" : ": " + r.wrongSamples());
        out.printf(Locale.ROOT, "  faults           %s; %d malformed rpc messages%n", r.faults(), r.malformedMessages());
        out.println("  server           s      heap MiB  off-heap MiB  threads  descriptors  connections");
        for (SoakRun.Sample s : r.samples()) {
            out.printf(Locale.ROOT, "                   %5.1f  %8.1f  %12.1f  %7d  %11d  %11d%n", s.seconds(), s.heapBytes() / 1048576.0,
                    s.offHeapBytes() / 1048576.0, s.threads(), s.descriptors(), s.connections());
        }
        out.println("  growth: " + (growth.isEmpty() ? "none (heap flat after warm-up; off-heap, threads, descriptors back to"
                + " the first sample's once the clients ended; no connection left)" : String.join("; ", growth)));
        out.println("  left in the shm directory: " + (r.leftovers().isEmpty() ? "nothing" : r.leftovers()));
        out.println(ok ? "soak passed" : "SOAK FAILED");
    }

    private static String json(SoakRun.Result r, List<String> growth, boolean ok) {
        StringBuilder b = new StringBuilder("{\"suite\":\"soak\"");
        b.append(String.format(Locale.ROOT, ",\"seconds\":%.1f,\"answered\":%d,\"askedTimeouts\":%d,\"lost\":%d,\"wrong\":%d",
                r.seconds(), r.answered(), r.askedTimeouts(), r.lost(), r.wrong()));
        b.append(",\"failed\":").append(map(r.failed())).append(",\"faults\":").append(map(r.faults()));
        b.append(",\"malformedMessages\":").append(r.malformedMessages()).append(",\"clientStarts\":").append(r.clientStarts());
        b.append(",\"samples\":[");
        for (int i = 0; i < r.samples().size(); i++) {
            SoakRun.Sample s = r.samples().get(i);
            b.append(i == 0 ? "" : ",").append(String.format(Locale.ROOT,
                    "{\"s\":%.1f,\"heap\":%d,\"offHeap\":%d,\"threads\":%d,\"descriptors\":%d,\"connections\":%d}",
                    s.seconds(), s.heapBytes(), s.offHeapBytes(), s.threads(), s.descriptors(), s.connections()));
        }
        b.append("],\"growth\":").append(strings(growth)).append(",\"leftovers\":").append(strings(r.leftovers()));
        b.append(",\"wrongSamples\":").append(strings(r.wrongSamples())); // what was wrong (the first few): a wrong answer is a bug to chase
        return b.append(",\"pass\":").append(ok).append('}').toString();
    }

    private static String map(Map<?, ? extends Number> m) {
        StringBuilder b = new StringBuilder("{");
        m.forEach((k, v) -> b.append(b.length() > 1 ? "," : "").append('"').append(k).append("\":").append(v));
        return b.append('}').toString();
    }

    private static String strings(List<String> l) {
        StringBuilder b = new StringBuilder("[");
        for (String s : l) b.append(b.length() > 1 ? "," : "").append('"').append(s.replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
        return b.append(']').toString();
    }
}
