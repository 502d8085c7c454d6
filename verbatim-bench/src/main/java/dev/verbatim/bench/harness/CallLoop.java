package dev.verbatim.bench.harness;

/**
 * One turn of a client that times calls one by one (the objects suite's and the rpc suite's): a warm-up of at least {@code warmMillis}
 * and {@code warmCalls} calls (no longer than {@code maxWarmMillis}), unrecorded, then every call of at
 * least {@code measureMillis} timed into a histogram (reset first), one {@link System#nanoTime()} pair
 * around each call, its result checked after the call, outside the timed region. At least one call is
 * timed, however long it takes.
 *
 * @param warmMillis    the warm-up's least time
 * @param warmCalls     the warm-up's least calls (while within {@code maxWarmMillis})
 * @param maxWarmMillis the warm-up's most time, whatever the calls
 * @param measureMillis the recording's least time
 */
public record CallLoop(long warmMillis, long warmCalls, long maxWarmMillis, long measureMillis) {

    /** A call: makes call number {@code seq} and returns its result. */
    @FunctionalInterface
    public interface Call {
        long call(long seq) throws Exception;

        /** Before a turn's first call: sets up what lives for one turn only (the objects suite's floor starts its pong). */
        default void beginTurn() throws Exception {}

        /** After a turn's last call, however it ended: ends what {@link #beginTurn} set up. */
        default void endTurn() throws Exception {}
    }

    /** Checks the result of call {@code seq}; throws when it is wrong. */
    @FunctionalInterface
    public interface Check {
        void check(long seq, long result);
    }

    /** What a turn did besides its histogram: warm-up calls and time, the measuring thread's CPU share. */
    public record Turn(long warmCalls, long warmNanos, double cpu) {}

    /** Runs the turn: {@code seq[0]} is the last sequence number used, and advances; {@code h} gets the timed calls. */
    public Turn run(Call call, Check check, long[] seq, LatencyHistogram h) throws Exception {
        call.beginTurn();
        try {
            return timed(call, check, seq, h);
        } finally {
            call.endTurn();
        }
    }

    private Turn timed(Call call, Check check, long[] seq, LatencyHistogram h) throws Exception {
        long start = System.nanoTime();
        long end = start + warmMillis * 1_000_000L;
        long max = start + Math.max(warmMillis, maxWarmMillis) * 1_000_000L;
        long t1;
        long n = 0;
        do {
            long s = ++seq[0];
            check.check(s, call.call(s));
            t1 = System.nanoTime();
            n++;
        } while (t1 < end || (n < warmCalls && t1 < max));
        long warmNanos = t1 - start;
        h.reset();
        end = t1 + measureMillis * 1_000_000L;
        long cpu0 = ThreadCpu.nanos();
        long wall0 = t1;
        do {
            long s = ++seq[0];
            long t0 = System.nanoTime();
            long r = call.call(s);
            t1 = System.nanoTime();
            h.record(t1 - t0);
            check.check(s, r);
        } while (t1 < end);
        return new Turn(n, warmNanos, ThreadCpu.share(cpu0, wall0));
    }

    /** The turn as a command word list: {@code warmMillis warmCalls maxWarmMillis measureMillis}. */
    public String words() {
        return warmMillis + " " + warmCalls + " " + maxWarmMillis + " " + measureMillis;
    }

    /** The turn of four words {@link #words} wrote, from {@code f[at]} on. */
    public static CallLoop parse(String[] f, int at) {
        return new CallLoop(Long.parseLong(f[at]), Long.parseLong(f[at + 1]), Long.parseLong(f[at + 2]),
                Long.parseLong(f[at + 3]));
    }
}
