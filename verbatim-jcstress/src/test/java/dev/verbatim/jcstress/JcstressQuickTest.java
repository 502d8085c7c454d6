package dev.verbatim.jcstress;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The quick run of the jcstress tests, part of the suite: every test once, in one JVM configuration (the default
 * JIT, the interpreter and C1 being the full run's), each for {@value #MILLIS} ms. It fails the build if a test of
 * the protocols sees a forbidden outcome, and if the deliberately broken handshake
 * ({@link dev.verbatim.jcstress.broken.UnfencedParkedWordLosesAWakeup}) does not: that one shows that the run can
 * see a reordering at all on this machine. The broken test's outcome needs the two actors running at the same
 * instant, which a loaded machine may not give it in {@value #MILLIS} ms, so it alone is run again, longer, up to
 * twice, before the test gives up.
 */
class JcstressQuickTest {
    static final int MILLIS = 500;
    static final String BROKEN = "dev.verbatim.jcstress.broken.UnfencedParkedWordLosesAWakeup";
    static final Duration TIMEOUT = Duration.ofMinutes(4);

    static JcstressRun.Result run;

    @BeforeAll
    static void runAll() throws Exception {
        run = quick("dev\\.verbatim\\.jcstress\\.", MILLIS, "all");
    }

    static JcstressRun.Result quick(String tests, int millis, String dir) throws Exception {
        String classpath = System.getProperty("verbatim.jcstress.classpath", System.getProperty("java.class.path"));
        List<String> args = List.of("-t", tests, "-f", "1", "-iters", "1", "-time", Integer.toString(millis),
                "-sc", "false", "-jvmArgs", "--enable-native-access=ALL-UNNAMED", "-r", "results");
        return JcstressRun.run(classpath, args, Path.of("target", "jcstress-quick", dir), TIMEOUT, null);
    }

    @Test
    void everyTestOfTheProtocolsRanAndSawNoForbiddenOutcome() {
        List<String> tests = JcstressRun.tests();
        assertTrue(tests.size() >= 10, "the annotation processor listed " + tests);
        for (String test : tests) {
            if (test.equals(BROKEN)) {
                continue;
            }
            assertEquals("OK", run.statuses().get(test), test + " (forbidden outcomes: " + run.forbidden().get(test)
                    + ")\n" + run.output());
        }
    }

    @Test
    void theDeliberatelyBrokenHandshakeIsCaughtLosingAWakeup() throws Exception {
        JcstressRun.Result r = run;
        for (int again = 1; r.forbiddenSamples(BROKEN) == 0 && again <= 2; again++) {
            r = quick(BROKEN.replace(".", "\\."), 4 * MILLIS * again, "broken-" + again);
        }
        assertFalse(r.statuses().isEmpty(), r.output());
        assertEquals("FAILED", r.statuses().get(BROKEN), r.output());
        assertTrue(r.forbidden().get(BROKEN).getOrDefault("0, 0", 0L) > 0, "the lost wake-up was not seen: "
                + r.forbidden().get(BROKEN));
    }
}
