package dev.verbatim.bench.harness;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A suite's arguments and the end every suite's run shares: which report form, the plot, the exit code. */
class SuiteArgsTest {

    @Test
    void theArgumentsOfASuitesMainAreParsed() {
        SuiteArgs a = SuiteArgs.parse(new String[] {"--json", "--plot", "x.png", "--quick"});
        assertTrue(a.quick());
        assertTrue(a.json());
        assertEquals(Path.of("x.png"), a.plot());
        assertEquals("quick", a.mode());
        SuiteArgs none = SuiteArgs.parse(new String[0]);
        assertFalse(none.quick() || none.json());
        assertNull(none.plot());
        assertEquals("full", none.mode());
    }

    @Test
    void aRunOfEverythingNamesNoContenderAndNoCase() {
        assertTrue(SuiteArgs.everything());
        try {
            System.setProperty(SuiteArgs.CASES, "null");
            assertFalse(SuiteArgs.everything());
            System.setProperty(SuiteArgs.CASES, " ");
            System.setProperty(SuiteArgs.ONLY, "tcp/rmi");
            assertFalse(SuiteArgs.everything());
        } finally {
            System.clearProperty(SuiteArgs.CASES);
            System.clearProperty(SuiteArgs.ONLY);
        }
        assertTrue(SuiteArgs.everything());
    }

    @Test
    void theRunEndsWithTheAskedFormThePlotAndAnExitCodeThatSaysAFailure(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        Path plot = dir.resolve("p.png");
        int code = new SuiteArgs(true, true, plot).finish("demo", s -> s.print("json"), s -> s.print("tables"),
                f -> Files.writeString(f, "png"), true, o, e);
        assertEquals(1, code);
        assertEquals("json", out.toString(StandardCharsets.UTF_8));
        assertEquals("png", Files.readString(plot));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("verbatim bench demo: plot written to "));

        out.reset();
        assertEquals(0, new SuiteArgs(false, false, null).finish("demo", s -> s.print("json"), s -> s.print("tables"),
                f -> { throw new AssertionError("no plot asked for"); }, false, o, e));
        assertEquals("tables", out.toString(StandardCharsets.UTF_8));
    }
}
