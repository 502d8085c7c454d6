package dev.verbatim.bench.transport;

import java.util.List;

/**
 * What the parent asks of the contenders, size by size. Each size is measured in {@code rounds}
 * rounds; in a round every contender takes one turn (in an order that rotates from round to round),
 * so all of them sample the same stretch of the host's behaviour.
 */
final class Plan {
    private Plan() {}

    /**
     * Round trips of {@code size} bytes: per turn, warm up for {@code warmMillis} ({@code firstWarmMillis}
     * in the first round), then record for {@code measureMillis}.
     */
    record Rtt(int size, int rounds, long firstWarmMillis, long warmMillis, long measureMillis) {
        long millis() {
            return firstWarmMillis + (rounds - 1) * warmMillis + rounds * measureMillis;
        }
    }

    /**
     * A stream of {@code size}-byte messages: per turn, {@code warm} messages unmeasured
     * ({@code firstWarm} in the first round), then {@code batches} timed batches of {@code perBatch}.
     */
    record Bw(int size, int rounds, long firstWarm, long warm, long perBatch, int batches) {
        /** Messages sent in the turn of round {@code round}. */
        long total(int round) {
            return (round == 0 ? firstWarm : warm) + perBatch * batches;
        }
    }

    static int maxRttSize(List<Rtt> plan) {
        return plan.stream().mapToInt(Rtt::size).max().orElse(8);
    }

    static int maxBwSize(List<Bw> plan) {
        return plan.stream().mapToInt(Bw::size).max().orElse(8);
    }

    /** Measuring time of one contender through the whole plan. */
    static long rttMillis(List<Rtt> plan) {
        return plan.stream().mapToLong(Rtt::millis).sum();
    }
}
