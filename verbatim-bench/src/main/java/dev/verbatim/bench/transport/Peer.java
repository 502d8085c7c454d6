package dev.verbatim.bench.transport;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.CountDownLatch;

/**
 * The main class of the benchmark's child processes: {@code Peer ROLE CONTENDER-ID key=value...},
 * one side of one contender. Roles: {@code pong} and {@code ping} (round trips), {@code consumer}
 * and {@code producer} (streaming). Speaks the {@link ChildProcess} line protocol on stdout:
 * <pre>
 *   VB READY [key=value ...]     set up; the properties the first side published for the second
 *   VB RTT size=N cpu=C hist=H       (ping) one message size's round trips, H a {@link LatencyHistogram#encode()},
 *                                    C the measuring thread's CPU share while recording
 *   VB BW size=N cpu=C mbps=X,Y,...  (consumer) one message size's batches, MB/s (10^6 bytes per second)
 *   VB SENT                      (producer) everything sent; waits for STOP before closing
 *   VB DONE                      finished
 *   VB ERROR message             failed (the stack trace goes to stderr)
 * </pre>
 * The ping repeats a message size's measurement, up to {@code retries} times, while its thread had
 * less than {@value #RETRY_BELOW_SHARE} of a CPU, and reports the attempt with the highest share.
 * The child exits on {@code STOP} or end of stdin (its parent gone), and halts by itself when its
 * {@code deadlineMs} passes: no child outlives its parent or its time.
 */
public final class Peer {
    private Peer() {}

    /** Grace between STOP (or end of stdin) and a forced halt. */
    private static final long GRACE_MILLIS = 3000;
    private static final CountDownLatch STOP = new CountDownLatch(1);
    /** Below this CPU share of the measuring thread, a message size's round trips are measured again. */
    static final double RETRY_BELOW_SHARE = 0.8;

    public static void main(String[] args) {
        host(args, Peer::run);
    }

    /**
     * One side of something in a child process: {@code role} and {@code id} name it, {@code session}
     * holds the {@code key=value} arguments. Runs on the main thread; returns when the side is done.
     */
    @FunctionalInterface
    public interface Side {
        void run(String role, String id, Session session) throws Exception;
    }

