package dev.verbatim.buffer.internal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Arenas handed to {@link ArenaCloser} are closed on its one thread, every one of them, the hands-over
 * returning at once; an arena a native operation holds is closed once it lets go; the thread ends when
 * nothing is left to close.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ArenaCloserTest {
    private static void awaitClosed(List<MemorySegment> segments) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        for (MemorySegment s : segments) {
            while (s.scope().isAlive() && System.nanoTime() < end) {
                Thread.sleep(1);
            }
            assertFalse(s.scope().isAlive(), "every arena handed over is closed");
            assertThrows(IllegalStateException.class, () -> s.get(ValueLayout.JAVA_LONG, 0), "its memory is unusable once closed");
        }
    }

    @Test
    void arenasHandedOverFromManyThreadsAreAllClosedOnOneThread() throws Exception {
        List<MemorySegment> segments = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        long closedBefore = ArenaCloser.closed();
        for (int i = 0; i < 50; i++) {
            Arena a = Arena.ofShared();
            MemorySegment s = a.allocate(4096);
            s.set(ValueLayout.JAVA_LONG, 0, i);
            segments.add(s);
            threads.add(Thread.ofPlatform().start(() -> ArenaCloser.closeLater(a)));
        }
        for (Thread t : threads) {
            t.join();
        }
        awaitClosed(segments);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (ArenaCloser.closed() - closedBefore < 50 && System.nanoTime() < end) {
            Thread.sleep(1); // (the closing thread counts an arena just after closing it: the last may be closed, not yet counted)
        }
        assertTrue(ArenaCloser.closed() - closedBefore >= 50, "closed by the closing thread, not by the callers");
        end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (threadAlive() && System.nanoTime() < end) {
            Thread.sleep(20);
        }
        assertFalse(threadAlive(), "the closing thread ends when nothing is left to close");
    }

    @Test
    void anArenaInUseByANativeOperationIsClosedOnceItIsLetGo() throws Exception {
        Arena a = Arena.ofShared();
        MemorySegment s = a.allocate(64);
        Arena other = Arena.ofShared();
        MemorySegment t = other.allocate(64);
        Pipe pipe = Pipe.open();
        // a blocking read into the segment holds its arena for the read's length (the JDK refuses to close it)
        Thread reader = Thread.ofPlatform().start(() -> {
            try {
                pipe.source().read(s.asByteBuffer());
            } catch (Exception ignored) {
                // the test checks the closes
            }
        });
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (reader.getState() != Thread.State.RUNNABLE && System.nanoTime() < end) {
            Thread.sleep(1);
        }
        Thread.sleep(50); // (inside the read)
        ArenaCloser.closeLater(a);
        ArenaCloser.closeLater(other);
        awaitClosed(List.of(t)); // (the one behind it is not held up)
        assertTrue(s.scope().isAlive(), "held by the read: not closed yet");
        pipe.sink().write(ByteBuffer.wrap(new byte[] {1}));
        reader.join();
        awaitClosed(List.of(s));
        pipe.sink().close();
        pipe.source().close();
    }

    private static boolean threadAlive() {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals("verbatim-arena-closer"));
    }
}
