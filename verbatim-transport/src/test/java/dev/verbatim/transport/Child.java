package dev.verbatim.transport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** A {@link TransportPeer} in its own JVM, killed on close whatever state it is in. */
final class Child implements AutoCloseable {
    final Process process;
    private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final StringBuilder all = new StringBuilder();

    Child(String... args) throws IOException {
        this(List.of(), args);
    }

    /** A child started under {@code prefix} (for example {@code ip netns exec NS}). */
    Child(List<String> prefix, String... args) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(prefix);
        command.addAll(List.of(java, "--enable-native-access=ALL-UNNAMED", "-Xmx256m",
                "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path")));
        String dir = System.getProperty("verbatim.shm.dir");
        if (dir != null) {
            command.add("-Dverbatim.shm.dir=" + dir);
        }
        String tls = System.getProperty(TransportPeer.TLS_PROPERTY);
        if (tls != null) {
            command.add("-D" + TransportPeer.TLS_PROPERTY + "=" + tls);
        }
        command.add(TransportPeer.class.getName());
        command.addAll(List.of(args));
        process = new ProcessBuilder(command).redirectErrorStream(true).start();
        Thread reader = Thread.ofPlatform().daemon().name("child-output").start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    synchronized (all) {
                        all.append(line).append('\n');
                    }
                    lines.add(line);
                }
            } catch (IOException ignored) {
                // the process ended
            }
        });
        reader.setUncaughtExceptionHandler((t, e) -> { });
    }

    /** The next line the child prints that starts with one of the prefixes (waits up to the timeout). */
    String await(long seconds, String... prefixes) throws InterruptedException {
        return await(seconds, "none of " + List.of(prefixes), line -> {
            for (String p : prefixes) {
                if (line.startsWith(p)) {
                    return true;
                }
            }
            return false;
        });
    }

    /** The next line the child prints that {@code wanted} accepts ({@code what} names it in the failure). */
    String await(long seconds, String what, Predicate<String> wanted) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (true) {
            long left = deadline - System.nanoTime();
            String line = left <= 0 ? null : lines.poll(left, TimeUnit.NANOSECONDS);
            if (line == null) {
                throw new AssertionError("the child printed " + what + " within " + seconds + " s; its output:\n"
                        + output());
            }
            if (wanted.test(line)) {
                return line;
            }
        }
    }

    String output() {
        synchronized (all) {
            return all.toString();
        }
    }

    int exit(long seconds) throws InterruptedException {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            throw new AssertionError("the child did not exit within " + seconds + " s; its output:\n" + output());
        }
        return process.exitValue();
    }

    /** SIGKILL, as a crash. */
    void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            kill();
        }
    }
}
