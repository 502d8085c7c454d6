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
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;

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

    /** Grace between STOP (or end of stdin) and a forced halt. */
    private static final long GRACE_MILLIS = 3000;
    private static final CountDownLatch STOP = new CountDownLatch(1);
    /** Commands from stdin for the main thread, in order; {@link #END} once STOP or the end of stdin came. */
    private static final LinkedBlockingQueue<String> COMMANDS = new LinkedBlockingQueue<>();
    private static final String END = new String("end of commands");
    /** Set by {@code PAUSE n}: a pong sleeps after its n-th echo. */
    private static volatile long pauseAfterEcho = -1;
    /** Released by {@code RESUME} (and by STOP, so a sleeping pong can finish). */
    private static final Semaphore RESUMES = new Semaphore(0);
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

    /**
     * The pause point of a pong's echo loop (this suite's and {@code bench rpc}'s): call it after each
     * echo with the echoes so far; after the one the parent's {@code PAUSE n} named, it says
     * {@code PAUSED} and sleeps until {@code RESUME} (or STOP), so an idle pong does not spin.
     */
    public static void echoed(long echoes) throws InterruptedException {
        if (echoes == pauseAfterEcho) {
            say("PAUSED");
            RESUMES.acquire();
        }
    }

    /** Prints one protocol line ({@link ChildProcess#PREFIX} and {@code line}) on stdout. */
    public static void say(String line) {
        synchronized (System.out) {
            System.out.println(ChildProcess.PREFIX + line);
            System.out.flush();
        }
    }

    /**
     * The next command the parent sent on stdin (see the class comment), waiting for it; null once
     * the parent said STOP or is gone.
     */
    public static String nextCommand() throws InterruptedException {
        String c = COMMANDS.take();
        if (c == END) {
            COMMANDS.add(END);
            return null;
        }
        return c;
    }

    private static void watchStdin() {
        Thread.ofPlatform().daemon().name("peer-stdin").start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null && !line.equals("STOP")) {
                    if (line.startsWith("PAUSE ")) {
                        pauseAfterEcho = Long.parseLong(line.substring(6).trim());
                        say("PAUSING");
                    } else if (line.equals("RESUME")) {
                        RESUMES.release();
                    } else {
                        COMMANDS.add(line);
                    }
                }
            } catch (Exception e) {
                // treat as end of input
            }
            COMMANDS.add(END);
            RESUMES.release(Integer.MAX_VALUE / 2);
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
                        long echoes = 0;
                        while (pong.echo()) {
                            echoed(++echoes);
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
                        say(ready(s));
                        for (String cmd; (cmd = nextCommand()) != null; ) {
                            String[] w = cmd.split(" ");
                            switch (w[0]) {
                                case "RTT" -> rtt(ping, msg, reply, Integer.parseInt(w[1]), Long.parseLong(w[2]),
                                        Long.parseLong(w[3]), Integer.parseInt(w[4]), seq, h, best);
                                case "NUDGE" -> {
                                    Loops.once(ping, msg, reply, 8, seq);
                                    say("NUDGED trips=" + seq.next);
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
                        say(ready(s));
                        for (String cmd; (cmd = nextCommand()) != null; ) {
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
                        say(ready(s));
                        for (String cmd; (cmd = nextCommand()) != null; ) {
                            String[] w = cmd.split(" ");
                            if (!w[0].equals("SEND")) {
                                throw new IllegalArgumentException("unknown command " + cmd);
                            }
                            Loops.produce(p, msg, Integer.parseInt(w[1]), Long.parseLong(w[2]), seq);
                            say("SENT");
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
        say(String.format(Locale.ROOT, "RTT size=%d trips=%d cpu=%.3f hist=%s", size, seq.next, bestCpu, best.encode()));
    }

    /** One measurement of a stream: {@code warm} messages, then {@code batches} timed batches of {@code perBatch}. */
    private static void bw(StreamContender.Consumer c, MemorySegment into, int size, long warm, long perBatch,
                           int batches, Loops.Sequence seq) throws Exception {
        Loops.consume(c, into, size, warm, seq);
        StringJoiner mbps = new StringJoiner(",");
        long cpu0 = Loops.cpuNanos();
        long wall0 = System.nanoTime();
        for (int i = 0; i < batches; i++) {
            long t0 = System.nanoTime();
            Loops.consume(c, into, size, perBatch, seq);
            long dt = System.nanoTime() - t0;
            mbps.add(String.format(Locale.ROOT, "%.1f", perBatch * (double) size * 1e3 / dt));
        }
        say(String.format(Locale.ROOT, "BW size=%d cpu=%.3f mbps=%s", size, Loops.cpuShare(cpu0, wall0), mbps));
    }
}
