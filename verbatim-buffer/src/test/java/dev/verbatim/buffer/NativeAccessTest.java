package dev.verbatim.buffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which buffers need native access: unpooled heap, off-heap and mapped buffers call no restricted
 * method (they work where the JDK denies native access, and print no warning where it only warns),
 * and an off-heap pool is the one part that does. Each case runs {@link NativeAccessChild} in a
 * child JVM with the flags under test.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class NativeAccessTest {

    /** The longest a child JVM may take (the machine may be busy). */
    private static final long CHILD_SECONDS = 120;

    @TempDir
    Path dir;

    /** A finished child: its exit status and everything it printed (stdout and stderr). */
    private record Run(int status, String output) {
        List<String> warnings() {
            return output.lines().filter(l -> l.startsWith("WARNING")).toList();
        }
    }

    /** Runs {@link NativeAccessChild} with {@code flags} on this JVM's class path, killed after a timeout. */
    private Run child(List<String> flags, String... args) throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = new ArrayList<>(List.of(java, "-Xmx128m", "-XX:TieredStopAtLevel=1"));
        command.addAll(flags);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), NativeAccessChild.class.getName()));
        command.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "child-", ".out");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        try {
            if (!p.waitFor(CHILD_SECONDS, TimeUnit.SECONDS)) {
                throw new AssertionError(command + " did not finish in " + CHILD_SECONDS + " s:\n" + Files.readString(out));
            }
            return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
        } finally {
            p.destroyForcibly();
            p.waitFor(20, TimeUnit.SECONDS);
        }
    }

    @Test
    void unpooledOffHeapAndMappedBuffersWorkWhereNativeAccessIsDenied() throws Exception {
        Run run = child(List.of("--illegal-native-access=deny"), "unpooled", dir.toString());
        assertEquals(0, run.status(), run::output);
        assertTrue(run.output().contains("unpooled ok"), run::output);
    }

    @Test
    void unpooledOffHeapAndMappedBuffersPrintNoNativeAccessWarning() throws Exception {
        Run run = child(List.of(), "unpooled", dir.toString());
        assertEquals(0, run.status(), run::output);
        assertEquals(List.of(), run.warnings(), run::output);
    }

    @Test
    void anOffHeapPoolIsThePartThatNeedsNativeAccess() throws Exception {
        Run denied = child(List.of("--illegal-native-access=deny"), "pool");
        assertNotEquals(0, denied.status(), denied::output);
        assertTrue(denied.output().contains("IllegalCallerException"), denied::output);

        Run granted = child(List.of("--illegal-native-access=deny", "--enable-native-access=ALL-UNNAMED"), "pool");
        assertEquals(0, granted.status(), granted::output);
        assertTrue(granted.output().contains("pool ok"), granted::output);
        assertEquals(List.of(), granted.warnings(), granted::output);
    }
}
