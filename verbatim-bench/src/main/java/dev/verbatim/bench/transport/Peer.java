package dev.verbatim.bench.transport;

import dev.verbatim.bench.harness.ChildMain;
import dev.verbatim.bench.harness.LatencyHistogram;
import dev.verbatim.bench.harness.Session;
import dev.verbatim.bench.harness.ThreadCpu;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Locale;
import java.util.StringJoiner;

/**
 * The main class of the benchmark's child processes: {@code Peer ROLE CONTENDER-ID key=value...},
 * one side of one contender. Roles: {@code pong} and {@code ping} (round trips), {@code consumer}
 * and {@code producer} (streaming). The measuring sides (ping, consumer) and the producer do what
 * the parent asks on stdin, one command at a time, so the parent can take turns between contenders
 * whose processes all stay up ({@link TransportBench}):
 * <pre>
 *   stdin                                    stdout
 *   (ping)     RTT size warmMs measureMs retries  VB RTT size=N trips=T cpu=C hist=H   H a {@link LatencyHistogram#encode()},
 *                                              C the measuring thread's CPU share while recording, T round trips so far
 *   (ping)     NUDGE                         VB NUDGED trips=T           one more checked 8-byte round trip
 *   (pong)     PAUSE n                       VB PAUSING, then VB PAUSED  after its n-th echo: sleeps until RESUME
 *   (pong)     RESUME                                                    echoes again
 *   (producer) SEND size count               VB SENT
 *   (consumer) BW size warm perBatch batches VB BW size=N cpu=C mbps=X,Y,...  the batches, MB/s (10^6 bytes per second)
 *   (any)      STOP, or the end of stdin     VB DONE                     closes the side and exits
 * </pre>
 * Every side first says {@code VB READY [key=value ...]} (the properties the first side published
 * for the second); a failure is {@code VB ERROR message} (the stack trace goes to stderr). A pong
 * cannot read a command while it waits inside an echo, so it is paused in two steps: {@code PAUSE n}
 * with {@code n} the ping's round trips so far plus one (it says {@code PAUSING}), then that one round
 * trip ({@code NUDGE}), after whose echo it says {@code PAUSED} and sleeps: no paused contender
 * spins. Counting echoes, not watching a flag, keeps a pong that was slow to return from the ping's
 * last measured echo from sleeping before the nudge. The ping repeats a measurement, up to
 * {@code retries} times, while its thread had less than {@value #RETRY_BELOW_SHARE} of a CPU, and
 * reports the attempt with the highest share. The child exits on {@code STOP} or end of stdin (its
 * parent gone), and halts by itself when its {@code deadlineMs} passes: no child outlives its parent
 * or its time.
 */
public final class Peer {
    private Peer() {}

    /** Below this CPU share of the measuring thread, a message size's round trips are measured again. */
    static final double RETRY_BELOW_SHARE = 0.8;

    public static void main(String[] args) {
        ChildMain.host(args, Peer::run);
    }

