package dev.verbatim.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The {@code ./verbatim} launcher's JDK probe ({@code java_major}): it must read the version of a JDK whatever
 * the environment makes the JVM print first.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LauncherTest {
    private static final Path LAUNCHER = Path.of("..", "verbatim").toAbsolutePath().normalize();

    /** What the launcher's {@code java_major} says of {@code home}, with {@code toolOptions} in JAVA_TOOL_OPTIONS (or none). */
    private static String javaMajor(String home, String toolOptions) throws IOException, InterruptedException {
        String script = "eval \"$(sed -n '/^java_major()/,/^}/p' \"$1\")\"; java_major \"$2\"";
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", script, "probe", LAUNCHER.toString(), home);
        pb.environment().remove("_JAVA_OPTIONS");
        if (toolOptions == null) {
            pb.environment().remove("JAVA_TOOL_OPTIONS");
        } else {
            pb.environment().put("JAVA_TOOL_OPTIONS", toolOptions);
        }
        Process p = pb.redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        return out;
    }

    @Test
    void theLauncherReadsTheJdkVersionWhenJavaToolOptionsAreSet() throws Exception {
        assertTrue(Files.isRegularFile(LAUNCHER), LAUNCHER.toString());
        String home = System.getProperty("java.home"); // a JDK (javac beside java): the one running the tests
        String major = Integer.toString(Runtime.version().feature());
        assertEquals(major, javaMajor(home, null));
        // the JVM prints "Picked up JAVA_TOOL_OPTIONS: ..." before its version: the probe must skip it
        assertEquals(major, javaMajor(home, "-Dverbatim.launcher.probe=1"));
    }

    @Test
    void theLauncherSaysNothingOfADirectoryThatHoldsNoJdk(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        assertEquals("", javaMajor(dir.toString(), null));
    }
}
