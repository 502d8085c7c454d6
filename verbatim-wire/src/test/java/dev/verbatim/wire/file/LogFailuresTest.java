package dev.verbatim.wire.file;

import dev.verbatim.buffer.Buffer;
import dev.verbatim.buffer.Buffers;
import dev.verbatim.wire.Message;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static dev.verbatim.wire.file.FileChild.expected;
import static dev.verbatim.wire.file.FileChild.record;
import static dev.verbatim.wire.file.WireFileDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * A log against what fails around it: other descriptors of the file in the writer's process, a power loss that
 * wrote the committed end but not its record, a file truncated under the writer, a full device.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LogFailuresTest {
    @TempDir
    Path dir;

    private Path logOf(int records) throws IOException {
        Path f = dir.resolve("log.vbt");
        try (WireLogWriter w = WireLogWriter.create(f, 1 << 16, false)) {
            for (int i = 0; i < records; i++) w.append(record(i));
        }
        return f;
    }

    /**
     * The writer runs in a child with native access (this suite denies it, so here the writer falls back to the
     * JDK's POSIX lock, which has exactly this weakness: see {@link LogLock}).
     */
    @Test
    void aReaderOpenedAndClosedInTheWritersProcessDoesNotLetAnotherProcessWrite() throws Exception {
        Path f = logOf(3);
        Path out = dir.resolve("holder.out");
        Process holder = ChildJvm.start(out, "hold-writer", f.toString());
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!Files.readString(out).contains("holding")) {
                assertTrue(holder.isAlive(), () -> "the holder died: " + readQuietly(out));
                assertTrue(System.nanoTime() < deadline, "the holder did not start");
                Thread.sleep(20);
            }
            assertTrue(Files.readString(out).startsWith("holding ofd"), "the child's writer holds an OFD lock");
            assertEquals("refused", ChildJvm.run(dir, 60, "try-writer", f.toString()));
            holder.getOutputStream().close(); // the holder closes its writer and exits
            assertTrue(holder.waitFor(60, TimeUnit.SECONDS));
            assertEquals(0, holder.exitValue(), () -> readQuietly(out));
        } finally {
            ChildJvm.kill(holder);
        }
        assertEquals("opened", ChildJvm.run(dir, 60, "try-writer", f.toString()), "the lock ends with the writer");
        assertEquals(4, WireLogTest.readAll(f).size());
    }

    private static String readQuietly(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            return e.toString();
        }
    }

    @Test
    void aSecondWriterInTheSameProcessIsRefusedAfterOtherDescriptorsClosed() throws Exception {
        Path f = logOf(1);
        try (WireLogWriter w = WireLogWriter.open(f, false)) {
            try (WireLog log = WireLog.open(f)) {
                assertNotNull(log.next());
            }
            assertThrows(IllegalStateException.class, () -> WireLogWriter.open(f, false));
            assertEquals(1, w.records());
        }
    }

    /**
     * After a power loss without sync the committed end may be on the device while its last records are not: those
     * read back as zeros (pages never written) or as a record whose checksum fails (some pages written).
     */
    @Test
    void recordsTheEndCommittedButThePowerLossLostAreCutOnOpenAndReported() throws Exception {
        Path f = logOf(8);
        long[] at = recordOffsets(f);
        long end;
        try (WireLog log = WireLog.open(f)) {
            end = log.committedEnd();
        }
        try (Mapped m = new Mapped(f)) {
            m.s.asSlice(at[6] + RECORD_HEADER_LENGTH + 8, 8).fill((byte) 0x5A); // record 6: a page of its body lost
            m.s.asSlice(at[7], end - at[7]).fill((byte) 0);                    // record 7: never written
        }
        WireLogRepair repair;
        try (WireLogWriter w = WireLogWriter.open(f, false)) {
            repair = w.repair();
            assertEquals(6, w.records());
            assertEquals(at[6], w.end());
            assertEquals(at[6], w.append(record(6)), "appends go on from the last whole record");
        }
        assertTrue(repair.cut());
        assertEquals(6, repair.records());
        assertEquals(at[6], repair.end());
        assertEquals(end, repair.previousEnd());
        assertTrue(repair.damage().contains("checksum mismatch"), repair.damage());
        List<Long> all = WireLogTest.readAll(f);
        assertEquals(7, all.size());
        for (int i = 0; i < 7; i++) assertEquals(expected(i), all.get(i));
        assertEquals(7, WireFileInfo.read(f, dev.verbatim.wire.WireLimits.DEFAULT, true).records(), "the checksums hold");
    }

    @Test
    void aCommittedEndPastRecordsThatReadAsZerosIsCutWhereTheyStart() throws Exception {
        Path f = logOf(4);
        long[] at = recordOffsets(f);
        try (Mapped m = new Mapped(f)) {
            m.s.asSlice(at[2], m.s.byteSize() - at[2]).fill((byte) 0);
        }
        WireLogRepair repair = WireLogWriter.repair(f);
        assertEquals(2, repair.records());
        assertEquals(at[2], repair.end());
        assertTrue(repair.damage().contains("shorter than a message header"), repair.damage());
        assertEquals(2, WireLogTest.readAll(f).size());
        WireLogRepair again = WireLogWriter.repair(f);
        assertFalse(again.cut(), again.toString());
        assertEquals(2, again.records());
    }

    @Test
    void anIntactLogIsLeftAsItIs() throws Exception {
        Path f = logOf(5);
        byte[] before = Files.readAllBytes(f);
        WireLogRepair repair = WireLogWriter.repair(f);
        assertFalse(repair.cut());
        assertNull(repair.damage());
        assertEquals(5, repair.records());
        assertArrayEquals(before, Files.readAllBytes(f));
    }

    @Test
    void appendingToALogTruncatedUnderTheWriterIsAnIOExceptionAndCommitsNothing() throws Exception {
        Path f = logOf(2);
        try (WireLogWriter w = WireLogWriter.open(f, false)) {
            long end = w.end();
            try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
                raf.setLength(4096); // another process shrinks the file under the mapping
            }
            IOException e = assertThrows(IOException.class, () -> {
                for (int i = 0; i < 1000; i++) w.append(new int[1000]);
            });
            assertTrue(e.getMessage().contains("truncated"), e.getMessage());
            assertTrue(w.end() < 4096 || w.end() == end, "nothing past the file was committed: " + w.end());
        }
    }

    @Test
    void aFullDeviceIsAnIOExceptionAtCreateAndAppendsToAReservedLogNeverFault() throws Exception {
        try (SmallTmpfs fs = SmallTmpfs.mount(dir.resolve("small"), 1 << 20)) {
            Path big = fs.path().resolve("big.vbt");
            IOException e = assertThrows(IOException.class, () -> WireLogWriter.create(big, 4 << 20, false));
            assertTrue(e.getMessage().toLowerCase(java.util.Locale.ROOT).contains("no space"), e.getMessage());
            assertFalse(Files.exists(big), "a log that could not be reserved is removed");
            // the same with native access (posix_fallocate) in a child
            String child = ChildJvm.run(dir, 60, "create-log", big.toString(), String.valueOf(4 << 20));
            assertTrue(child.startsWith("refused: ") && child.contains("no space"), child);
            assertFalse(Files.exists(big), "a log that could not be reserved is removed");

            Path f = fs.path().resolve("log.vbt");
            int appended = 0;
            try (WireLogWriter w = WireLogWriter.create(f, 256 << 10, false)) {
                String other = ChildJvm.run(dir, 60, "create-log", fs.path().resolve("other.vbt").toString(), String.valueOf(256 << 10));
                assertTrue(other.startsWith("created "), other);
                fs.fill(); // another file takes every block left
                while (w.append(new int[3000]) != WireLogWriter.FULL) appended++;
            }
            assertTrue(appended > 15, "appended " + appended);
            try (WireLog log = WireLog.open(f)) {
                int n = 0;
                for (Message m; (m = log.next()) != null; ) n++;
                assertEquals(appended, n);
            }
        }
    }

    /** The file offset of every record of a log. */
    private static long[] recordOffsets(Path f) throws IOException {
        try (WireLog log = WireLog.open(f)) {
            java.util.List<Long> at = new java.util.ArrayList<>();
            for (long p = log.position(); log.next() != null; p = log.position()) at.add(p);
            return at.stream().mapToLong(Long::longValue).toArray();
        }
    }

    /** A read-write mapping of a whole file for a try-with-resources block. */
    private static final class Mapped implements AutoCloseable {
        final Buffer b;
        final MemorySegment s;

        Mapped(Path f) throws IOException {
            b = Buffers.map(f, FileChannel.MapMode.READ_WRITE);
            s = b.segment();
        }

        @Override public void close() { b.release(); }
    }
}
