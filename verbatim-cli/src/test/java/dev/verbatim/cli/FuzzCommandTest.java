package dev.verbatim.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.*;

/** {@code verbatim fuzz}: the front of the fuzz module's campaign (the campaign itself is tested in verbatim-fuzz). */
class FuzzCommandTest {
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void theCommandLineRunsACampaignAndReplaysOneIteration(@TempDir Path dir) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(buf, true, StandardCharsets.UTF_8);
        int code = FuzzCommand.run(new String[] {"--iterations", "2000", "--seed", "7", "--out", dir.toString()}, out);
        String text = buf.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("seed 7: 2000 iterations"), text);
        assertTrue(text.contains("rejected by rule:"), text);
        // The exit code follows the failures (this test is about the command, the big campaign about the format).
        assertEquals(text.contains("failures: 0") ? 0 : 1, code, text);
        buf.reset();
        FuzzCommand.run(new String[] {"--seed", "7", "--replay", "123"}, out);
        String replay = buf.toString(StandardCharsets.UTF_8);
        assertTrue(replay.contains("seed 7, iteration 123"), replay);
        assertTrue(replay.contains("rejected: ") || replay.contains("outcome: ") || replay.contains("FAILED"), replay);
        buf.reset();
        assertEquals(2, FuzzCommand.run(new String[] {"--bogus"}, out));
        assertEquals(2, FuzzCommand.run(new String[] {"--seconds", "x"}, out));
    }
}
