package dev.verbatim.transport;

import dev.verbatim.transport.TransportException.Reason;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ShmConnectionTest extends ConnectionContract {
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static ShmTestDirectory shmDirectory;
    static Path dir;

    @BeforeAll
    static void privateDirectory() {
        shmDirectory = ShmTestDirectory.install("verbatim-test-" + ProcessHandle.current().pid());
        dir = shmDirectory.path();
    }

    @AfterAll
    static void nothingLeftBehind() throws Exception {
        try {
            assertNoVerbatimThreads();
            try (Stream<Path> files = Files.list(dir)) {
                List<Path> left = files.toList();
                assertTrue(left.isEmpty(), "files left after every listener and connection closed: " + left);
            }
        } finally {
            shmDirectory.remove();
        }
    }

    @Override
    String listenAddress() {
        return "shm:t" + NAMES.incrementAndGet();
    }

    @Override
    AutoCloseable silentConnector(Listener l) throws Exception {
        String name = l.address().substring(4);
        java.nio.channels.SocketChannel ch = java.nio.channels.SocketChannel.open(java.net.StandardProtocolFamily.UNIX);
        ch.connect(java.net.UnixDomainSocketAddress.of(dir.resolve(name + ".sock")));
        return ch;
    }

    /** The secret is a tcp matter: shm is reachable only by the same user, whatever either side set. */
    @Test
    void answeredLargeMessagesWithOverlongClaimsArriveIntactAroundASmallWindow() throws Exception {
        // Request and response: the sender warms the lines after each large message while it waits. Claims that
        // write more than they commit leave bytes beyond the message; warming must never count those as known
        // zero, or a later record's header slot would keep them and the receiver would take them for a record.
        ConnectionOptions small = ConnectionOptions.DEFAULT.withAreas(2, 64 * 1024);
        Connection[] c = pair(small, small);
        java.util.Random random = new java.util.Random(42);
        for (int i = 0; i < 3000; i++) {
            int n = random.nextBoolean() ? random.nextInt(200) : 1024 + random.nextInt(12 * 1024); // small after large too
            int extra = random.nextInt(3) == 0 ? 1 + random.nextInt(4096) : 0;
            Claim claim = c[1].claim(Math.min(n + extra, c[1].maxMessageLength()));
            claim.segment().fill((byte) 0x7F); // what lies beyond the message: a record's look-alike
            claim.segment().copyFrom(java.lang.foreign.MemorySegment.ofArray(bytes(n, i)));
            claim.commit(n);
            byte[] got = c[0].receive(WAIT);
            assertArrayEquals(bytes(n, i), got, "message " + i + " of " + n + " bytes");
            c[0].send(bytes(8, i), 0, 8);
            assertArrayEquals(bytes(8, i), c[1].receive(WAIT), "answer " + i);
        }
    }

    @Test
    void aSharedSecretDoesNotChangeShm() throws Exception {
        ConnectionOptions secret = ConnectionOptions.DEFAULT.withSharedSecret(new byte[32]);
        for (Connection[] c : List.of(pair(secret, ConnectionOptions.DEFAULT), pair(ConnectionOptions.DEFAULT, secret))) {
            c[1].send(new byte[] {9}, 0, 1);
            assertArrayEquals(new byte[] {9}, c[0].receive(WAIT));
        }
    }

    @Test
    void windowFilesAreUnlinkedOnceMappedAndTheDirectoryIsOwnerOnly() throws Exception {
        Connection[] c = pair();
        c[1].send(new byte[] {1}, 0, 1);
        assertNotNull(c[0].receive(WAIT));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
        try (Stream<Path> files = Files.list(dir)) {
            List<String> names = files.map(p -> p.getFileName().toString()).toList();
            assertTrue(names.stream().noneMatch(n -> n.endsWith(".area")), "window files were unlinked: " + names);
            assertTrue(names.stream().anyMatch(n -> n.endsWith(".sock")), "the listener's socket is there: " + names);
        }
    }

    @Test
    void windowFilesOfDeadProcessesAreSwept() throws Exception {
        Process p = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"), "-version").start();
        p.getInputStream().readAllBytes();
        p.getErrorStream().readAllBytes();
        p.waitFor();
        Files.createDirectories(dir);
        Path stale = dir.resolve("old." + p.pid() + ".7.area");
        Path live = dir.resolve("old." + ProcessHandle.current().pid() + ".999999.area");
        Files.write(stale, new byte[10]);
        Files.write(live, new byte[10]);
        try {
            listen(ConnectionOptions.DEFAULT);
            assertFalse(Files.exists(stale), "the file of a dead process was removed");
            assertTrue(Files.exists(live), "the file of a live process was kept");
        } finally {
            Files.deleteIfExists(live);
        }
    }

    @Test
    void aCrashedListenersSocketIsReplacedAndALiveOneIsNot() throws Exception {
        String name = "crash" + NAMES.incrementAndGet();
        try (Child child = new Child("listen", "shm:" + name)) {
            child.await(30, "READY");
            TransportException e = assertThrows(TransportException.class, () -> Transport.listen("shm:" + name));
            assertEquals(Reason.CONNECT, e.reason(), "a live listener keeps its name");
            child.kill();
            assertTrue(Files.exists(dir.resolve(name + ".sock")), "kill -9 left the socket file");
        }
        Listener l = closing(Transport.listen("shm:" + name));
        var connector = java.util.concurrent.CompletableFuture.supplyAsync(() -> Transport.connect(l.address()));
        assertNotNull(closing(l.accept(WAIT)));
        assertTrue(closing(connector.get()).isOpen());
    }

    @Test
    void connectingToNobodyFailsClearly() {
        TransportException e = assertThrows(TransportException.class, () -> Transport.connect("shm:nobody-here"));
        assertEquals(Reason.CONNECT, e.reason());
        assertTrue(e.getMessage().contains("no listener at shm:nobody-here"), e.getMessage());
    }

    @Test
    void badNamesAreRefused() {
        for (String bad : List.of("shm:", "shm:../x", "shm:a/b", "shm:.hidden", "shm:" + "x".repeat(65), "shm:sp ace")) {
            assertThrows(IllegalArgumentException.class, () -> Transport.listen(bad), bad);
        }
    }

    @Test
    void theWatchdogThreadStopsWhenTheLastConnectionCloses() throws Exception {
        Connection[] c = pair();
        assertTrue(Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals("verbatim-shm-watchdog")));
        closeAll();
        assertNoVerbatimThreads();
        assertEquals(2, c.length);
    }

    static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // test cleanup
        }
    }
}
