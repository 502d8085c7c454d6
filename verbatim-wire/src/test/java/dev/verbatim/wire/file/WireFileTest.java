package dev.verbatim.wire.file;

import dev.verbatim.wire.ArrayView;
import dev.verbatim.wire.Schema;
import dev.verbatim.wire.WireFormatException;
import dev.verbatim.wire.WireLimits;
import dev.verbatim.wire.WireSchemaException;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static dev.verbatim.wire.file.FileFixtures.*;
import static dev.verbatim.wire.file.WireFileDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

/** Graph files: store, open in place, lifetime, atomic replacement, limits, other processes. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WireFileTest {
    @TempDir
    Path dir;

    @Test
    void aViewKeepsItsFileMappedWhenTheFileIsDroppedUnclosed() throws Exception {
        Path f = dir.resolve("kept.vbt");
        Item item = item(7);
        WireFile.write(f, item);
        java.lang.ref.WeakReference<WireFile> dropped = new java.lang.ref.WeakReference<>(WireFile.open(f));
        ItemView view = dropped.get().view(ItemView.class); // the file is dropped unclosed; only the view is kept
        java.lang.ref.WeakReference<Object> garbage = new java.lang.ref.WeakReference<>(new Object());
        for (int i = 0; i < 200 && garbage.get() != null; i++) {
            System.gc();
            Thread.sleep(10);
        }
        assertNull(garbage.get(), "the collector ran");
        for (int i = 0; i < 50; i++) {
            System.gc();
            Thread.sleep(10); // the buffer's cleaner runs on its own thread: give it time to reclaim what it can
        }
        assertEquals(digest(item), digest(view), "a view still in use keeps the mapping it reads alive");
        java.lang.ref.Reference.reachabilityFence(view);
    }

    @Test
    void aStoredGraphReadsBackThroughViewsAndMaterialized() throws IOException {
        Path f = dir.resolve("item.vbt");
        Item item = item(42);
        long size = WireFile.write(f, item);
        assertEquals(size, Files.size(f));
        try (WireFile w = WireFile.open(f)) {
            assertEquals(digest(item), digest(w.view(ItemView.class)));
            assertEquals(digest(item), digest(w.materialize(Item.class)));
            assertEquals(Schema.fingerprint(Item.class), w.message().rootFingerprint());
            ArrayView.OfInt values = w.view(ItemView.class).values();
            assertArrayEquals(item.values(), values.toArray());
            assertTrue(values.segment().isReadOnly());
        }
        assertEquals(List.of(f), listDir(), "no temporary file is left behind");
    }

    @Test
    void aPrimitiveArrayIsReadInPlaceFromTheMapping() throws IOException {
        Path f = dir.resolve("ints.vbt");
        int[] data = new int[100_000];
        for (int i = 0; i < data.length; i++) data[i] = i * 7 - 3;
        WireFile.write(f, data);
        try (WireFile w = WireFile.open(f)) {
            ArrayView.OfInt v = w.view(ArrayView.OfInt.class);
            assertEquals(data.length, v.length());
            for (int i = 0; i < data.length; i += 997) assertEquals(data[i], v.get(i));
            // The view's memory is the file's: 16 + 16 + 4 bytes in, the elements as stored.
            assertEquals(FILE_HEADER_LENGTH + RECORD_HEADER_LENGTH + 4 + 4L * data.length, v.segment().byteSize() + 36);
            assertArrayEquals(data, w.materialize(int[].class));
        }
    }

    @Test
    void viewsOfAClosedFileThrowIllegalStateException() throws IOException {
        Path f = dir.resolve("closed.vbt");
        WireFile.write(f, item(3));
        WireFile w = WireFile.open(f);
        ItemView v = w.view(ItemView.class);
        ArrayView.OfInt values = v.values();
        CharSequence name = v.name();
        List<ItemView> children = v.children();
        MemorySegment raw = values.segment();
        Item copy = w.materialize(Item.class);
        w.close();
        assertTrue(w.isClosed());
        assertThrows(IllegalStateException.class, v::id);
        assertThrows(IllegalStateException.class, v::name);
        assertThrows(IllegalStateException.class, () -> values.get(0));
        assertThrows(IllegalStateException.class, values::toArray);
        assertThrows(IllegalStateException.class, () -> name.charAt(0));
        assertThrows(IllegalStateException.class, () -> children.get(0));
        assertThrows(IllegalStateException.class, () -> raw.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0));
        assertThrows(IllegalStateException.class, () -> w.view(ItemView.class));
        assertThrows(IllegalStateException.class, () -> w.materialize(Item.class));
        assertThrows(IllegalStateException.class, w::message);
        w.close(); // idempotent
        assertEquals(digest(item(3)), digest(copy), "materialized objects outlive the file");
    }

    @Test
    void replacingAFileIsAtomicAndOpenHandlesKeepTheOldContents() throws IOException {
        Path f = dir.resolve("replace.vbt");
        WireFile.write(f, item(1));
        try (WireFile old = WireFile.open(f)) {
            WireFile.write(f, item(2));
            assertEquals(digest(item(1)), digest(old.view(ItemView.class)), "the old mapping still shows the old file");
            try (WireFile fresh = WireFile.open(f)) {
                assertEquals(digest(item(2)), digest(fresh.view(ItemView.class)));
            }
        }
        assertEquals(List.of(f), listDir());
    }

    @Test
    void aFailedWriteLeavesTheOldFileAndNoTemporaryFile() throws IOException {
        Path f = dir.resolve("keep.vbt");
        WireFile.write(f, item(5));
        byte[] before = Files.readAllBytes(f);
        assertThrows(WireSchemaException.class, () -> WireFile.write(f, new Object()));
        assertArrayEquals(before, Files.readAllBytes(f));
        assertEquals(List.of(f), listDir());
    }

    @Test
    void anUnfinishedTemporaryFileFailsToOpen() throws IOException {
        Path f = dir.resolve("done.vbt");
        WireFile.write(f, item(8));
        byte[] b = Files.readAllBytes(f);
        for (int i = 0; i < FILE_HEADER_LENGTH; i++) b[i] = 0; // the header is written last
        Path tmp = dir.resolve(".done.vbt.123.tmp");
        Files.write(tmp, b);
        WireFormatException e = assertThrows(WireFormatException.class, () -> WireFile.open(tmp));
        assertEquals("not a Verbatim file", e.rule());
        assertEquals(0, e.offset());
    }

    @Test
    void aFileLargerThanTheLimitsIsRefusedFromItsHeader() throws IOException {
        Path f = dir.resolve("big.vbt");
        WireFile.write(f, new int[1 << 16]);
        WireFormatException e = assertThrows(WireFormatException.class,
                () -> WireFile.open(f, WireLimits.DEFAULT.withMaxMessageBytes(1 << 12)));
        assertEquals("message larger than the limit", e.rule());
        assertEquals(FILE_HEADER_LENGTH + MESSAGE_LENGTH_OFFSET, e.offset());
        // A huge sparse file claiming a 2 GiB message is refused by reading 32 bytes, not by mapping 2 GiB.
        Path huge = hugeSparseGraphFile(dir.resolve("huge.vbt"));
        WireFormatException big = assertThrows(WireFormatException.class, () -> WireFile.open(huge));
        assertEquals("message larger than the limit", big.rule());
    }

    @Test
    void aLogIsNotAGraphFile() throws IOException {
        Path f = dir.resolve("log.vbt");
        try (WireLogWriter w = WireLogWriter.create(f, 4096, false)) {
            w.append(item(1));
        }
        WireFormatException e = assertThrows(WireFormatException.class, () -> WireFile.open(f));
        assertEquals("not a graph file", e.rule());
        assertEquals(KIND_OFFSET, e.offset());
    }

    @Test
    void aNullRootAndABuiltInRootAreStoredToo() throws IOException {
        Path f = dir.resolve("null.vbt");
        WireFile.write(f, null);
        try (WireFile w = WireFile.open(f)) {
            assertNull(w.view(ItemView.class));
            assertEquals(0, w.message().objectCount());
        }
        WireFile.write(f, "text \u20ac");
        try (WireFile w = WireFile.open(f)) {
            assertEquals("text \u20ac", w.view(CharSequence.class).toString());
        }
    }

    @Test
    void anotherProcessReadsWhatThisOneWroteAndTheOtherWayRound() throws Exception {
        Path mine = dir.resolve("mine.vbt");
        WireFile.write(mine, item(77));
        long d = digest(item(77));
        assertEquals(d + " " + d, ChildJvm.run(dir, 30, "read-graph", mine.toString()));

        Path theirs = dir.resolve("theirs.vbt");
        ChildJvm.run(dir, 30, "write-graph", theirs.toString(), "91");
        try (WireFile w = WireFile.open(theirs)) {
            assertEquals(digest(item(91)), digest(w.view(ItemView.class)));
            assertEquals(digest(item(91)), digest(w.materialize(Item.class)));
        }
    }

    @Test
    void aWriterKilledMidWriteLeavesTheOldFileOrTheNewOneNeverAHalf() throws Exception {
        Path f = dir.resolve("crash.vbt");
        int n = 400_000; // 1.6 MB per write: a kill lands mid-write often
        for (int round = 0; round < 3; round++) {
            Path out = dir.resolve("writer-" + round + ".out");
            Process p = ChildJvm.start(out, "write-loop", f.toString(), Integer.toString(n));
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (!Files.readString(out).contains("first written")) {
                    assertTrue(p.isAlive() || Files.readString(out).contains("first written"), () -> "writer died: " + read(out));
                    assertTrue(System.nanoTime() < deadline, "the writer wrote nothing in 30 s");
                    Thread.sleep(5);
                }
                Thread.sleep(20 + 40L * round);
            } finally {
                ChildJvm.kill(p);
            }
            try (WireFile w = WireFile.open(f)) {
                BlobView b = w.view(BlobView.class);
                assertTrue(intact(b, n), "generation " + b.generation() + " is whole");
            }
            try (Stream<Path> files = Files.list(dir)) {
                for (Path tmp : files.filter(x -> x.getFileName().toString().endsWith(".tmp")).toList()) {
                    // A left-over temporary file is either incomplete (and refused) or complete; never half-valid.
                    try (WireFile w = WireFile.open(tmp)) {
                        assertTrue(intact(w.view(BlobView.class), n));
                    } catch (WireFormatException expected) {
                        // refused: fine
                    }
                    Files.delete(tmp);
                }
            }
            Files.delete(out);
        }
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            return e.toString();
        }
    }

    private List<Path> listDir() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.toList();
        }
    }
}
