package dev.verbatim.transport;

import dev.verbatim.transport.TransportException.Reason;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
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
    static Path dir;
    private static String previous;

    @BeforeAll
    static void privateDirectory() {
        Path base = Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm") : Path.of(System.getProperty("java.io.tmpdir"));
        dir = base.resolve("verbatim-test-" + ProcessHandle.current().pid());
        previous = System.setProperty("verbatim.shm.dir", dir.toString());
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
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
            if (previous == null) {
                System.clearProperty("verbatim.shm.dir");
            } else {
                System.setProperty("verbatim.shm.dir", previous);
            }
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
    void aSenderKeepsToTwoHotAreasWhileTheReceiverKeepsUp() throws Exception {
        // Eight 1 MiB areas: used in order, 2000 messages of 8 KiB land in ~1000 places across 8 MiB; kept
        // to the hot part of two alternating areas (Placement), in 2 * 128 KiB / 8 KiB = 32 or so.
        ConnectionOptions eight = ConnectionOptions.DEFAULT.withAreas(8, 1 << 20);
        Connection[] c = pair(eight, eight.withSendTimeout(java.time.Duration.ofMillis(300)));
        java.util.Set<Long> places = new java.util.HashSet<>();
        java.util.Set<Long> mebibytes = new java.util.HashSet<>();
        long first = -1;
        for (int i = 0; i < 2000; i++) {
            c[1].send(bytes(8192, i), 0, 8192);
            Delivery d = c[0].take(WAIT);
            assertNotNull(d, "message " + i);
            assertArrayEquals(bytes(8192, i), d.payload().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), "message " + i);
            long at = d.payload().address();
            first = first < 0 ? at : first;
            places.add(at);
            mebibytes.add(Math.floorDiv(at - first, 1L << 20));
            d.release();
        }
        assertTrue(places.size() <= 40, places.size() + " places for 2000 messages: the sender went through cold memory");
        assertTrue(mebibytes.size() <= 2, "messages spread over " + mebibytes.size() + " MiB of the window");
        // A receiver holding what it got: the sender leaves at most one area's tail unused, so nearly the
        // whole window (8 areas of 127 messages) fills before it waits; then every held message is intact.
        java.util.List<Delivery> held = new java.util.ArrayList<>();
        int sent = 0;
        try {
            while (sent < 2000) {
                c[1].send(bytes(8192, sent), 0, 8192);
                sent++;
                held.add(c[0].take(WAIT));
            }
        } catch (TransportException e) {
            assertEquals(Reason.TIMEOUT, e.reason());
        }
        assertTrue(sent >= 850, "only " + sent + " messages of 8 KiB held in an 8 MiB window");
        assertTrue(sent < 2000, "the window never filled");
        for (int i = 0; i < held.size(); i++) {
            assertArrayEquals(bytes(8192, i), held.get(i).payload().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), "held message " + i);
            held.get(i).release();
        }
        c[1].send(bytes(8192, 7), 0, 8192);
        Delivery after = c[0].take(WAIT);
        assertNotNull(after, "the sender goes on once the receiver released");
        assertArrayEquals(bytes(8192, 7), after.payload().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        after.release();
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
