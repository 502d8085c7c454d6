package dev.verbatim.bench.harness;

import dev.verbatim.bench.transport.Peer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The child runner: protocol lines, and no child survives a timeout, a failure or its parent's stdin. */
@Timeout(20)
class ChildProcessTest {

    /** A child that says hello on the protocol, then hangs (ignoring STOP and end of stdin). */
    public static final class Hang {
        public static void main(String[] args) throws Exception {
            System.out.println("some library chatter");
            System.out.println(ChildProcess.PREFIX + "HELLO " + args[0]);
            System.out.flush();
            Thread.sleep(600_000);
        }
    }

    /** A child that fails. */
    public static final class Fail {
        public static void main(String[] args) {
            System.err.println("about to fail: " + args[0]);
            System.exit(7);
        }
    }

    @AfterEach
    void noneLeft() {
        ChildProcess.closeAll();
        assertEquals(0, ChildProcess.liveCount());
    }

    private static void assertGone(ChildProcess c) {
        assertFalse(c.isAlive(), c.label() + " still alive");
        assertFalse(ProcessHandle.of(c.process().pid()).map(ProcessHandle::isAlive).orElse(false),
                c.label() + " (pid " + c.process().pid() + ") still alive");
    }

    @Test
    void aTimeoutKillsTheChild() throws Exception {
        ChildProcess c = ChildProcess.start("hang", List.of(), Hang.class.getName(), List.of("x"));
        List<String> hello = c.awaitLine("HELLO", Duration.ofSeconds(15));
        assertEquals(List.of("HELLO x"), hello);
        assertTrue(c.isAlive());
        ChildProcess.ChildFailure f = assertThrows(ChildProcess.ChildFailure.class,
                () -> c.awaitLine("READY", Duration.ofMillis(300)));
        assertTrue(f.getMessage().contains("no 'READY' within 300 ms"), f.getMessage());
        assertTrue(f.getMessage().contains("some library chatter"), f.getMessage()); // the log tail
        assertGone(c);
    }

    @Test
    void aChildThatExitsIsReportedWithItsOutput() throws Exception {
        ChildProcess c = ChildProcess.start("fail", List.of(), Fail.class.getName(), List.of("because"));
        ChildProcess.ChildFailure f = assertThrows(ChildProcess.ChildFailure.class,
                () -> c.awaitLine("READY", Duration.ofSeconds(15)));
        assertTrue(f.getMessage().contains("exited with code 7"), f.getMessage());
        assertTrue(f.getMessage().contains("about to fail: because"), f.getMessage());
        assertGone(c);
    }

    @Test
    void closeAndCloseAllKillAChildThatIgnoresStop() throws Exception {
        ChildProcess a = ChildProcess.start("hang-a", List.of(), Hang.class.getName(), List.of("a"));
        ChildProcess b = ChildProcess.start("hang-b", List.of(), Hang.class.getName(), List.of("b"));
        a.awaitLine("HELLO", Duration.ofSeconds(15));
        b.awaitLine("HELLO", Duration.ofSeconds(15));
        a.close();
        assertGone(a);
        assertTrue(b.isAlive());
        ChildProcess.closeAll();
        assertGone(b);
    }

    @Test
    void aPeerExitsWhenItsStdinCloses() throws Exception {
        // a floor pong waits for a ping that never comes; the end of its stdin (its parent gone) ends it
        var dir = ScratchDir.privateDir();
        try {
            var props = Session.properties(dir, 64, 60_000);
            ChildProcess pong = ChildProcess.start("pong", List.of(), Peer.class.getName(),
                    ChildMain.args("pong", "shm/floor", props));
            pong.awaitLine("READY", Duration.ofSeconds(15));
            pong.process().getOutputStream().close();
            assertTrue(pong.awaitExit(Duration.ofSeconds(10)), "the peer outlived its stdin");
            assertGone(pong);
            pong.close();
        } finally {
            ScratchDir.deleteTree(dir);
        }
    }
}
