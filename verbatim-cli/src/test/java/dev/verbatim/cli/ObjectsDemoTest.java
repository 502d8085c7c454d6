package dev.verbatim.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code ./verbatim demo --objects}: three base processes, every step green, nothing left running. */
class ObjectsDemoTest {

    @Test
    @Timeout(180)
    void theObjectsDemoPassesEveryStepWithThreeBaseProcesses() throws Exception {
        long childrenBefore = ProcessHandle.current().children().count();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int code;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            code = DemoCommand.run(new String[] {"--objects"}, out);
        }
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, text);
        for (int step = 1; step <= 9; step++) {
            assertTrue(text.contains("  ok    " + step + "."), "step " + step + " passed:\n" + text);
        }
        assertTrue(text.contains("all steps passed"), text);
        assertFalse(text.contains("FAIL"), text);
        assertEquals(childrenBefore, ProcessHandle.current().children().filter(ProcessHandle::isAlive).count(),
                "the base processes are gone");
    }
}
