package dev.verbatim.transport;

import dev.verbatim.transport.internal.ShmDirectory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The shm directory on a shared host, where another user can create {@code /dev/shm/verbatim-...} first. Each
 * child runs in a mount namespace of its own with a private, empty {@code /dev/shm} in which "another user"
 * (uid 65534) already made the directories this user would use; needs root ({@code unshare}, {@code mount}) and
 * is skipped with a message otherwise. Nothing of the host's {@code /dev/shm} is touched.
 */
@Timeout(120)
class ShmDirectoryTest {
    @TempDir
    Path tmp;

    /** Runs {@link ShmDirectoryChild} in its own mount namespace; returns its last line. */
    private String runChild(Map<String, String> env) throws IOException, InterruptedException {
        Assumptions.assumeTrue(isRoot(), "skipped: needs root to unshare a mount namespace with a private /dev/shm");
        String java = ProcessHandle.current().info().command().orElse("java");
        String user = System.getProperty("user.name");
        String setup = "mount -t tmpfs -o size=16m,mode=1777 tmpfs /dev/shm"
                + " && mkdir -m 0777 /dev/shm/verbatim-" + user + " /dev/shm/verbatim-" + uid()
                + " && chown 65534:65534 /dev/shm/verbatim-" + user + " /dev/shm/verbatim-" + uid()
                + " && exec \"$@\"";
        List<String> cmd = new ArrayList<>(List.of("unshare", "--mount", "--propagation", "private", "sh", "-c", setup, "sh",
                java, "--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                ShmDirectoryChild.class.getName()));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().remove("XDG_RUNTIME_DIR");
        pb.environment().putAll(env);
        Process p = pb.start();
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS)) fail("the child did not finish in 60 s");
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            Assumptions.assumeFalse(out.startsWith("unshare:") || out.contains("mount: "), "skipped: cannot unshare or mount here: " + out);
            String[] lines = out.split("\n");
            return lines[lines.length - 1];
        } finally {
            p.destroyForcibly();
            p.waitFor(20, TimeUnit.SECONDS);
        }
    }

    private static boolean isRoot() {
        try {
            return uid() == 0;
        } catch (IOException e) {
            return false;
        }
    }

    private static int uid() throws IOException {
        return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
    }

    @Test
    void aDirectoryAnotherUserCreatedInDevShmDoesNotStopAUserWithARuntimeDirectory() throws Exception {
        Path runtime = Files.createDirectory(tmp.resolve("run-user"), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwx------")));
        String line = runChild(Map.of("XDG_RUNTIME_DIR", runtime.toString()));
        assertEquals("OK " + runtime.resolve("verbatim"), line);
        try (var left = Files.list(runtime.resolve("verbatim"))) {
            assertEquals(List.of(), left.toList(), "nothing left behind");
        }
    }

    @Test
    void withoutARuntimeDirectoryItIsRefusedNamingTheOwnerAndTheWaysOut() throws Exception {
        String line = runChild(Map.of());
        assertTrue(line.startsWith("FAIL IO: "), line);
        assertTrue(line.contains("/dev/shm/verbatim-") && line.contains("another user created it first")
                && line.contains("XDG_RUNTIME_DIR") && line.contains("verbatim.shm.dir"), line);
    }

    @Test
    void aRuntimeDirectoryOthersCanEnterIsNotUsed() throws Exception {
        Path runtime = Files.createDirectory(tmp.resolve("run-open"));
        Files.setPosixFilePermissions(runtime, PosixFilePermissions.fromString("rwxr-xr-x"));
        String line = runChild(Map.of("XDG_RUNTIME_DIR", runtime.toString()));
        assertTrue(line.startsWith("FAIL IO: ") && line.contains("another user created it first"), line);
        assertFalse(Files.exists(runtime.resolve("verbatim")));
    }

    @Test
    void theConfiguredDirectoryComesFirstAndIsTheOnlyCandidate() throws Exception {
        String before = System.getProperty("verbatim.shm.dir");
        Path own = tmp.resolve("own");
        System.setProperty("verbatim.shm.dir", own.toString());
        try {
            assertEquals(own, ShmDirectory.directory());
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(own)));
            assertEquals(own, ShmDirectory.forConnect("anything"));
        } finally {
            if (before == null) System.clearProperty("verbatim.shm.dir"); else System.setProperty("verbatim.shm.dir", before);
        }
    }
}
