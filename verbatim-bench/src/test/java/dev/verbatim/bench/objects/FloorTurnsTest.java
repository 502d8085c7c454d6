package dev.verbatim.bench.objects;

import dev.verbatim.bench.harness.Session;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The floor in the objects suite, both sides in one process: a pong per turn, gone with the turn. */
@Timeout(30)
class FloorTurnsTest {

    private static boolean pongRuns() {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.getName().equals("verbatim-bench-floor-pong") && t.isAlive());
    }

    private static void awaitNoPong() throws InterruptedException {
        for (int i = 0; i < 200 && pongRuns(); i++) {
            Thread.sleep(10);
        }
    }

    @Test
    void everyTurnEchoesOnAPongOfItsOwnThatEndsWithTheTurn(@TempDir Path dir) throws Exception {
        Session s = new Session(Session.properties(dir, 8, 0));
        FloorTurns.Pongs pongs = new FloorTurns.Pongs(s);
        FloorTurns.Ping ping = new FloorTurns.Ping(pongs, s);
        for (int turn = 1; turn <= 2; turn++) {
            ping.beginTurn();
            assertTrue(pongRuns(), "turn " + turn + ": its pong runs");
            for (long seq = 1; seq <= 1000; seq++) {
                assertEquals(0, ping.call(seq), "the echo is the sequence number sent");
            }
            ping.endTurn();
            awaitNoPong();
            assertFalse(pongRuns(), "turn " + turn + ": its pong ended with it (nothing spins between turns)");
        }
        assertFalse(Files.exists(dir.resolve("floor-1")), "the first turn's file went when the second began");
        assertTrue(Files.exists(dir.resolve("floor-2")));
    }
}
