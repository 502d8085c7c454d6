package dev.verbatim.bench.transport;

import dev.verbatim.bench.harness.ChildProcess;
import dev.verbatim.bench.harness.Medium;
import dev.verbatim.bench.harness.ScratchDir;
import dev.verbatim.bench.harness.Session;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The suite's turns: contenders whose processes all stay up take turns (pongs paused and resumed,
 * consumers and producers commanded), every turn of every size comes back with checked messages, a
 * contender that fails is left out while the others go on, and nothing is left behind. No timing.
 */
@Timeout(180)
class TurnsTest {

    @AfterEach
    void noneLeft() {
        ChildProcess.closeAll();
        assertEquals(0, ChildProcess.liveCount());
    }

    /** A contender no child can find (its id is not in the registry): its first process fails. */
    private static final PingPongContender MISSING = new PingPongContender() {
        @Override
        public String name() {
            return "missing";
        }

        @Override
        public Medium medium() {
            return Medium.SHM;
        }

        @Override
        public Pong pong(Session session) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Ping ping(Session session) {
            throw new UnsupportedOperationException();
        }
    };

    @Test
    void roundTripContendersTakeTurns() throws Exception {
        List<Plan.Rtt> plan = List.of(new Plan.Rtt(8, 3, 100, 20, 30), new Plan.Rtt(4096, 2, 20, 10, 30));
        List<PingPongContender> contenders = List.of(Contenders.pingPong("shm/floor"), MISSING,
                Contenders.pingPong("shm/buffer"));
        Path base = ScratchDir.privateDir();
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        try {
            List<TransportBench.RttResult> rs = TransportBench.runPingPongs(contenders, plan, 0, base,
                    new PrintStream(log, true, StandardCharsets.UTF_8));
            assertEquals(3, rs.size());
            for (TransportBench.RttResult r : rs) {
                if (r.name().equals("missing")) {
                    assertNotNull(r.error());
                    assertTrue(r.bySize().isEmpty());
                    continue;
                }
                assertNull(r.error(), r.name() + ": " + log);
                for (Plan.Rtt p : plan) {
                    assertEquals(p.rounds(), r.bySize().get(p.size()).size(), r.name() + " turns of " + p.size());
                    r.bySize().get(p.size()).forEach(h -> assertTrue(h.count() > 0, r.name() + ": an empty turn"));
                }
            }
        } finally {
            ScratchDir.deleteTree(base);
        }
        assertFalse(Files.exists(base), "session files left behind");
    }

    @Test
    void streamContendersTakeTurns() throws Exception {
        List<Plan.Bw> plan = List.of(new Plan.Bw(64, 2, 2_000, 500, 1_000, 2), new Plan.Bw(65_536, 3, 40, 10, 20, 2));
        List<StreamContender> contenders = List.of(Contenders.stream("shm/floor"), Contenders.stream("shm/buffer"),
                Contenders.stream("shm/copy"));
        Path base = ScratchDir.privateDir();
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        try {
            List<TransportBench.BwResult> rs = TransportBench.runStreams(contenders, plan, base,
                    new PrintStream(log, true, StandardCharsets.UTF_8));
            assertEquals(3, rs.size());
            for (TransportBench.BwResult r : rs) {
                assertNull(r.error(), r.name() + ": " + log);
                for (Plan.Bw p : plan) {
                    List<double[]> turns = r.bySize().get(p.size());
                    assertEquals(p.rounds(), turns.size(), r.name() + " turns of " + p.size());
                    turns.forEach(t -> assertEquals(p.batches(), t.length));
                }
            }
        } finally {
            ScratchDir.deleteTree(base);
        }
        assertFalse(Files.exists(base), "session files left behind");
    }
}
