package dev.verbatim.wire.file;

import dev.verbatim.wire.ArrayView;
import dev.verbatim.wire.WireFormatException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static dev.verbatim.wire.file.FileFixtures.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * {@link WireFile#load}: the file read into a heap copy instead of mapped. It reads back as {@link WireFile#open}
 * does, refuses exactly what open refuses, and its close ends the file but not the views it handed out (they read
 * the copy, which needs no revocation).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WireFileLoadTest {
    @TempDir
    Path dir;

    @Test
    void aLoadedGraphReadsBackAsAnOpenedOneDoes() throws IOException {
        Path f = dir.resolve("item.vbt");
        Item item = item(42);
        long size = WireFile.write(f, item);
        try (WireFile w = WireFile.load(f)) {
            assertEquals(size, w.byteSize());
            assertEquals(digest(item), digest(w.view(ItemView.class)));
            assertEquals(digest(item), digest(w.materialize(Item.class)));
            ArrayView.OfInt values = w.view(ItemView.class).values();
            assertArrayEquals(item.values(), values.toArray());
            assertFalse(values.segment().isNative(), "a heap copy, not a mapping");
            assertTrue(values.segment().isReadOnly(), "what was validated cannot be changed through a view");
        }
    }

    @Test
    void closingALoadedFileEndsTheFileButNotTheViewsItHandedOut() throws IOException {
        Path f = dir.resolve("closed.vbt");
        WireFile.write(f, item(3));
        WireFile w = WireFile.load(f);
        ItemView v = w.view(ItemView.class);
        CharSequence name = v.name();
        w.close();
        assertTrue(w.isClosed());
        assertThrows(IllegalStateException.class, () -> w.view(ItemView.class));
        assertThrows(IllegalStateException.class, () -> w.materialize(Item.class));
        assertThrows(IllegalStateException.class, w::message);
        assertEquals(digest(item(3)), digest(v), "views read the heap copy, which outlives close");
        assertEquals(item(3).name(), name.toString());
        w.close(); // idempotent
    }

    @Test
    void loadRefusesWhatOpenRefusesOnEveryDamagedByteAndEveryTruncation() throws IOException {
        Path good = dir.resolve("good.vbt");
        WireFile.write(good, item(12));
        byte[] b = Files.readAllBytes(good);
        Path bad = dir.resolve("bad.vbt");
        int refused = 0;
        for (int i = 0; i < b.length; i++) {
            for (int x : new int[] {0x01, 0x80, 0xFF}) {
                byte[] d = b.clone();
                d[i] ^= (byte) x;
                Files.write(bad, d);
                String opened = outcome(bad, false);
                assertEquals(opened, outcome(bad, true), "byte " + i + " ^ " + x);
                if (opened.startsWith("refused")) refused++;
            }
        }
        for (int n = 0; n < b.length; n++) {
            Files.write(bad, Arrays.copyOf(b, n));
            assertEquals(outcome(bad, false), outcome(bad, true), "truncated to " + n);
            assertTrue(outcome(bad, true).startsWith("refused"), "truncated to " + n);
        }
        assertTrue(refused > 0, "some damage is refused");
    }

    /** What opening (or loading) {@code f} and reading it whole gives: the digest, or the rule and offset refused. */
    private static String outcome(Path f, boolean load) throws IOException {
        try (WireFile w = load ? WireFile.load(f) : WireFile.open(f)) {
            return "read " + digest(w.view(ItemView.class), new int[] {10_000});
        } catch (WireFormatException e) {
            return "refused " + e.rule() + " at " + e.offset();
        } catch (dev.verbatim.wire.WireSchemaException e) {
            return "schema " + e.getMessage();
        }
    }

    @Test
    void aHugeFileIsRefusedFromItsHeaderWithoutReadingIt() throws IOException {
        // a sparse file claiming a 2 GiB message: refused by reading 32 bytes, as open does, not by allocating 2 GiB
        Path huge = FileFixtures.hugeSparseGraphFile(dir.resolve("huge.vbt"));
        WireFormatException e = assertThrows(WireFormatException.class, () -> WireFile.load(huge));
        assertEquals("message larger than the limit", e.rule());
    }
}
