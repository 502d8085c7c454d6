package dev.verbatim.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code ./verbatim demo} is the main job: it must run every step green, over both transports. */
class DemoTest {

    private static String run(String... args) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int code;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            code = DemoCommand.run(args, out);
        }
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, text);
        return text;
    }

    @Test
    @Timeout(120)
    void theDemoPassesEveryStepOverShm() throws Exception {
        String out = run();
        for (int step = 1; step <= 7; step++) {
            assertTrue(out.contains("  ok    " + step + "."), "step " + step + " passed:\n" + out);
        }
        assertTrue(out.contains("all steps passed"), out);
        assertTrue(!out.contains("FAIL"), out);
    }

    @Test
    @Timeout(120)
    void theDemoPassesOverTcp() throws Exception {
        String out = run("--transport", "tcp");
        assertTrue(out.contains("all steps passed") && out.contains("over tcp"), out);
    }

    @Test
    @Timeout(60)
    void theWireTourStillRuns() throws Exception {
        String out = run("--wire");
        assertTrue(out.contains("Verbatim wire-format tour"), out);
    }
}
