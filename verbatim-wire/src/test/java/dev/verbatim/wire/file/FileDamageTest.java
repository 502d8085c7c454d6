package dev.verbatim.wire.file;

import dev.verbatim.wire.Message;
import dev.verbatim.wire.Schema;
import dev.verbatim.wire.WireFormatException;
import dev.verbatim.wire.WireLimits;
import dev.verbatim.wire.WireSchemaException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static dev.verbatim.wire.file.FileChild.digestOf;
import static dev.verbatim.wire.file.FileChild.record;
import static dev.verbatim.wire.file.FileFixtures.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Damage injected at every byte of small stored files (four changes per byte: two bit flips, zero, 0xFF), and
 * files truncated at every length. Opening and reading a damaged file either fails with
 * {@link WireFormatException} or succeeds and reads within bounds (damage inside an int array, say, is
 * harmless: the values differ); no other exception, no crash, no hang. Verifying with checksums detects
 * every change.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FileDamageTest {
    private static final int[] XOR = {0x01, 0x80};
    private static final int[] SET = {0x00, 0xFF};

    @TempDir
    Path dir;

    /** Opens and reads a possibly damaged file; returns whether it was refused. */
    interface Reader {
        boolean read(Path f) throws IOException;
    }

    @Test
    void damageAnywhereInAGraphFileIsDetectedOrHarmless() throws IOException {
        Path good = dir.resolve("good.vbt");
        WireFile.write(good, item(12));
        int[] counts = damageEveryByte(good, Files.size(good), FileDamageTest::readGraph);
        assertTrue(counts[0] > 0 && counts[1] > 0, "both outcomes occur: " + Arrays.toString(counts));
    }

    @Test
    void damageAnywhereInALogIsDetectedOrHarmless() throws IOException {
        Path good = dir.resolve("good.vbt");
        long end;
        try (WireLogWriter w = WireLogWriter.create(good, 1200, false)) {
            for (int i = 7; i < 10; i++) assertNotEquals(WireLogWriter.FULL, w.append(record(i)));
            end = w.end();
        }
        int[] counts = damageEveryByte(good, end, FileDamageTest::readLog);
        assertTrue(counts[0] > 0 && counts[1] > 0, "both outcomes occur: " + Arrays.toString(counts));
    }

    @Test
    void aGraphFileTruncatedAtAnyLengthIsRefused() throws IOException {
        Path good = dir.resolve("good.vbt");
        WireFile.write(good, item(4));
        byte[] b = Files.readAllBytes(good);
        Path cut = dir.resolve("cut.vbt");
        for (int n = 0; n < b.length; n++) {
            Files.write(cut, Arrays.copyOf(b, n));
            int len = n;
            assertThrows(WireFormatException.class, () -> WireFile.open(cut), () -> "truncated to " + len);
            assertTrue(readLog(cut), () -> "truncated to " + len);
            assertThrows(WireFormatException.class, () -> WireFileInfo.read(cut, WireLimits.DEFAULT, true), () -> "truncated to " + len);
        }
    }

    @Test
    void aLogTruncatedInsideItsRecordsIsRefusedAndPastThemReadsWhole() throws IOException {
        Path good = dir.resolve("good.vbt");
        long end;
        try (WireLogWriter w = WireLogWriter.create(good, 1024, false)) {
            for (int i = 0; i < 3; i++) w.append(record(i));
            end = w.end();
        }
        byte[] b = Files.readAllBytes(good);
        Path cut = dir.resolve("cut.vbt");
        for (int n = 0; n < b.length; n++) {
            Files.write(cut, Arrays.copyOf(b, n));
            if (n < end) {
                int len = n;
                assertTrue(readLog(cut), () -> "truncated to " + len);
                assertThrows(WireFormatException.class, () -> WireFileInfo.read(cut, WireLimits.DEFAULT, true), () -> "truncated to " + len);
            } else {
                assertEquals(WireLogTest.readAll(good), WireLogTest.readAll(cut), "truncated to " + n + ", past the end " + end);
            }
        }
    }

    /**
     * Applies every change to every byte of {@code good}, reads each damaged copy, and checks that verification
     * with checksums refuses it when the change is before {@code end} (the committed end), and that a change
     * past it (the free space of a log) changes nothing a reader sees. Returns {refused by the reader, read
     * without error}.
     */
    private int[] damageEveryByte(Path good, long end, Reader reader) throws IOException {
        java.util.List<Long> intact = WireLogTest.readAll(good);
        byte[] original = Files.readAllBytes(good);
        Path bad = dir.resolve("bad.vbt");
        int[] counts = new int[2];
        for (int at = 0; at < original.length; at++) {
            for (int change = 0; change < XOR.length + SET.length; change++) {
                byte[] b = original.clone();
                b[at] = change < XOR.length ? (byte) (b[at] ^ XOR[change]) : (byte) SET[change - XOR.length];
                if (b[at] == original[at]) continue;
                Files.write(bad, b);
                String where = "byte " + at + " changed from " + original[at] + " to " + b[at];
                boolean refused;
                try {
                    refused = reader.read(bad);
                } catch (RuntimeException | Error e) {
                    throw new AssertionError(where + ": " + e, e);
                }
                counts[refused ? 0 : 1]++;
                if (at >= end) {
                    assertFalse(refused, where);
                    assertEquals(intact, WireLogTest.readAll(bad), where + ", past the committed end");
                    WireFileInfo info = WireFileInfo.read(bad, WireLimits.DEFAULT, true);
                    assertEquals(at < end + 16 ? end : -1, info.tornRecordAt(), where);
                    continue;
                }
                WireFormatException e = assertThrows(WireFormatException.class,
                        () -> WireFileInfo.read(bad, WireLimits.DEFAULT, true), () -> "verify misses " + where);
                assertTrue(e.offset() >= -1 && e.offset() <= original.length, where + ": " + e.getMessage());
            }
        }
        return counts;
    }

    private static boolean readGraph(Path f) throws IOException {
        WireFile w;
        try {
            w = WireFile.open(f);
        } catch (WireFormatException e) {
            return true;
        }
        try (w) {
            readEverything(w.message());
            return false;
        }
    }

    private static boolean readLog(Path f) throws IOException {
        try (WireLog log = WireLog.open(f)) {
            for (Message m; (m = log.next()) != null; ) readEverything(m);
            return false;
        } catch (WireFormatException e) {
            return true;
        }
    }

    /**
     * Reads every field through views and materializes. A read may fail only with WireFormatException, or with
     * WireSchemaException where the damage gave the root another type (the file is then not what the caller
     * asks for) or closed a cycle through records (which cannot be materialized).
     */
    private static void readEverything(Message m) {
        try {
            if (m.rootFingerprint() == Schema.fingerprint(Late.class)) {
                digestOf(m);
                m.materialize(Late.class);
            } else {
                digest(m.view(ItemView.class));
                m.materialize(Item.class);
            }
        } catch (WireFormatException | WireSchemaException e) {
            // detected while reading
        }
    }
}
