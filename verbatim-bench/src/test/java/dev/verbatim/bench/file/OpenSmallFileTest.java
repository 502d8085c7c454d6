package dev.verbatim.bench.file;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@code open-4KiB} case's three ways of opening a small file read what is in it: the stored int[]'s first
 * element through {@code WireFile.load} and {@code WireFile.open}, the file's first word through the C program's
 * {@code first} mode (open, mmap, read, munmap, close), which times every repetition. No timing asserted.
 */
@Timeout(120)
class OpenSmallFileTest {

    @Test
    void loadOpenAndTheCFloorReadTheSmallFile(@TempDir Path dir) throws Exception {
        ScanFiles page = ScanFiles.create(dir, "open-4KiB", FileBench.SMALL_FILE_INTS * Integer.BYTES, 4);
        assertTrue(Files.size(page.graph()) <= 4096, "one page: " + Files.size(page.graph()));
        int[] data = new java.util.SplittableRandom(4).ints(FileBench.SMALL_FILE_INTS).toArray();
        assertEquals(data[0], Scans.loadFirst(page.graph()));
        assertEquals(data[0], Scans.openFirst(page.graph()));
        assertEquals(page.max(), Scans.verbatimLoad(page.graph()));

        ByteArrayOutputStream log = new ByteArrayOutputStream();
        CMmapScan c = CMmapScan.compile(dir, new PrintStream(log, true, StandardCharsets.UTF_8));
        Assumptions.assumeTrue(c != null, "no C compiler here: " + log.toString(StandardCharsets.UTF_8));
        ByteBuffer word = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
        try (FileChannel ch = FileChannel.open(page.graph())) {
            ch.read(word, 0);
        }
        CMmapScan.Result first = c.run(page.graph(), 5, true);
        assertEquals(word.getInt(0), first.max(), "the C floor reads the file's first word");
        assertEquals(5, first.nanos().length);
        assertEquals(page.max(), c.run(page.raw(), 2).max(), "and still scans in its default mode");
    }
}
