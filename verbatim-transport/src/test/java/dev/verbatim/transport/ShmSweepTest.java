package dev.verbatim.transport;

import dev.verbatim.transport.TransportException.Reason;
import dev.verbatim.transport.internal.Rejections;
import dev.verbatim.transport.internal.ShmDirectory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shm names' lock files: a listener killed with SIGKILL leaves {@code NAME.sock} and
 * {@code NAME.lock}, and a sweep (which every listen and connect runs) removes them by finding the
 * lock free, without connecting; a live listener's files survive sweeps from any process and no
 * sweep shows it a connector; one listener owns a name at a time, also while listeners and sweepers
 * race. Each test has a shm directory of its own, removed after it.
 */
@Timeout(60)
class ShmSweepTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private ShmTestDirectory shmDirectory;
    private Path dir;

    @BeforeEach
    void privateDirectory() {
        shmDirectory = ShmTestDirectory.install("verbatim-sweep-" + ProcessHandle.current().pid() + "-"
                + System.nanoTime() % 1_000_000);
        dir = shmDirectory.path();
        ShmDirectory.directory(); // created owner-only
    }

    @AfterEach
    void removeDirectory() throws IOException {
        shmDirectory.remove();
    }

    private List<String> files() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** The line a {@code race} or {@code sweep} child waits for. */
    private static void start(Child c) throws IOException {
        c.process.getOutputStream().write("go\n".getBytes(StandardCharsets.UTF_8));
        c.process.getOutputStream().flush();
    }

    private static void assertConnects(Listener l) throws Exception {
        CompletableFuture<Connection> connector = CompletableFuture.supplyAsync(() -> Transport.connect(l.address()));
        try (Connection accepted = l.accept(WAIT); Connection c = connector.get(10, TimeUnit.SECONDS)) {
            assertNotNull(accepted, "the connect reached " + l.address());
            c.send(new byte[] {7}, 0, 1);
            assertEquals(7, accepted.receive(WAIT)[0]);
        }
    }

    // ------------------------------------------------------------------ a dead listener's files go

    @Test
    void aSweepRemovesTheFilesOfAListenerKilledWithSigkill() throws Exception {
        try (Child child = new Child("listen", "shm:killed")) {
            child.await(30, "READY");
            assertEquals(List.of("killed.lock", "killed.sock"), files());
            child.kill();
            assertEquals(List.of("killed.lock", "killed.sock"), files(), "kill -9 left both files");
        }
        assertEquals(2, ShmDirectory.sweep(dir), "the sweep removed the socket and its lock file");
        assertEquals(List.of(), files());
    }

    @Test
    void theNextConnectToAnyNameSweepsAKilledListenersFiles() throws Exception {
        try (Child child = new Child("listen", "shm:killed")) {
            child.await(30, "READY");
            child.kill();
        }
        assertEquals(List.of("killed.lock", "killed.sock"), files());
        TransportException e = assertThrows(TransportException.class, () -> Transport.connect("shm:someone-else"));
        assertEquals(Reason.CONNECT, e.reason());
        assertEquals(List.of(), files(), "the connect's sweep removed the dead listener's files");
    }

    // ------------------------------------------------------------------ a live listener's files stay

    @Test
    void aLiveListenersFilesSurviveSweepsFromAnyProcessAndNoSweepConnects() throws Exception {
        long rejections = Rejections.count();
        try (Listener here = Transport.listen("shm:here");
             Child there = new Child("listen-report", "shm:there");
             Child sweeper = new Child("sweep", "-", "300")) {
            there.await(30, "READY");
            sweeper.await(30, "READY");
            List<String> live = List.of("here.lock", "here.sock", "there.lock", "there.sock");
            assertEquals(live, files());

            assertEquals(0, ShmDirectory.sweep(dir), "a sweep in this process");
            start(sweeper);
            assertTrue(sweeper.await(30, "OK", "FAIL").startsWith("OK swept"), sweeper.output());
            assertEquals(0, sweeper.exit(10));
            assertEquals(live, files(), "sweeps in this process and another left every live listener's files");

            assertNull(here.accept(Duration.ofMillis(200)), "no sweep connected to this process's listener");
            assertEquals(rejections, Rejections.count(), "no connector was dropped: " + Rejections.last());
            assertConnects(here);
            try (Connection c = Transport.connect("shm:there")) {
                assertTrue(c.isOpen());
            }
            there.await(10, "ACCEPTED 1");
            assertFalse(there.output().contains("REJECTED"), "no sweep connected to the other process's listener:\n"
                    + there.output());
        }
        assertEquals(List.of("there.lock", "there.sock"), files(), "this process's listener removed its files on close");
        assertEquals(2, ShmDirectory.sweep(dir), "the killed child's files");
        assertEquals(List.of(), files());
    }

    // ------------------------------------------------------------------ one listener per name

    @Test
    void aSecondListenAtALiveNameFailsAndTheNameIsFreeOnceTheFirstCloses() throws Exception {
        Listener first = Transport.listen("shm:taken");
        try {
            TransportException e = assertThrows(TransportException.class, () -> Transport.listen("shm:taken"));
            assertEquals(Reason.CONNECT, e.reason());
            assertTrue(e.getMessage().contains("shm:taken is already served by a live listener"), e.getMessage());
            // the refused listen must not have dropped the first one's lock (POSIX locks are per process): a sweep
            // from another process would then take its files
            try (Child sweeper = new Child("sweep", "-", "100")) {
                sweeper.await(30, "READY");
                start(sweeper);
                assertTrue(sweeper.await(30, "OK", "FAIL").startsWith("OK"), sweeper.output());
            }
            assertEquals(List.of("taken.lock", "taken.sock"), files());
            assertConnects(first);
        } finally {
            first.close();
        }
        assertEquals(List.of(), files(), "close removed the socket and the lock file");
        try (Listener second = Transport.listen("shm:taken")) {
            assertConnects(second);
        }
        assertEquals(List.of(), files());
    }

    @Test
    void aListenAtTheNameOfAListenerKilledWithSigkillWorks() throws Exception {
        try (Child child = new Child("listen", "shm:reborn")) {
            child.await(30, "READY");
            TransportException e = assertThrows(TransportException.class, () -> Transport.listen("shm:reborn"));
            assertEquals(Reason.CONNECT, e.reason(), "while it lives the name is its");
            child.kill();
        }
        assertEquals(List.of("reborn.lock", "reborn.sock"), files());
        try (Listener l = Transport.listen("shm:reborn")) {
            assertEquals(List.of("reborn.lock", "reborn.sock"), files());
            assertConnects(l);
        }
        assertEquals(List.of(), files());
    }

    @Test
    void listenersAndSweepersRacingAtOneNameNeverShareItNorLoseTheirFiles(@TempDir Path scratch) throws Exception {
        long millis = 1500;
        Path witness = scratch.resolve("owner");
        List<Child> children = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(3);
        try {
            children.add(new Child("race", "shm:contested", Long.toString(millis), witness.toString()));
            children.add(new Child("race", "shm:contested", Long.toString(millis), witness.toString()));
            children.add(new Child("sweep", "-", Long.toString(millis)));
            for (Child c : children) {
                c.await(30, "READY");
            }
            for (Child c : children) {
                start(c);
            }
            List<Future<String>> here = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                here.add(threads.submit(() -> TransportPeer.race("shm:contested", millis, witness)));
            }
            here.add(threads.submit(() -> TransportPeer.sweep(dir, millis)));
            List<String> results = new ArrayList<>();
            for (Future<String> f : here) {
                results.add("this process: " + f.get(30, TimeUnit.SECONDS));
            }
            for (Child c : children) {
                results.add("child: " + c.await(30, "OK", "FAIL"));
            }
            System.out.println("race at shm:contested: " + results);
            for (String r : results) {
                assertTrue(r.contains(": OK"), "every racer passed its checks: " + results);
            }
            long owned = results.stream().filter(r -> r.contains("owned"))
                    .mapToLong(r -> Long.parseLong(r.replaceAll(".*owned (\\d+).*", "$1"))).sum();
            assertTrue(owned >= 5, "the name changed hands: " + results); // 20-40 times on 2 CPUs
            assertFalse(Files.exists(witness));
        } finally {
            threads.shutdownNow();
            for (Child c : children) {
                c.close();
            }
        }
        assertEquals(List.of(), files(), "every listener closed and removed its files");
    }

    // ------------------------------------------------------------------ what the sweep leaves

    @Test
    void aSocketWithoutALockFileIsLeftToTheNextListenerAtItsName() throws Exception {
        // not made by this build (it binds only under the lock, and deletes the socket first): a live listener
        // of an older build, or a dead one; a sweep cannot tell without connecting, so it leaves both
        try (ServerSocketChannel old = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            old.bind(UnixDomainSocketAddress.of(dir.resolve("old-live.sock")));
            ServerSocketChannel dead = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            dead.bind(UnixDomainSocketAddress.of(dir.resolve("old-dead.sock")));
            dead.close(); // its file stays, as a crash leaves it
            assertEquals(0, ShmDirectory.sweep(dir));
            assertEquals(List.of("old-dead.sock", "old-live.sock"), files());
            try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                ch.connect(UnixDomainSocketAddress.of(dir.resolve("old-live.sock")));
            }
            try (Listener l = Transport.listen("shm:old-dead")) {
                assertConnects(l);
            }
            assertEquals(List.of("old-live.sock"), files());
        }
    }

    @Test
    void lockFilesWithoutAHolderGoAndOtherFilesStay() throws Exception {
        Files.createFile(dir.resolve("orphan.lock")); // an owner killed between deleting its socket and its lock file
        Files.createFile(dir.resolve("notes.txt"));
        Files.createFile(dir.resolve(".hidden.lock")); // not a name: names do not start with '.'
        Files.createFile(dir.resolve("bad name.lock"));
        Path target = Files.createFile(dir.resolve("target"));
        Files.createSymbolicLink(dir.resolve("link.lock"), target); // never followed
        assertEquals(1, ShmDirectory.sweep(dir));
        assertEquals(List.of(".hidden.lock", "bad name.lock", "link.lock", "notes.txt", "target"), files());
        assertTrue(Files.exists(target));
    }
}
