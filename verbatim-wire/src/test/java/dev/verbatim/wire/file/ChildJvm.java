package dev.verbatim.wire.file;


import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Starts a child JVM on the test class path running {@link FileChild}, always with a hard timeout. */
final class ChildJvm {
    private ChildJvm() {}

    private static List<String> command(String... args) {
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> cmd = new ArrayList<>(List.of(java, "-Xshare:auto", "-XX:TieredStopAtLevel=1",
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), FileChild.class.getName()));
        cmd.addAll(List.of(args));
        return cmd;
    }

    /** Starts a child whose output (stdout and stderr) goes to {@code out}; the caller must kill or wait for it. */
    static Process start(Path out, String... args) throws IOException {
        return new ProcessBuilder(command(args)).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    }

    /** Runs a child to completion, killed after {@code seconds}, and returns its output; fails on a non-zero exit. */
    static String run(Path dir, long seconds, String... args) throws IOException, InterruptedException {
        Path out = Files.createTempFile(dir, "child-", ".out");
        Process p = start(out, args);
        try {
            if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
                throw new AssertionError("child " + List.of(args) + " did not finish in " + seconds + " s");
            }
            String text = Files.readString(out, StandardCharsets.UTF_8);
            if (p.exitValue() != 0) throw new AssertionError("child " + List.of(args) + " exited " + p.exitValue() + ":\n" + text);
            return text.strip();
        } finally {
            kill(p);
            Files.deleteIfExists(out);
        }
    }

    /** Kills a child (SIGKILL: no shutdown hooks, as a crash) and waits for it to be gone. */
    static void kill(Process p) throws InterruptedException {
        p.destroyForcibly();
        if (!p.waitFor(20, TimeUnit.SECONDS)) throw new AssertionError("child " + p.pid() + " did not die");
    }
}
