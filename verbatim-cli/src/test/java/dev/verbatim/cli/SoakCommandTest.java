package dev.verbatim.cli;

import dev.verbatim.cli.soak.SoakCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code ./verbatim soak} for 20 seconds (issue 16 §6): calls are answered while every kind of fault is injected,
 * none is lost or wrong, the server's memory, threads and descriptors do not grow after warm-up, nothing is left in
 * the shm directory, and no client process outlives the run.
 */
class SoakCommandTest {

    @Test
    @Timeout(150)
    void aTwentySecondSoakLosesNothingAnswersRightAndLeavesNothingBehind() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int code;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            code = SoakCommand.run(new String[] {"--seconds", "20", "--clients", "2", "--threads", "4", "--json"}, out,
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        }
        String json = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, json);
        assertTrue(number(json, "answered") > 100, json);
        assertEquals(0, number(json, "lost"), json);
        assertEquals(0, number(json, "wrong"), json);
        assertTrue(json.contains("\"wrongSamples\":[]"), "the report names what was wrong, here nothing: " + json);
        for (String fault : new String[] {"KILL", "DROP", "SILENT", "GARBAGE", "MALFORMED"}) {
            assertTrue(number(json, fault) >= 1, fault + " injected: " + json);
        }
        assertTrue(number(json, "clientStarts") > 2, "killed clients were restarted: " + json);
        assertTrue(json.contains("\"growth\":[]"), json);
        assertTrue(json.contains("\"leftovers\":[]"), json);
        assertEquals(0, ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).count(),
                "a client process outlived the soak");
    }

    private static long number(String json, String key) {
        Matcher m = Pattern.compile("\"" + key + "\":(\\d+)").matcher(json);
        assertTrue(m.find(), key + " in " + json);
        return Long.parseLong(m.group(1));
    }
}
