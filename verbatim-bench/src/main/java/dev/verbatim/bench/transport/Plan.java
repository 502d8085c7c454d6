package dev.verbatim.bench.transport;

import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

/** What the measuring side of a contender runs, size by size; travels to the child as one argument. */
final class Plan {
    private Plan() {}

    /** Round trips of {@code size} bytes: warm up for {@code warmMillis}, then record for {@code measureMillis}. */
    record Rtt(int size, long warmMillis, long measureMillis) {}

    /** A stream of {@code size}-byte messages: {@code warm} unmeasured, then {@code batches} timed batches of {@code perBatch}. */
    record Bw(int size, long warm, long perBatch, int batches) {
        long total() {
            return warm + perBatch * batches;
        }
    }

    static String encodeRtt(List<Rtt> plan) {
        StringJoiner j = new StringJoiner(",");
        plan.forEach(r -> j.add(r.size() + ":" + r.warmMillis() + ":" + r.measureMillis()));
        return j.toString();
    }

    static List<Rtt> decodeRtt(String s) {
        List<Rtt> out = new ArrayList<>();
        for (String e : s.split(",")) {
            String[] f = e.split(":");
            out.add(new Rtt(Integer.parseInt(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2])));
        }
        return out;
    }

    static String encodeBw(List<Bw> plan) {
        StringJoiner j = new StringJoiner(",");
        plan.forEach(b -> j.add(b.size() + ":" + b.warm() + ":" + b.perBatch() + ":" + b.batches()));
        return j.toString();
    }

    static List<Bw> decodeBw(String s) {
        List<Bw> out = new ArrayList<>();
        for (String e : s.split(",")) {
            String[] f = e.split(":");
            out.add(new Bw(Integer.parseInt(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]), Integer.parseInt(f[3])));
        }
        return out;
    }

    static int maxRttSize(List<Rtt> plan) {
        return plan.stream().mapToInt(Rtt::size).max().orElse(8);
    }

    static int maxBwSize(List<Bw> plan) {
        return plan.stream().mapToInt(Bw::size).max().orElse(8);
    }

    static long rttMillis(List<Rtt> plan) {
        return plan.stream().mapToLong(r -> r.warmMillis() + r.measureMillis()).sum();
    }
}