    static void run(String role, String id, Session s) throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            switch (role) {
                case "pong" -> {
                    try (PingPongContender.Pong pong = Contenders.pingPong(id).pong(s)) {
                        ChildMain.say(ChildMain.ready(s));
                        long echoes = 0;
                        while (pong.echo()) {
                            ChildMain.echoed(++echoes);
                        }
                    }
                }
                case "ping" -> {
                    MemorySegment msg = arena.allocate(s.maxSize(), 4096);
                    MemorySegment reply = arena.allocate(s.maxSize(), 4096);
                    LatencyHistogram h = new LatencyHistogram();
                    LatencyHistogram best = new LatencyHistogram();
                    Loops.Sequence seq = new Loops.Sequence();
                    try (PingPongContender.Ping ping = Contenders.pingPong(id).ping(s)) {
                        ChildMain.say(ChildMain.ready(s));
                        for (String cmd; (cmd = ChildMain.nextCommand()) != null; ) {
                            String[] w = cmd.split(" ");
                            switch (w[0]) {
                                case "RTT" -> rtt(ping, msg, reply, Integer.parseInt(w[1]), Long.parseLong(w[2]),
                                        Long.parseLong(w[3]), Integer.parseInt(w[4]), seq, h, best);
                                case "NUDGE" -> {
                                    Loops.once(ping, msg, reply, 8, seq);
                                    ChildMain.say("NUDGED trips=" + seq.next);
                                }
                                default -> throw new IllegalArgumentException("unknown command " + cmd);
                            }
                        }
                    }
                }
                case "consumer" -> {
                    MemorySegment into = arena.allocate(s.maxSize(), 4096);
                    Loops.Sequence seq = new Loops.Sequence();
                    try (StreamContender.Consumer c = Contenders.stream(id).consumer(s)) {
                        ChildMain.say(ChildMain.ready(s));
                        for (String cmd; (cmd = ChildMain.nextCommand()) != null; ) {
                            String[] w = cmd.split(" ");
                            if (!w[0].equals("BW")) {
                                throw new IllegalArgumentException("unknown command " + cmd);
                            }
                            bw(c, into, Integer.parseInt(w[1]), Long.parseLong(w[2]), Long.parseLong(w[3]),
                                    Integer.parseInt(w[4]), seq);
                        }
                    }
                }
                case "producer" -> {
                    MemorySegment msg = arena.allocate(s.maxSize(), 4096);
                    Loops.Sequence seq = new Loops.Sequence();
                    try (StreamContender.Producer p = Contenders.stream(id).producer(s)) {
                        ChildMain.say(ChildMain.ready(s));
                        for (String cmd; (cmd = ChildMain.nextCommand()) != null; ) {
                            String[] w = cmd.split(" ");
                            if (!w[0].equals("SEND")) {
                                throw new IllegalArgumentException("unknown command " + cmd);
                            }
                            Loops.produce(p, msg, Integer.parseInt(w[1]), Long.parseLong(w[2]), seq);
                            ChildMain.say("SENT");
                        }
                    }
                }
                default -> throw new IllegalArgumentException("unknown role " + role);
            }
        }
    }

    /**
     * One measurement of round trips: repeated, shorter warm-up, while this side was off its CPU
     * (other load on the host), and the attempt with the highest CPU share reported.
     */
    private static void rtt(PingPongContender.Ping ping, MemorySegment msg, MemorySegment reply, int size,
                            long warmMillis, long measureMillis, int retries, Loops.Sequence seq,
                            LatencyHistogram h, LatencyHistogram best) throws Exception {
        double bestCpu = -1;
        for (int attempt = 0; attempt <= retries; attempt++) {
            long warm = warmMillis * 1_000_000L / (attempt == 0 ? 1 : 4);
            double cpu = Loops.measure(ping, msg, reply, size, warm, measureMillis * 1_000_000L, seq, h);
            if (attempt == 0 || cpu > bestCpu) {
                bestCpu = cpu;
                best.reset();
                best.add(h);
            }
            if (Double.isNaN(cpu) || cpu >= RETRY_BELOW_SHARE) {
                break;
            }
        }
        ChildMain.say(String.format(Locale.ROOT, "RTT size=%d trips=%d cpu=%.3f hist=%s", size, seq.next, bestCpu, best.encode()));
    }

    /** One measurement of a stream: {@code warm} messages, then {@code batches} timed batches of {@code perBatch}. */
    private static void bw(StreamContender.Consumer c, MemorySegment into, int size, long warm, long perBatch,
                           int batches, Loops.Sequence seq) throws Exception {
        Loops.consume(c, into, size, warm, seq);
        StringJoiner mbps = new StringJoiner(",");
        long cpu0 = ThreadCpu.nanos();
        long wall0 = System.nanoTime();
        for (int i = 0; i < batches; i++) {
            long t0 = System.nanoTime();
            Loops.consume(c, into, size, perBatch, seq);
            long dt = System.nanoTime() - t0;
            mbps.add(String.format(Locale.ROOT, "%.1f", perBatch * (double) size * 1e3 / dt));
        }
        ChildMain.say(String.format(Locale.ROOT, "BW size=%d cpu=%.3f mbps=%s", size, ThreadCpu.share(cpu0, wall0), mbps));
    }
}