    /**
     * The body of a child's {@code main}, for this suite and others built on it ({@code bench rpc}):
     * parses {@code ROLE ID key=value...}, watches stdin (STOP or its end halts the child after a
     * grace) and the {@code deadlineMs} argument, runs {@code side}, then says {@code DONE} and exits
     * 0, or says {@code ERROR} and exits 1. Never returns.
     */
    public static void host(String[] args, Side side) {
        watchStdin();
        try {
            if (args.length < 2) {
                throw new IllegalArgumentException("usage: ROLE ID key=value...");
            }
            Map<String, String> props = new LinkedHashMap<>();
            for (int i = 2; i < args.length; i++) {
                int eq = args[i].indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("not key=value: " + args[i]);
                }
                props.put(args[i].substring(0, eq), args[i].substring(eq + 1));
            }
            String deadline = props.get("deadlineMs");
            if (deadline != null) {
                watchdog(Long.parseLong(deadline));
            }
            side.run(args[0], args[1], new Session(props));
            say("DONE");
            System.exit(0);
        } catch (Throwable t) {
            say("ERROR " + String.valueOf(t).replace('\n', ' '));
            t.printStackTrace();
            System.exit(1);
        }
    }

    /** Waits for the parent's {@code STOP} (or the end of stdin); after it the child has a grace of {@value #GRACE_MILLIS} ms to exit. */
    public static void awaitStop() throws InterruptedException {
        STOP.await();
    }

    /** Prints one protocol line ({@link ChildProcess#PREFIX} and {@code line}) on stdout. */
    public static void say(String line) {
        synchronized (System.out) {
            System.out.println(ChildProcess.PREFIX + line);
            System.out.flush();
        }
    }

    private static void watchStdin() {
        Thread.ofPlatform().daemon().name("peer-stdin").start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null && !line.equals("STOP")) {
                    // only STOP means anything
                }
            } catch (Exception e) {
                // treat as end of input
            }
            STOP.countDown();
            sleep(GRACE_MILLIS);
            System.err.println("peer: stopped by the parent (or the parent is gone); halting");
            Runtime.getRuntime().halt(3);
        });
    }

    private static void watchdog(long millis) {
        Thread.ofPlatform().daemon().name("peer-deadline").start(() -> {
            sleep(millis);
            say("ERROR deadline of " + millis + " ms passed");
            Runtime.getRuntime().halt(4);
        });
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The ready line of a first side: {@code READY} and what it {@linkplain Session#publish published}. */
    public static String ready(Session s) {
        StringJoiner j = new StringJoiner(" ");
        j.add("READY");
        s.published().forEach((k, v) -> j.add(k + "=" + v));
        return j.toString();
    }

    static void run(String role, String id, Session s) throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            switch (role) {
                case "pong" -> {
                    try (PingPongContender.Pong pong = Contenders.pingPong(id).pong(s)) {
                        say(ready(s));
                        while (pong.echo()) {
                            // echo until the ping side closes
                        }
                    }
                }
                case "ping" -> {
                    var plan = Plan.decodeRtt(s.require("rtt"));
                    MemorySegment msg = arena.allocate(s.maxSize(), 4096);
                    MemorySegment reply = arena.allocate(s.maxSize(), 4096);
                    int retries = Integer.parseInt(s.get("retries") == null ? "0" : s.get("retries"));
                    LatencyHistogram h = new LatencyHistogram();
                    LatencyHistogram best = new LatencyHistogram();
                    Loops.Sequence seq = new Loops.Sequence();
                    try (PingPongContender.Ping ping = Contenders.pingPong(id).ping(s)) {
                        say(ready(s));
                        for (Plan.Rtt r : plan) {
                            // a measurement during which this side was off its CPU (other load on the host)
                            // is repeated, shorter warm-up, and the attempt with the highest CPU share kept
                            double bestCpu = -1;
                            for (int attempt = 0; attempt <= retries; attempt++) {
                                long warm = r.warmMillis() * 1_000_000L / (attempt == 0 ? 1 : 4);
                                double cpu = Loops.measure(ping, msg, reply, r.size(), warm,
                                        r.measureMillis() * 1_000_000L, seq, h);
                                if (attempt == 0 || cpu > bestCpu) {
                                    bestCpu = cpu;
                                    best.reset();
                                    best.add(h);
                                }
                                if (Double.isNaN(cpu) || cpu >= RETRY_BELOW_SHARE) {
                                    break;
                                }
                            }
                            say(String.format(Locale.ROOT, "RTT size=%d cpu=%.3f hist=%s", r.size(), bestCpu, best.encode()));
                        }
                    }
                }
                case "consumer" -> {
                    var plan = Plan.decodeBw(s.require("bw"));
                    MemorySegment into = arena.allocate(s.maxSize(), 4096);
                    Loops.Sequence seq = new Loops.Sequence();
                    try (StreamContender.Consumer c = Contenders.stream(id).consumer(s)) {
                        say(ready(s));
                        for (Plan.Bw b : plan) {
                            Loops.consume(c, into, b.size(), b.warm(), seq);
                            StringJoiner mbps = new StringJoiner(",");
                            long cpu0 = Loops.cpuNanos();
                            long wall0 = System.nanoTime();
                            for (int i = 0; i < b.batches(); i++) {
                                long t0 = System.nanoTime();
                                Loops.consume(c, into, b.size(), b.perBatch(), seq);
                                long dt = System.nanoTime() - t0;
                                mbps.add(String.format(Locale.ROOT, "%.1f", b.perBatch() * (double) b.size() * 1e3 / dt));
                            }
                            say(String.format(Locale.ROOT, "BW size=%d cpu=%.3f mbps=%s", b.size(),
                                    Loops.cpuShare(cpu0, wall0), mbps));
                        }
                    }
                }
                case "producer" -> {
                    var plan = Plan.decodeBw(s.require("bw"));
                    MemorySegment msg = arena.allocate(s.maxSize(), 4096);
                    Loops.Sequence seq = new Loops.Sequence();
                    try (StreamContender.Producer p = Contenders.stream(id).producer(s)) {
                        say(ready(s));
                        for (Plan.Bw b : plan) {
                            Loops.produce(p, msg, b.size(), b.total(), seq);
                        }
                        say("SENT");
                        STOP.await(); // the consumer may still be reading what is in flight
                    }
                }
                default -> throw new IllegalArgumentException("unknown role " + role);
            }
        }
    }
}
