package dev.verbatim.bench.harness;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The JIT compilers' CPU time of child processes, which a suite's turns wait out. */
@Timeout(30)
class JitTimeTest {

    @AfterEach
    void noneLeft() {
        ChildProcess.closeAll();
        assertEquals(0, ChildProcess.liveCount());
    }

    private static void assumeProc() {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "no /proc here: JitTime reads -1 and nothing waits");
    }

    /** Where the warm-up's result goes (so the loop is not dead code). */
    static volatile long sink;

    private static long work(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            s += Long.rotateLeft(s ^ i, 7) * 31 + Integer.toString(i).length();
        }
        return s;
    }

    @Test
    void aProcessThatCompiledHasCompilerTime() {
        assumeProc();
        sink = work(2_000_000); // (makes the loop and what it calls hot: compiled by now)
        long t = JitTime.nanos(ProcessHandle.current().pid());
        assertTrue(t > 0, "this JVM compiled, yet its compiler threads took " + t + " ns");
    }

    @Test
    void onlyTheCompilerThreadsCount() throws Exception {
        assumeProc();
        // an interpreted JVM has no compiler threads: its other threads (main, GC, the VM's) count nothing
        ChildProcess c = ChildProcess.start("interpreted", List.of("-Xint"), ChildProcessTest.Hang.class.getName(),
                List.of("x"));
        c.awaitLine("HELLO", Duration.ofSeconds(20));
        assertEquals(0, JitTime.nanos(java.util.Arrays.asList(c, null)), "an interpreted JVM, and no process");
        ChildProcess compiled = ChildProcess.start("compiled", List.of(), ChildProcessTest.Hang.class.getName(), List.of("y"));
        compiled.awaitLine("HELLO", Duration.ofSeconds(20)); // (a JVM compiles as it starts)
        assertTrue(JitTime.nanos(List.of(compiled)) > 0, "the same child with its compilers took none");
    }

    @Test
    void quietIsLessCompilerTimeThanTheBoundOrUnknown() {
        assertTrue(JitTime.quiet(100, 109, 10));
        assertFalse(JitTime.quiet(100, 110, 10));
        assertTrue(JitTime.quiet(-1, 5_000, 10), "unknown before: nothing to wait for");
        assertTrue(JitTime.quiet(5, -1, 10), "unknown after: nothing to wait for");
    }
}
