package dev.verbatim.bench.harness;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A peer JVM started by the benchmark: the same {@code java} binary and class path as this
 * process, the flags FFM and the peers need ({@link #start}) or this JVM's own options
 * ({@link #startLikeThisJvm}), a main class and arguments. The child speaks a line
 * protocol on its stdout: lines that start with {@value #PREFIX} are protocol lines (a keyword,
 * then words), all other output (stdout and stderr) is kept as a log whose tail goes into every
 * failure message. Its stdin stays open; the child exits when it reads {@code STOP} or end of file,
 * so a child outlives neither its parent nor the run.
 *
 * <p>Every wait has a deadline. {@link #close()} ends the process (politely, then
 * {@link Process#destroyForcibly()}) and waits for it to be gone; a JVM shutdown hook does the same
 * for every child still alive, and {@link #closeAll()} does it on demand. Not thread-safe, except
 * that the output readers are threads of their own.
 */
public final class ChildProcess implements AutoCloseable {
    /** Protocol lines start with this. */
    public static final String PREFIX = "VB ";
    /** Flags every child gets: FFM downcalls, and Unsafe memory access for peers built on it. */
    public static final List<String> BASE_FLAGS = List.of(
            "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
            "-XX:+UseSerialGC", "-Xms64m", "-XX:-UsePerfData");
    private static final int LOG_LINES = 60;
    private static final Set<ChildProcess> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(ChildProcess::closeAll, "verbatim-children-reaper"));
    }

    /** A child that failed: died, timed out, or reported an error. */
    public static final class ChildFailure extends IOException {
        private static final long serialVersionUID = 1L;

        ChildFailure(String message) {
            super(message);
        }
    }

    private final String label;
    private final Process process;
    private final LinkedBlockingQueue<String> protocol = new LinkedBlockingQueue<>();
    private final Deque<String> log = new ArrayDeque<>();
    private final OutputStream stdin;
    private final Thread outReader;
    private final Thread errReader;

    private ChildProcess(String label, Process process) {
        this.label = label;
        this.process = process;
        this.stdin = process.getOutputStream();
        this.outReader = Thread.ofPlatform().daemon().name("child-out-" + label).start(() -> pump(process.getInputStream(), true));
        this.errReader = Thread.ofPlatform().daemon().name("child-err-" + label).start(() -> pump(process.getErrorStream(), false));
    }

    /** The java launcher of this JVM. */
    static String javaBinary() {
        Optional<String> cmd = ProcessHandle.current().info().command();
        return cmd.orElseGet(() -> Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    /**
     * Starts {@code mainClass} with {@code args} in a new JVM: this JVM's binary and class path,
     * {@link #BASE_FLAGS}, then {@code jvmFlags}.
     */
    public static ChildProcess start(String label, List<String> jvmFlags, String mainClass, List<String> args)
            throws IOException {
        return start(label, jvmFlags, System.getProperty("java.class.path"), mainClass, args);
    }

    /** {@link #start(String, List, String, List)} with class path {@code classPath} (the same jars, in another order). */
    public static ChildProcess start(String label, List<String> jvmFlags, String classPath, String mainClass,
                                     List<String> args) throws IOException {
        List<String> flags = new ArrayList<>(BASE_FLAGS);
        flags.addAll(jvmFlags);
        return launch(label, flags, classPath, mainClass, args, false);
    }

    /**
     * Starts {@code mainClass} with {@code args} in a new JVM that runs as this one does: this JVM's
     * binary, class path and {@linkplain #inheritedJvmFlags() JVM options} (module and native-access
     * flags, {@code -Xss}, GC and heap options, system properties), and no {@link #BASE_FLAGS}; for a
     * child that measures what this JVM would otherwise measure itself ({@code bench wire}).
     * {@code defaults} go before the inherited options, which therefore win where both set the same
     * thing. The {@code JDK_JAVA_OPTIONS} and {@code JAVA_TOOL_OPTIONS} variables are removed from the
     * child's environment: what they held is among the inherited options already.
     */
    public static ChildProcess startLikeThisJvm(String label, List<String> defaults, String mainClass,
                                                List<String> args) throws IOException {
        List<String> flags = new ArrayList<>(defaults);
        flags.addAll(inheritedJvmFlags());
        return launch(label, flags, System.getProperty("java.class.path"), mainClass, args, true);
    }

    /**
     * This JVM's options as given to it (the launcher's {@code JDK_JAVA_OPTIONS} and the VM's
     * {@code JAVA_TOOL_OPTIONS} included), without a JDWP debugging agent: a second JVM cannot listen
     * on the same debugger port (and with {@code suspend=y} it would wait for a debugger forever).
     */
    public static List<String> inheritedJvmFlags() {
        List<String> flags = new ArrayList<>();
        for (String f : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (!(f.startsWith("-agentlib:jdwp") || f.startsWith("-Xrunjdwp") || f.equals("-Xdebug"))) {
                flags.add(f);
            }
        }
        return flags;
    }

    private static ChildProcess launch(String label, List<String> flags, String classPath, String mainClass,
                                       List<String> args, boolean dropJavaOptionVariables) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(javaBinary());
        cmd.addAll(flags);
        cmd.add("-cp");
        cmd.add(classPath);
        cmd.add(mainClass);
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd);
        if (dropJavaOptionVariables) {
            pb.environment().remove("JDK_JAVA_OPTIONS");
            pb.environment().remove("JAVA_TOOL_OPTIONS");
        }
        Process p = pb.start();
        ChildProcess c = new ChildProcess(label, p);
        LIVE.add(c);
        return c;
    }

    private void pump(InputStream in, boolean stdout) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (stdout && line.startsWith(PREFIX)) {
                    protocol.add(line.substring(PREFIX.length()));
                } else {
                    synchronized (log) {
                        log.addLast((stdout ? "" : "err: ") + line);
                        if (log.size() > LOG_LINES) {
                            log.removeFirst();
                        }
                    }
                }
            }
        } catch (IOException e) {
            // the process is gone; its exit is noticed by the waits
        }
    }

    public String label() {
        return label;
    }

    public Process process() {
        return process;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Waits for the protocol line that starts with {@code keyword} and returns every protocol line
     * received up to it, itself last. Fails on a line starting with {@code ERROR}, on the child's
     * exit and when {@code timeout} passes; the child is then closed (killed) before the failure is
     * thrown.
     */
    public List<String> awaitLine(String keyword, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> lines = new ArrayList<>();
        while (true) {
            String line = poll(deadline, timeout, "'" + keyword + "'");
            lines.add(line);
            if (line.equals(keyword) || line.startsWith(keyword + " ")) {
                return lines;
            }
            if (line.startsWith("ERROR")) {
                throw fail(label + " failed: " + line.substring(5).trim());
            }
        }
    }

    /**
     * Waits for the next protocol line and returns it. Fails as {@link #awaitLine} does: on a line
     * starting with {@code ERROR}, on the child's exit and when {@code timeout} passes, the child
     * closed (killed) first.
     */
    public String nextLine(Duration timeout) throws IOException, InterruptedException {
        String line = poll(System.nanoTime() + timeout.toNanos(), timeout, "protocol line");
        if (line.startsWith("ERROR")) {
            throw fail(label + " failed: " + line.substring(5).trim());
        }
        return line;
    }

    /** The next protocol line; fails when the child exits first or {@code deadline} (a nanoTime) passes. */
    private String poll(long deadline, Duration timeout, String what) throws IOException, InterruptedException {
        while (true) {
            long left = deadline - System.nanoTime();
            String line = left <= 0 ? null : protocol.poll(Math.min(left, 50_000_000L), TimeUnit.NANOSECONDS);
            if (line != null) {
                return line;
            }
            if (System.nanoTime() - deadline >= 0) {
                throw fail(label + ": no " + what + " within " + timeout.toMillis() + " ms");
            }
            if (!process.isAlive() && protocol.isEmpty()) {
                outReader.join(1000); // the last lines may still be in the pipe
                if (protocol.isEmpty()) {
                    throw fail(label + " exited with code " + process.exitValue() + " before " + what);
                }
            }
        }
    }

    private ChildFailure fail(String message) {
        close();
        return new ChildFailure(message + logTail());
    }

    /** The last lines of the child's other output, for a failure message. */
    public String logTail() {
        synchronized (log) {
            if (log.isEmpty()) {
                return "";
            }
            return "\n  | " + String.join("\n  | ", log);
        }
    }

    /** Sends one line to the child's stdin (ignored when the child is gone). */
    public void send(String line) {
        try {
            stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            stdin.flush();
        } catch (IOException e) {
            // gone already
        }
    }

    /** Waits up to {@code timeout} for the child to exit by itself; true when it did. */
    public boolean awaitExit(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Ends the child: {@code STOP} and end of stdin, a short grace, then SIGTERM, then SIGKILL; returns
     * once the process is gone (or after 10 s of trying, which does not happen on Linux).
     */
    @Override
    public void close() {
        try {
            if (process.isAlive()) {
                send("STOP");
                closeQuietly();
                if (!process.waitFor(500, TimeUnit.MILLISECONDS)) {
                    process.destroy();
                    if (!process.waitFor(500, TimeUnit.MILLISECONDS)) {
                        process.destroyForcibly();
                        process.waitFor(10, TimeUnit.SECONDS);
                    }
                }
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        } finally {
            closeQuietly();
            LIVE.remove(this);
        }
    }

    /** Kills at once, without the polite steps (for a shutdown hook or a hurry). */
    void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        LIVE.remove(this);
    }

    private void closeQuietly() {
        try {
            stdin.close();
        } catch (IOException e) {
            // gone already
        }
    }

    /** Kills every child this JVM started that is still alive. */
    public static void closeAll() {
        for (ChildProcess c : List.copyOf(LIVE)) {
            c.kill();
        }
    }

    /** How many children are alive (for tests). */
    public static int liveCount() {
        return (int) LIVE.stream().filter(ChildProcess::isAlive).count();
    }
}
