package dev.verbatim.wire.file;

import dev.verbatim.wire.Message;
import dev.verbatim.wire.WireLimits;
import dev.verbatim.wire.WireWriter;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import dev.verbatim.buffer.Buffer;
import dev.verbatim.buffer.Buffers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static dev.verbatim.wire.file.FileChild.digestOf;
import static dev.verbatim.wire.file.FileChild.expected;
import static dev.verbatim.wire.file.FileChild.record;
import static dev.verbatim.wire.file.FileFixtures.*;
import static dev.verbatim.wire.file.WireFileDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

/** Logs: append, iterate in place, types described once, full logs, torn tails, concurrent readers and processes. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WireLogTest {
    @TempDir
    Path dir;

    @Test
    void recordsReadBackInOrderAndEachTypeIsDescribedOnce() throws IOException {
        Path f = dir.resolve("log.vbt");
        List<Long> offsets = new ArrayList<>();
        try (WireLogWriter w = WireLogWriter.create(f, 1 << 16, false)) {
            for (int i = 0; i < 30; i++) offsets.add(w.append(record(i)));
            assertEquals(30, w.records());
        }
        ItemView first;
        WireLog log = WireLog.open(f);
        try (log) {
            for (int i = 0; i < 30; i++) {
                assertEquals(offsets.get(i), log.position());
                Message m = log.next();
                assertNotNull(m, "record " + i);
                assertEquals(expected(i), digestOf(m), "record " + i);
            }
            assertNull(log.next());
            assertEquals(log.committedEnd(), log.position());
        }
        assertThrows(IllegalStateException.class, log::next, "a closed log reads nothing");
        try (WireLog again = WireLog.open(f)) {
            first = again.next().view(ItemView.class);
            assertEquals(expected(0), digest(first));
        }
        assertThrows(IllegalStateException.class, first::id, "views of a closed log throw");
        assertThrows(IllegalStateException.class, () -> first.values().get(0));
        // Item's types travel with record 0, Late's with record 9, nothing after.
        try (AutoBuffer b = new AutoBuffer(f)) {
            MemorySegment s = b.segment();
            for (int i = 0; i < 30; i++) {
                long at = offsets.get(i);
                int d = s.get(U32, at + DESCRIPTIONS_LENGTH_OFFSET);
                assertEquals(i == 0 || i == 9, d > 0, "record " + i + " carries " + d + " bytes of descriptions");
            }
        }
    }

    @Test
    void aFullLogRefusesTheRecordAndStaysReadable() throws IOException {
        Path f = dir.resolve("full.vbt");
        int appended = 0;
        try (WireLogWriter w = WireLogWriter.create(f, 2048, false)) {
            while (w.append(record(appended)) != WireLogWriter.FULL) appended++;
            long end = w.end();
            assertEquals(WireLogWriter.FULL, w.append(new int[10_000]));
            assertEquals(end, w.end());
        }
        assertTrue(appended > 2, "appended " + appended);
        assertEquals(appended, readAll(f).size());
    }

    @Test
    void aReopenedWriterAppendsAfterTheLastRecordWithoutDescribingTypesAgain() throws IOException {
        Path f = dir.resolve("reopen.vbt");
        try (WireLogWriter w = WireLogWriter.create(f, 1 << 16, false)) {
            for (int i = 0; i < 12; i++) w.append(record(i));
        }
        long at;
        try (WireLogWriter w = WireLogWriter.open(f, true)) {
            assertEquals(12, w.records());
            at = w.append(record(12));
            for (int i = 13; i < 20; i++) w.append(record(i));
            w.force();
        }
        try (AutoBuffer b = new AutoBuffer(f)) {
            assertEquals(0, b.segment().get(U32, at + DESCRIPTIONS_LENGTH_OFFSET), "Item was described by record 0");
        }
        List<Long> all = readAll(f);
        assertEquals(20, all.size());
        for (int i = 0; i < 20; i++) assertEquals(expected(i), all.get(i));
    }

    @Test
    void aSecondWriterIsRefused() throws IOException {
        Path f = dir.resolve("one.vbt");
        try (WireLogWriter w = WireLogWriter.create(f, 4096, false)) {
            w.append(record(0));
            assertThrows(IllegalStateException.class, () -> WireLogWriter.open(f, false));
        }
        try (WireLogWriter w = WireLogWriter.open(f, false)) {
            assertEquals(1, w.records());
        }
    }

    @Test
    void aTornTailIsIgnoredReportedAndOverwritten() throws IOException {
        Path f = dir.resolve("torn.vbt");
        long end;
        try (WireLogWriter w = WireLogWriter.create(f, 1 << 16, false)) {
            for (int i = 0; i < 5; i++) w.append(record(i));
            end = w.end();
        }
        // What a writer killed between writing a record and publishing the end leaves: a whole record past the end.
        try (AutoBuffer b = new AutoBuffer(f, FileChannel.MapMode.READ_WRITE)) {
            MemorySegment s = b.segment();
            byte[] next = new WireWriter().toByteArray(item(99));
            putRecordHeader(s, end, next.length, 0, 12345);
            MemorySegment.copy(MemorySegment.ofArray(next), 0, s, end + RECORD_HEADER_LENGTH, next.length / 2);
        }
        assertEquals(5, readAll(f).size(), "the torn record is not read");
        WireFileInfo info = WireFileInfo.read(f, WireLimits.DEFAULT, true);
        assertEquals(end, info.tornRecordAt());
        assertEquals(5, info.records());
        try (WireLogWriter w = WireLogWriter.open(f, false)) {
            assertEquals(end, w.append(record(5)));
        }
        List<Long> all = readAll(f);
        assertEquals(6, all.size());
        assertEquals(expected(5), all.get(5));
        assertEquals(-1, WireFileInfo.read(f, WireLimits.DEFAULT, true).tornRecordAt());
    }

    @Test
    void readersInOtherThreadsSeeOnlyWholeRecordsWhileTheWriterAppends() throws Exception {
        Path f = dir.resolve("threads.vbt");
        int count = 3000;
        try (WireLogWriter w = WireLogWriter.create(f, 4 << 20, false)) {
            List<Throwable> failures = new CopyOnWriteArrayList<>();
            List<Thread> readers = new ArrayList<>();
            long[] emptyPolls = new long[2];
            for (int r = 0; r < 2; r++) {
                int id = r;
                readers.add(Thread.ofPlatform().start(() -> {
                    try (WireLog log = WireLog.open(f)) {
                        int i = 0;
                        while (i < count) {
                            Message m = log.next();
                            if (m == null) {
                                emptyPolls[id]++;
                                Thread.onSpinWait();
                                continue;
                            }
                            assertEquals(expected(i), digestOf(m), "record " + i);
                            i++;
                        }
                        assertNull(log.next());
                    } catch (Throwable t) {
                        failures.add(t);
                    }
                }));
            }
            for (int i = 0; i < count; i++) {
                assertNotEquals(WireLogWriter.FULL, w.append(record(i)));
                if (i % 100 == 0) Thread.yield();
            }
            for (Thread t : readers) t.join(TimeUnit.SECONDS.toMillis(40));
            if (!failures.isEmpty()) throw new AssertionError(failures.getFirst());
            for (Thread t : readers) assertFalse(t.isAlive(), "a reader did not finish");
        }
    }

    @Test
    void aReaderInThisProcessFollowsAWriterInAnotherProcess() throws Exception {
        Path f = dir.resolve("cross.vbt");
        WireLogWriter.create(f, 4 << 20, false).close();
        int count = 2000;
        Path out = dir.resolve("appender.out");
        Process p = ChildJvm.start(out, "append", f.toString(), Integer.toString(count));
        try (WireLog log = WireLog.open(f)) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
            int i = 0;
            while (i < count) {
                Message m = log.next();
                if (m == null) {
                    assertTrue(System.nanoTime() < deadline, "only " + i + " records in 40 s: " + Files.readString(out));
                    assertTrue(p.isAlive() || log.committedEnd() > log.position(), () -> "the writer stopped early: " + read(out));
                    Thread.onSpinWait();
                    continue;
                }
                assertEquals(expected(i), digestOf(m), "record " + i);
                i++;
            }
            assertTrue(p.waitFor(30, TimeUnit.SECONDS));
            assertEquals(0, p.exitValue(), () -> read(out));
            assertNull(log.next());
        } finally {
            ChildJvm.kill(p);
        }
        // And the other way round: that process reads what this one appends.
        try (WireLogWriter w = WireLogWriter.open(f, false)) {
            for (int i = count; i < count + 50; i++) w.append(record(i));
        }
        String[] lines = ChildJvm.run(dir, 30, "read-log", f.toString()).split("\n");
        assertEquals(count + 50, lines.length);
        for (int i = 0; i < lines.length; i++) assertEquals(expected(i), Long.parseLong(lines[i].strip()), "record " + i);
    }

    @Test
    void aWriterKilledMidAppendLeavesOnlyWholeRecords() throws Exception {
        Path f = dir.resolve("killed.vbt");
        WireLogWriter.create(f, 64 << 20, false).close();
        Path out = dir.resolve("killed.out");
        Process p = ChildJvm.start(out, "append", f.toString(), "-1");
        try (WireLog log = WireLog.open(f)) {
            int i = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
            while (i < 500) {
                Message m = log.next();
                if (m == null) {
                    assertTrue(p.isAlive(), () -> "the writer died: " + read(out));
                    assertTrue(System.nanoTime() < deadline, "the writer appended only " + log.recordsRead() + " records in 40 s");
                    Thread.onSpinWait();
                    continue;
                }
                assertEquals(expected(i), digestOf(m), "record " + i);
                i++;
            }
            ChildJvm.kill(p);
            for (Message m; (m = log.next()) != null; i++) assertEquals(expected(i), digestOf(m), "record " + i);
            WireFileInfo info = WireFileInfo.read(f, WireLimits.DEFAULT, true);
            assertEquals(i, info.records(), "every committed record checks out, checksums included");
        } finally {
            ChildJvm.kill(p);
        }
        long before = WireFileInfo.read(f, WireLimits.DEFAULT, false).records();
        try (WireLogWriter w = WireLogWriter.open(f, false)) {
            w.append(record((int) before));
        }
        List<Long> all = readAll(f);
        assertEquals(before + 1, all.size());
        for (int i = 0; i < all.size(); i++) assertEquals(expected(i), all.get(i), "record " + i);
    }

    /** The digests of every record of a log. */
    static List<Long> readAll(Path f) throws IOException {
        List<Long> out = new ArrayList<>();
        try (WireLog log = WireLog.open(f)) {
            for (Message m; (m = log.next()) != null; ) out.add(digestOf(m));
        }
        return out;
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            return e.toString();
        }
    }

    /** A mapping of a whole file for a try-with-resources block. */
    private static final class AutoBuffer implements AutoCloseable {
        private final Buffer b;

        AutoBuffer(Path f) throws IOException { this(f, FileChannel.MapMode.READ_ONLY); }

        AutoBuffer(Path f, FileChannel.MapMode mode) throws IOException { b = Buffers.map(f, mode); }

        MemorySegment segment() { return b.segment(); }

        @Override public void close() { b.release(); }
    }
}
