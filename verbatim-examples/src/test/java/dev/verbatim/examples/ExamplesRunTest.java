package dev.verbatim.examples;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The README's examples run as a user runs them: each in a JVM of its own on the class path, with the
 * flags the README names and no others, killed if it takes too long. What they print is checked, and
 * that the JVM printed no warning.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ExamplesRunTest {
    private static final String NATIVE = "--enable-native-access=ALL-UNNAMED";
    private static Path shmDir;

    @BeforeAll
    static void ownShmDirectory() throws IOException {
        Path base = Path.of("/dev/shm");
        shmDir = Files.createTempDirectory(Files.isWritable(base) ? base : Path.of(System.getProperty("java.io.tmpdir")), "vb-examples-");
    }

    @AfterAll
    static void removeShmDirectory() throws IOException {
        try (Stream<Path> files = Files.walk(shmDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Test
    void theWireExampleRunsWithoutNativeAccessAndWarnsOfNothing() throws Exception {
        String out = run(false, WireExample.class);
        assertEquals("XNAS: order 1 BUY ACME, 2 orders, last stamp 1700000000250\nmaterialized: true", out);
    }

    @Test
    void theFileExampleRunsTwiceAndTheSecondRunAppendsToTheLog(@TempDir Path dir) throws Exception {
        String first = run(false, FileExample.class, dir.toString());
        assertEquals("XNAS 42 1\nrecord 1: order 7 SELL", first);
        String second = run(false, FileExample.class, dir.toString());
        assertEquals("XNAS 42 1\nrecord 1: order 7 SELL\nrecord 2: order 7 SELL", second);
    }

    @Test
    void theConnectionExampleRunsOverSharedMemoryAndTcp() throws Exception {
        String expected = "order 42 ACME 100\nregion of 32768 bytes, then 3 bytes\necho: hello";
        assertEquals(expected, run(true, ConnectionExample.class, "shm:conn-example"));
        assertEquals(expected, run(true, ConnectionExample.class, "tcp://127.0.0.1:0"));
    }

    @Test
    void theTlsExampleCallsOverMutualTls() throws Exception {
        assertEquals("over TLS: Quote[symbol=ACME, bid=101.49, ask=101.51]", run(false, TlsExample.class));
    }

    @Test
    void theObjectsExampleConstructsOnAnotherBaseAndKeepsIdentity() throws Exception {
        assertEquals("remote: true, lives on the bank: true, same proxy: true, balance 150\n"
                + "booked as the same objects: true, balances 120 and 40", run(true, ObjectsExample.class));
    }

    @Test
    void theRpcServerServesUntilStoppedAndItsClientCallsIt() throws Exception {
        Path out = Files.createTempFile("rpc-server-", ".out");
        Process server = start(true, out, RpcServerExample.class, "shm:quotes-example");
        try {
            awaitLine(server, out, "serving at [shm:quotes-example]");
            String client = run(true, RpcClientExample.class, "shm:quotes-example");
            assertEquals("Quote[symbol=ACME, bid=101.49, ask=101.51], submitted\nprocessed 1", client);
            assertTrue(server.isAlive(), "the server's main must keep serving after the client is done");

            server.destroy(); // SIGTERM: the node's shutdown hook closes it
            assertTrue(server.waitFor(30, TimeUnit.SECONDS), "the server did not stop on SIGTERM");
            assertEquals(143, server.exitValue(), "exit status after SIGTERM");
            try (Stream<Path> left = Files.list(shmDir)) {
                assertEquals(List.of(), left.map(p -> p.getFileName().toString()).toList(),
                        "a node closed by its shutdown hook leaves no shm file");
            }
            assertNoWarning(Files.readString(out));
        } finally {
            server.destroyForcibly();
            server.waitFor(20, TimeUnit.SECONDS);
            Files.deleteIfExists(out);
        }
    }

    private static List<String> command(boolean nativeAccess, Class<?> main, String... args) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(java, "-XX:TieredStopAtLevel=1", "-Dverbatim.shm.dir=" + shmDir));
        if (nativeAccess) cmd.add(NATIVE);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        cmd.addAll(List.of(args));
        return cmd;
    }

    private static Process start(boolean nativeAccess, Path out, Class<?> main, String... args) throws IOException {
        return new ProcessBuilder(command(nativeAccess, main, args)).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    }

    /** Runs an example to its end (killed after 60 s) and returns what it printed; fails on a non-zero exit or a warning. */
    private static String run(boolean nativeAccess, Class<?> main, String... args) throws Exception {
        Path out = Files.createTempFile("example-", ".out");
        Process p = start(nativeAccess, out, main, args);
        try {
            boolean done = p.waitFor(60, TimeUnit.SECONDS);
            String text = Files.readString(out, StandardCharsets.UTF_8).strip();
            assertTrue(done, main.getSimpleName() + " did not finish in 60 s:\n" + text);
            assertEquals(0, p.exitValue(), main.getSimpleName() + " failed:\n" + text);
            assertNoWarning(text);
            return text;
        } finally {
            p.destroyForcibly();
            p.waitFor(20, TimeUnit.SECONDS);
            Files.deleteIfExists(out);
        }
    }

    private static void awaitLine(Process p, Path out, String line) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            String text = Files.readString(out);
            if (text.lines().anyMatch(line::equals)) return;
            assertTrue(p.isAlive(), "the server exited:\n" + text);
            Thread.sleep(20);
        }
        throw new AssertionError("no line '" + line + "' within 60 s:\n" + Files.readString(out));
    }

    private static void assertNoWarning(String output) {
        assertFalse(output.contains("WARNING"), "the JVM printed a warning:\n" + output);
    }
}
