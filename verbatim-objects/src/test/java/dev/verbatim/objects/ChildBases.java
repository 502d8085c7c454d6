package dev.verbatim.objects;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bases in child JVMs ({@link ObjectsPeer}) for the tests that cross processes, as a JUnit extension (a
 * static {@code @RegisterExtension} field): a private shm directory per test class (a killed base's listener
 * files go with it), children started and killed with -9, and every child destroyed when each test ends.
 */
final class ChildBases implements BeforeAllCallback, AfterAllCallback, AfterEachCallback {
    private static final AtomicInteger N = new AtomicInteger();
    private Path shmDir;
    private String previousShmDir;
    private final List<Process> children = new ArrayList<>();

    /** A child base: its process, id and address. */
    record Child(Process process, BaseId id, String address) {}

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        ownShmDirectory();
    }

    @Override
    public void afterEach(ExtensionContext context) throws InterruptedException {
        stopAll();
    }

    @Override
    public void afterAll(ExtensionContext context) throws IOException {
        removeShmDirectory();
    }

    /** Before the class: its own shm directory, for it and its children. */
    void ownShmDirectory() throws IOException {
        Path base = Path.of("/dev/shm");
        shmDir = Files.createTempDirectory(Files.isWritable(base) ? base : Path.of(System.getProperty("java.io.tmpdir")),
                "verbatim-objp-", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        previousShmDir = System.setProperty("verbatim.shm.dir", shmDir.toString());
    }

    /** After the class: the directory goes. */
    void removeShmDirectory() throws IOException {
        if (previousShmDir == null) {
            System.clearProperty("verbatim.shm.dir");
        } else {
            System.setProperty("verbatim.shm.dir", previousShmDir);
        }
        try (var files = Files.list(shmDir)) {
            for (Path f : files.toList()) {
                Files.deleteIfExists(f);
            }
        }
        Files.deleteIfExists(shmDir);
    }

    /** A fresh address on {@code transport} ("shm" or "tcp"). */
    static String address(String transport) {
        return transport.equals("shm") ? "shm:objp-" + ProcessHandle.current().pid() + "-" + N.incrementAndGet() : "tcp://127.0.0.1:0";
    }

    /** A child base listening at {@code address}, once it said it is ready. */
    Child start(String address) throws Exception {
        return start(address, List.of());
    }

    /** A child base listening at {@code address}, started by {@code prefix} (e.g. {@code ip netns exec NS}). */
    Child start(String address, List<String> prefix) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(prefix);
        command.addAll(List.of(java, "--enable-native-access=ALL-UNNAMED", "-Xmx256m",
                "-Dverbatim.shm.dir=" + System.getProperty("verbatim.shm.dir"),
                "-cp", System.getProperty("java.class.path"), ObjectsPeer.class.getName(), address));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        children.add(p);
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = CompletableFuture.supplyAsync(() -> {
            try {
                for (String l; (l = r.readLine()) != null; ) {
                    if (l.startsWith("READY ")) {
                        return l;
                    }
                }
                return null;
            } catch (IOException e) {
                return null;
            }
        }).get(150, TimeUnit.SECONDS); // a loaded host starts a JVM slowly
        assertNotNull(line, "the child base started");
        String[] f = line.split(" ");
        return new Child(p, new BaseId(Long.parseLong(f[1])), f[2]);
    }

    /** Kills {@code c} with SIGKILL and waits for it. */
    static void kill(Child c) throws InterruptedException {
        c.process().destroyForcibly();
        assertTrue(c.process().waitFor(10, TimeUnit.SECONDS));
    }

    /** After each test: every child is destroyed. */
    void stopAll() throws InterruptedException {
        for (Process p : children) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
        children.clear();
    }
}
