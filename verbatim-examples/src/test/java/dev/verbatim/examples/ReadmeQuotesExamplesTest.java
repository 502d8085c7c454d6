package dev.verbatim.examples;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The README shows only code that the suite compiles and runs: each Java block quotes an example word for word. */
class ReadmeQuotesExamplesTest {
    private static final Path SOURCES = ReadmeExamples.root().resolve("verbatim-examples/src/main/java/dev/verbatim/examples");

    /**
     * With {@code -Dverbatim.readme.update=true} (for example {@code ./mvnw -pl verbatim-examples test
     * -Dverbatim.readme.update=true}) the README's marked blocks are first rewritten from the examples.
     */
    @Test
    void everyJavaBlockOfTheReadmeQuotesAnExampleWordForWord() throws Exception {
        Path readme = ReadmeExamples.root().resolve("README.md");
        if (Boolean.getBoolean("verbatim.readme.update")) {
            Files.writeString(readme, ReadmeExamples.update(Files.readAllLines(readme), SOURCES));
        }
        List<ReadmeExamples.Block> blocks = ReadmeExamples.blocks(Files.readAllLines(readme));
        assertFalse(blocks.isEmpty(), "the README has no java block");
        for (ReadmeExamples.Block b : blocks) {
            assertNotNull(b.example(), "README line " + b.line() + ": a java block without an '<!-- example: Class#region -->' line before it");
            String expected = ReadmeExamples.quote(SOURCES, b.example(), b.regions());
            assertEquals(expected, b.text(), "README line " + b.line() + " differs from " + b.example() + ".java " + b.regions()
                    + "; copy the example's regions into the README");
        }
    }

    @Test
    void aBlockThatDiffersFromItsExampleIsFound() throws Exception {
        String quoted = ReadmeExamples.quote(SOURCES, "WireExample", List.of("usage"));
        List<String> readme = List.of("<!-- example: WireExample#usage -->", "```java", quoted.replace("validate", "check"), "```");
        ReadmeExamples.Block b = ReadmeExamples.blocks(readme).getFirst();
        assertEquals("WireExample", b.example());
        assertTrue(!quoted.equals(b.text()), "a changed block must not match its example");
    }

    @Test
    void regionsAreQuotedWithoutTheirCommonIndentation() {
        assertEquals("a\n  b\n\nc", ReadmeExamples.dedent(List.of("    a", "      b", "   ", "    c")));
    }
}
