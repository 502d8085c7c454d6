package dev.verbatim.bench.rpc;

import dev.verbatim.bench.harness.CallLoop;
import dev.verbatim.bench.harness.ChildMain;
import dev.verbatim.bench.harness.LatencyHistogram;
import dev.verbatim.bench.harness.Session;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The main class of the rpc suite's child processes: {@code RpcPeer ROLE CONTENDER-ID key=value...},
 * one side of one {@link RpcContender}, hosted like the transport suite's children
 * ({@link ChildMain#host}: the {@code VB} line protocol of {@link dev.verbatim.bench.harness.ChildProcess},
 * STOP, deadline, PAUSE/RESUME). Roles:
 * <pre>
 *   server   sets up, says READY with what it published, serves, waits for STOP, closes; DONE
 *   client   connects, says READY, then does what the parent asks on stdin, one command at a time
 *            (waiting for the next without spinning, so the contenders can take turns):
 *     CALLS case warmMs warmCalls maxWarmMs measureMs   one turn: warm-up, then every call timed:
 *              VB CALLS case=K calls=N cpu=C warm=W warmMs=T trips=S hist=H
 *                       (H a {@link LatencyHistogram#encode()}, C the measuring thread's CPU share while
 *                       recording, W calls of warm-up in T ms, S the calls made so far);
 *              a throughput case ({@link RpcCase#isThroughput()}, {@link Throughput}) adds rate=R, the
 *              calls per second of its C callers (C NaN, W 0, H the round trips of the window's calls)
 *     NUDGE    one more call (of its first case): VB NUDGED trips=S (to pause a spinning server)
 *     STOP     closes; DONE
 * </pre>
 * A case's call is prepared once, at its first turn. Every call's result is checked
 * ({@link RpcCase#check}) outside the timed region.
 */
public final class RpcPeer {
    private RpcPeer() {}

    /**
     * One turn of a client: warm up for at least {@code warmMillis} and at least {@code warmCalls}
     * calls, but no longer than {@code maxWarmMillis} (gRPC's JIT takes some 20,000 calls to settle,
     * a spin floor's 10,000 take 5 ms), then record for {@code measureMillis}.
     */
    record Step(RpcCase rpcCase, long warmMillis, long warmCalls, long maxWarmMillis, long measureMillis) {
        /** The turn's timed loop ({@link CallLoop}, the objects suite's too). */
        CallLoop loop() {
            return new CallLoop(warmMillis, warmCalls, maxWarmMillis, measureMillis);
        }

        /** The client's command for this turn. */
        String command() {
            return "CALLS " + rpcCase.key() + " " + warmMillis + " " + warmCalls + " " + maxWarmMillis + " " + measureMillis;
        }

        static Step parse(String command) {
            String[] f = command.trim().split(" ");
            if (f.length != 6 || !f[0].equals("CALLS")) {
                throw new IllegalArgumentException("not a CALLS command: " + command);
            }
            return new Step(RpcCase.of(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4]),
                    Long.parseLong(f[5]));
        }
    }

    public static void main(String[] args) {
        ChildMain.host(args, RpcPeer::run);
    }

    static void run(String role, String id, Session s) throws Exception {
        RpcContender c = RpcContenders.get(id);
        switch (role) {
            case "server" -> {
                try (RpcContender.Server server = c.server(s)) {
                    ChildMain.say(ChildMain.ready(s));
                    server.serve();
                    ChildMain.awaitStop();
                }
            }
            case "client" -> {
                LatencyHistogram h = new LatencyHistogram();
                long[] seq = {0};
                Map<RpcCase, RpcContender.Call> calls = new EnumMap<>(RpcCase.class);
                RpcCase nudge = c.cases().stream().sorted().findFirst().orElseThrow();
                try (RpcContender.Client client = c.client(s)) {
                    ChildMain.say(ChildMain.ready(s));
                    for (String cmd; (cmd = ChildMain.nextCommand()) != null; ) {
                        if (cmd.equals("NUDGE")) {
                            RpcContender.Call call = prepared(calls, client, nudge);
                            long sq = ++seq[0];
                            nudge.check(sq, call.call(sq));
                            ChildMain.say("NUDGED trips=" + seq[0]);
                            continue;
                        }
                        Step step = Step.parse(cmd);
                        if (step.rpcCase().isThroughput()) {
                            Throughput.Load load = load(c, client, calls, step, seq);
                            ChildMain.say(String.format(Locale.ROOT,
                                    "CALLS case=%s calls=%d cpu=NaN warm=0 warmMs=%d trips=%d rate=%.1f hist=%s",
                                    step.rpcCase().key(), load.calls(), step.warmMillis(), seq[0], load.perSecond(),
                                    load.h().encode()));
                            continue;
                        }
                        RpcContender.Call call = prepared(calls, client, step.rpcCase());
                        CallLoop.Turn t = step.loop().run(call::call, step.rpcCase()::check, seq, h);
                        ChildMain.say(String.format(Locale.ROOT,
                                "CALLS case=%s calls=%d cpu=%.3f warm=%d warmMs=%d trips=%d hist=%s",
                                step.rpcCase().key(), h.count(), t.cpu(), t.warmCalls(), t.warmNanos() / 1_000_000, seq[0],
                                h.encode()));
                    }
                }
            }
            default -> throw new IllegalArgumentException("unknown role " + role);
        }
    }

    /** The asynchronous null call, prepared at the first throughput turn of an {@link RpcContender.Callers#ASYNC} contender. */
    private static RpcContender.AsyncCall asyncCall;

    /**
     * One turn of a throughput case: the step's warm-up (a case's first turn: its long one), then its
     * measuring time, with C callers as the contender makes them ({@link Throughput}).
     */
    private static Throughput.Load load(RpcContender c, RpcContender.Client client, Map<RpcCase, RpcContender.Call> calls,
                                        Step step, long[] seq) throws Exception {
        RpcCase rc = step.rpcCase();
        AtomicLong sq = new AtomicLong(seq[0]);
        Throughput.Warm warm = new Throughput.Warm(step.warmMillis(), step.warmCalls(), step.maxWarmMillis());
        try {
            if (c.callers() == RpcContender.Callers.ASYNC) {
                if (asyncCall == null) {
                    asyncCall = client.asyncCall(rc.call());
                }
                return Throughput.async(asyncCall, rc, rc.callers(), warm, step.measureMillis(), sq);
            }
            return Throughput.threads(prepared(calls, client, rc.call()), rc, rc.callers(), warm, step.measureMillis(), sq);
        } finally {
            seq[0] = sq.get();
        }
    }

    private static RpcContender.Call prepared(Map<RpcCase, RpcContender.Call> calls, RpcContender.Client client,
                                              RpcCase c) throws Exception {
        RpcContender.Call call = calls.get(c);
        if (call == null) {
            call = client.call(c);
            calls.put(c, call);
        }
        return call;
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
