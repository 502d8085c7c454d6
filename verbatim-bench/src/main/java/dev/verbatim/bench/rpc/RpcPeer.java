package dev.verbatim.bench.rpc;

import dev.verbatim.bench.transport.LatencyHistogram;
import dev.verbatim.bench.transport.Loops;
import dev.verbatim.bench.transport.Peer;
import dev.verbatim.bench.transport.Session;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.StringJoiner;

/**
 * The main class of the rpc suite's child processes: {@code RpcPeer ROLE CONTENDER-ID key=value...},
 * one side of one {@link RpcContender}, hosted like the transport suite's children
 * ({@link Peer#host}: the {@code VB} line protocol of {@link dev.verbatim.bench.transport.ChildProcess},
 * STOP, deadline). Roles:
 * <pre>
 *   server   sets up, says READY with what it published, serves, waits for STOP, closes; DONE
 *   client   connects, says READY; per planned case: warm-up, then every call timed into a histogram:
 *              VB CALLS case=K calls=N cpu=C warm=W warmMs=T hist=H
 *                       (H a {@link LatencyHistogram#encode()}, C the measuring thread's CPU share while
 *                       recording, W calls of warm-up in T ms)
 *            then closes; DONE
 * </pre>
 * Every call's result is checked ({@link RpcCase#check}) outside the timed region.
 */
public final class RpcPeer {
    private RpcPeer() {}

    /** Session property: the client's plan, {@code case:warmMs:warmCalls:maxWarmMs:measureMs,...}. */
    static final String PLAN = "calls";

    /**
     * One case of a client's plan: warm up for at least {@code warmMillis} and at least
     * {@code warmCalls} calls, but no longer than {@code maxWarmMillis} (gRPC's JIT takes some 20,000
     * calls to settle, a spin floor's 10,000 take 5 ms), then record for {@code measureMillis}.
     */
    record Step(RpcCase rpcCase, long warmMillis, long warmCalls, long maxWarmMillis, long measureMillis) {}

    static String encode(List<Step> plan) {
        StringJoiner j = new StringJoiner(",");
        plan.forEach(s -> j.add(s.rpcCase().key() + ":" + s.warmMillis() + ":" + s.warmCalls() + ":"
                + s.maxWarmMillis() + ":" + s.measureMillis()));
        return j.toString();
    }

    static List<Step> decode(String s) {
        List<Step> out = new ArrayList<>();
        for (String e : s.split(",")) {
            String[] f = e.split(":");
            out.add(new Step(RpcCase.of(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]),
                    Long.parseLong(f[4])));
        }
        return out;
    }

    public static void main(String[] args) {
        Peer.host(args, RpcPeer::run);
    }

    static void run(String role, String id, Session s) throws Exception {
        RpcContender c = RpcContenders.get(id);
        switch (role) {
            case "server" -> {
                try (RpcContender.Server server = c.server(s)) {
                    Peer.say(Peer.ready(s));
                    server.serve();
                    Peer.awaitStop();
                }
            }
            case "client" -> {
                List<Step> plan = decode(s.require(PLAN));
                LatencyHistogram h = new LatencyHistogram();
                long[] seq = {0};
                try (RpcContender.Client client = c.client(s)) {
                    Peer.say(Peer.ready(s));
                    for (Step step : plan) {
                        RpcContender.Call call = client.call(step.rpcCase());
                        long[] warm = new long[2];
                        double cpu = measure(call, step, seq, h, warm);
                        Peer.say(String.format(Locale.ROOT, "CALLS case=%s calls=%d cpu=%.3f warm=%d warmMs=%d hist=%s",
                                step.rpcCase().key(), h.count(), cpu, warm[0], warm[1] / 1_000_000, h.encode()));
                    }
                }
            }
            default -> throw new IllegalArgumentException("unknown role " + role);
        }
    }

    /**
     * Calls of one case: the step's warm-up unrecorded, then at least its measuring time recorded
     * into {@code h} (reset first), one {@link System#nanoTime()} pair around each call; every
     * result checked after its call. {@code seq[0]} is the last sequence number used. Returns the
     * measuring thread's CPU share while recording (NaN where unknown); {@code warm} gets the warm-up's
     * calls and nanoseconds.
     */
    static double measure(RpcContender.Call call, Step step, long[] seq, LatencyHistogram h, long[] warm)
            throws Exception {
        RpcCase c = step.rpcCase();
        long start = System.nanoTime();
        long end = start + step.warmMillis() * 1_000_000L;
        long max = start + Math.max(step.warmMillis(), step.maxWarmMillis()) * 1_000_000L;
        long t1;
        long n = 0;
        do {
            long s = ++seq[0];
            c.check(s, call.call(s));
            t1 = System.nanoTime();
            n++;
        } while (t1 < end || (n < step.warmCalls() && t1 < max));
        warm[0] = n;
        warm[1] = t1 - start;
        h.reset();
        end = t1 + step.measureMillis() * 1_000_000L;
        long cpu0 = Loops.cpuNanos();
        long wall0 = t1;
        do {
            long s = ++seq[0];
            long t0 = System.nanoTime();
            long r = call.call(s);
            t1 = System.nanoTime();
            h.record(t1 - t0);
            c.check(s, r);
        } while (t1 < end);
        return Loops.cpuShare(cpu0, wall0);
    }

    /** {@code count} calls of one case, each timed into {@code h} (not reset) and checked. */
    static void calls(RpcContender.Call call, RpcCase c, long count, long[] seq, LatencyHistogram h) throws Exception {
        for (long i = 0; i < count; i++) {
            long s = ++seq[0];
            long t0 = System.nanoTime();
            long r = call.call(s);
            h.record(System.nanoTime() - t0);
            c.check(s, r);
        }
    }
}
