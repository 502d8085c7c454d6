package dev.verbatim.bench.harness;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;

/**
 * The child's end of the protocol between a suite and its child processes ({@link ChildProcess} is
 * the parent's end): the body of every child's {@code main}, {@code MainClass ROLE ID key=value...}.
 * <pre>
 *   stdin                 stdout
 *                         VB READY [key=value ...]   the side is set up (a first side: what it published)
 *   (suite's own)         (suite's own)              one command at a time, read with {@link #nextCommand()}
 *   PAUSE n               VB PAUSING, then VB PAUSED  a pong sleeps after its n-th echo ({@link #echoed})
 *   RESUME                                           it echoes again
 *   STOP, or end of stdin VB DONE                    closes the side and exits
 *                         VB ERROR message           failed (the stack trace goes to stderr), exit 1
 * </pre>
 * {@code PAUSE} and {@code RESUME} are handled by the stdin thread, so a pong busy inside an echo
 * still hears them. Invariant: no child outlives its parent or its time: after {@code STOP} or the
 * end of stdin (its parent gone) it halts by itself after a grace of {@value #GRACE_MILLIS} ms, and
 * when its {@code deadlineMs} argument passes. One side per process; its static state is the
 * process's.
 */
public final class ChildMain {
    private ChildMain() {}

    /** Grace between STOP (or end of stdin) and a forced halt. */
    private static final long GRACE_MILLIS = 3000;
    /** The argument that bounds a child's life (ms). */
    static final String DEADLINE = "deadlineMs";
    private static final CountDownLatch STOP = new CountDownLatch(1);
    /** Commands from stdin for the main thread, in order; {@link #END} once STOP or the end of stdin came. */
    private static final LinkedBlockingQueue<String> COMMANDS = new LinkedBlockingQueue<>();
    private static final String END = new String("end of commands");
    /** Set by {@code PAUSE n}: a pong sleeps after its n-th echo. */
    private static volatile long pauseAfterEcho = -1;
    /** Released by {@code RESUME} (and by STOP, so a sleeping pong can finish). */
    private static final Semaphore RESUMES = new Semaphore(0);

    /**
     * One side of something in a child process: {@code role} and {@code id} name it, {@code session}
     * holds the {@code key=value} arguments. Runs on the main thread; returns when the side is done.
     */
    @FunctionalInterface
    public interface Side {
        void run(String role, String id, Session session) throws Exception;
    }

    /**
     * The body of a child's {@code main}: parses {@code ROLE ID key=value...}, watches stdin (STOP or
     * its end halts the child after a grace) and the {@code deadlineMs} argument, runs {@code side},
     * then says {@code DONE} and exits 0, or says {@code ERROR} and exits 1. Never returns.
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
            String deadline = props.get(DEADLINE);
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

    /** A child's arguments, the inverse of {@link #host}'s parsing: {@code ROLE ID key=value...}. */
    public static List<String> args(String role, String id, Map<String, String> props) {
        List<String> a = new ArrayList<>(List.of(role, id));
        props.forEach((k, v) -> a.add(k + "=" + v));
        return a;
    }

    /** The {@code key=value} words of a protocol line (the keyword dropped, other words ignored). */
    public static Map<String, String> props(String line) {
        Map<String, String> m = new LinkedHashMap<>();
        String[] words = line.trim().split("\\s+");
        for (int i = 1; i < words.length; i++) {
            int eq = words[i].indexOf('=');
            if (eq > 0) {
                m.put(words[i].substring(0, eq), words[i].substring(eq + 1));
            }
        }
        return m;
    }

    /** Waits for the parent's {@code STOP} (or the end of stdin); after it the child has a grace of {@value #GRACE_MILLIS} ms to exit. */
    public static void awaitStop() throws InterruptedException {
        STOP.await();
    }

    /**
     * The pause point of a pong's echo loop: call it after each echo with the echoes so far; after
     * the one the parent's {@code PAUSE n} named, it says {@code PAUSED} and sleeps until
     * {@code RESUME} (or STOP), so an idle pong does not spin ({@link Turns#pause}).
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

    /** The ready line of a side: {@code READY} and what it {@linkplain Session#publish published}. */
    public static String ready(Session s) {
        StringJoiner j = new StringJoiner(" ");
        j.add("READY");
        s.published().forEach((k, v) -> j.add(k + "=" + v));
        return j.toString();
    }

    /**
     * The next command the parent sent on stdin, waiting for it; null once the parent said STOP or
     * is gone.
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
}
