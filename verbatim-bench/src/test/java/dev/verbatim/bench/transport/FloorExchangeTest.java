package dev.verbatim.bench.transport;

import dev.verbatim.bench.harness.ChildMain;
import dev.verbatim.bench.harness.ChildProcess;
import dev.verbatim.bench.harness.ScratchDir;
import dev.verbatim.bench.harness.Session;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The baselines really exchange messages between two processes: the pong (or consumer) runs in a
 * child process, the ping (or producer) here; every echo is compared byte for byte. No timing.
 */
@Timeout(30)
class FloorExchangeTest {
    private static final int MAX = 1 << 16;
    private static final int[] SIZES = {8, 16, 40, 48, 49, 64, 100, 1000, 4096, 65536};

    @AfterEach
    void noneLeft() {
        ChildProcess.closeAll();
    }

    private static long exchange(String id, int perSize) throws Exception {
        Path base = ScratchDir.privateDir();
        try {
            assertEquals(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE,
                    PosixFilePermission.OWNER_EXECUTE), Files.getPosixFilePermissions(base));
            Path dir = ScratchDir.sessionDir(base, id);
            Map<String, String> props = Session.properties(dir, MAX, 60_000);
            PingPongContender c = Contenders.pingPong(id);
            long verified = 0;
            try (ChildProcess pong = ChildProcess.start("pong " + id, c.jvmFlags(), Peer.class.getName(),
                    ChildMain.args("pong", id, props))) {
                Map<String, String> session = new LinkedHashMap<>(props);
                session.putAll(ChildMain.props(pong.awaitLine("READY", Duration.ofSeconds(15)).getLast()));
                try (Arena arena = Arena.ofConfined();
                     PingPongContender.Ping ping = c.ping(new Session(session))) {
                    MemorySegment msg = arena.allocate(MAX);
                    MemorySegment reply = arena.allocate(MAX);
                    Loops.Sequence seq = new Loops.Sequence();
                    Random random = new Random(42);
                    for (int size : SIZES) {
                        verified += Loops.exchange(ping, msg, reply, size, perSize, seq, random);
                    }
                }
                pong.awaitLine("DONE", Duration.ofSeconds(10)); // the ping's close ended the pong
                assertTrue(pong.awaitExit(Duration.ofSeconds(10)));
                assertEquals(0, pong.process().exitValue());
            }
            return verified;
        } finally {
            ScratchDir.deleteTree(base);
            assertFalse(Files.exists(base), "session files left behind");
        }
    }

    @Test
    void aServingFloorsPingFailsAtOnceWhenTheServersWorkFailsOnAMessage() throws Exception {
        Path base = ScratchDir.privateDir();
        try {
            Map<String, String> props = new LinkedHashMap<>(Session.properties(ScratchDir.sessionDir(base, "shm/floor"),
                    MAX, 60_000));
            props.put(Session.REPLY_MAX, "8");
            Session session = new Session(props);
            try (PingPongContender.Pong pong = Contenders.servingFloor(session, (m, size) -> {
                        if (m.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0) == 13) {
                            throw new IllegalStateException("no 13s here");
                        }
                        return size;
                    });
                 Arena arena = Arena.ofShared();
                 PingPongContender.Ping ping = Contenders.pingPong("shm/floor").ping(session)) {
                MemorySegment msg = arena.allocate(MAX);
                MemorySegment reply = arena.allocate(MAX);
                Thread server = Thread.ofPlatform().start(() -> {
                    try {
                        while (pong.echo()) {
                            // serves until the work fails
                        }
                    } catch (Exception expected) {
                        // the failure the ping must learn of
                    }
                });
                ping.roundTrip(msg, reply, 100);
                assertEquals(100, reply.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0), "the work's word");
                msg.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0, 13);
                long start = System.nanoTime();
                java.io.IOException e = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
                        () -> ping.roundTrip(msg, reply, 100));
                assertTrue(e.getMessage().contains("failed on message 2"), e.getMessage());
                assertTrue(System.nanoTime() - start < 10_000_000_000L, "the ping waited for its give-up time");
                assertTrue(server.join(Duration.ofSeconds(5)), "the server's loop ended with its work's failure");
            }
        } finally {
            ScratchDir.deleteTree(base);
        }
    }

    @Test
    void shmFloorEchoesEveryMessage() throws Exception {
        assertEquals(SIZES.length * 500L, exchange("shm/floor", 500));
    }

    @Test
    void tcpFloorEchoesEveryMessage() throws Exception {
        assertEquals(SIZES.length * 200L, exchange("tcp/floor", 200));
    }

    @Test
    void shmFloorStreamDeliversEveryMessageInOrder() throws Exception {
        String id = "shm/floor";
        // odd sizes and a 1 MiB one: records of every alignment, padding at the ring's end, a full ring;
        // each size asked for twice, as the suite's turns do
        List<Plan.Bw> plan = List.of(new Plan.Bw(64, 2, 100, 10, 5_000, 2), new Plan.Bw(1000, 2, 10, 5, 3_000, 2),
                new Plan.Bw(65_531, 2, 5, 1, 200, 2), new Plan.Bw(1 << 20, 2, 2, 1, 20, 2));
        Path base = ScratchDir.privateDir();
        try {
            Path dir = ScratchDir.sessionDir(base, id);
            Map<String, String> props = Session.properties(dir, 1 << 20, 60_000);
            StreamContender c = Contenders.stream(id);
            try (ChildProcess consumer = ChildProcess.start("consumer", c.jvmFlags(), Peer.class.getName(),
                    ChildMain.args("consumer", id, props))) {
                Map<String, String> session = new LinkedHashMap<>(props);
                session.putAll(ChildMain.props(consumer.awaitLine("READY", Duration.ofSeconds(15)).getLast()));
                try (Arena arena = Arena.ofConfined();
                     StreamContender.Producer p = c.producer(new Session(session))) {
                    MemorySegment msg = arena.allocate(1 << 20);
                    Loops.Sequence seq = new Loops.Sequence();
                    int turns = 0;
                    for (Plan.Bw b : plan) {
                        for (int round = 0; round < b.rounds(); round++) {
                            long total = b.total(round);
                            consumer.send("BW " + b.size() + " " + (total - b.perBatch() * b.batches()) + " "
                                    + b.perBatch() + " " + b.batches());
                            Loops.produce(p, msg, b.size(), total, seq);
                            // the consumer checked every size and stamp of the turn
                            String line = consumer.awaitLine("BW", Duration.ofSeconds(20)).getLast();
                            assertEquals(Integer.toString(b.size()), ChildMain.props(line).get("size"), line);
                            turns++;
                        }
                    }
                    assertEquals(8, turns);
                    consumer.send("STOP");
                    consumer.awaitLine("DONE", Duration.ofSeconds(10));
                }
            }
        } finally {
            ScratchDir.deleteTree(base);
        }
    }
}
