package dev.verbatim.wire.file;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;

/**
 * A tmpfs of a few bytes mounted for one test, to see what a full device does; needs root (mount), and the test is
 * skipped with a message where it cannot be mounted. Unmounted on close.
 */
record SmallTmpfs(Path path) implements AutoCloseable {
    static SmallTmpfs mount(Path at, long bytes) throws IOException, InterruptedException {
        Files.createDirectories(at);
        String why;
        try {
            Process p = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=" + bytes + ",mode=0700", "tmpfs", at.toString())
                    .redirectErrorStream(true).start();
            boolean done = p.waitFor(20, TimeUnit.SECONDS);
            if (!done) p.destroyForcibly();
            String out = new String(p.getInputStream().readAllBytes()).strip();
            if (done && p.exitValue() == 0) return new SmallTmpfs(at);
            why = done ? "mount exited " + p.exitValue() + ": " + out : "mount hung";
        } catch (IOException e) {
            why = e.toString();
        }
        Assumptions.abort("skipped: cannot mount a small tmpfs at " + at + " (needs root): " + why);
        throw new AssertionError("unreachable");
    }

    /** Writes a file until the device has no room left. */
    void fill() throws IOException {
        byte[] block = new byte[4096];
        try (OutputStream out = Files.newOutputStream(path.resolve("filler"))) {
            while (true) out.write(block);
        } catch (IOException full) {
            // no space left: what we wanted
        }
    }

    @Override
    public void close() throws IOException {
        Process p = new ProcessBuilder("umount", "-l", path.toString()).redirectErrorStream(true).start();
        try {
            if (!p.waitFor(20, TimeUnit.SECONDS)) p.destroyForcibly();
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
