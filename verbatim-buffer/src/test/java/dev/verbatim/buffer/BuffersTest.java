package dev.verbatim.buffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Unpooled buffers: size checks, and memory freed when a buffer is dropped without release. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class BuffersTest {

    @TempDir
    Path dir;

    @Test
    void negativeAndOverflowingSizesAreRejectedWithTheNumber() {
        IllegalArgumentException heapNegative = assertThrows(IllegalArgumentException.class, () -> Buffers.heap(-1));
        assertTrue(heapNegative.getMessage().contains("-1"), heapNegative.getMessage());
        IllegalArgumentException heapHuge = assertThrows(IllegalArgumentException.class,
                () -> Buffers.heap(Long.MAX_VALUE));
        assertTrue(heapHuge.getMessage().contains(String.valueOf(Long.MAX_VALUE)), heapHuge.getMessage());
        IllegalArgumentException offHeapNegative = assertThrows(IllegalArgumentException.class,
                () -> Buffers.offHeap(-42));
        assertTrue(offHeapNegative.getMessage().contains("-42"), offHeapNegative.getMessage());
    }

    @Test
    void emptyBuffersWork() throws IOException {
        for (Buffer b : new Buffer[] {Buffers.heap(0), Buffers.offHeap(0), Buffers.mapNew(dir.resolve("empty"), 0)}) {
            assertEquals(0, b.capacity());
            assertThrows(IndexOutOfBoundsException.class, () -> b.getByte(0));
            assertEquals(0, b.slice(0, 0).capacity());
            b.release();
        }
    }

    /** Makes a buffer with a registration, and drops it without releasing. */
    private static void leak(Buffer b, AtomicInteger deregistered) {
        b.putLong(0, 1L);
        b.register(new BufferContractTest.CountingRegistration("probe", deregistered));
    }

    @Test
    void unpooledBuffersDroppedWithoutReleaseAreFreedByTheGarbageCollector() throws Exception {
        long before = Buffers.reclaimedByGc();
        AtomicInteger heap = new AtomicInteger();
        AtomicInteger offHeap = new AtomicInteger();
        AtomicInteger mapped = new AtomicInteger();
        leak(Buffers.heap(64), heap);
        leak(Buffers.offHeap(64), offHeap);
        leak(Buffers.mapNew(dir.resolve("leaked.bin"), 64), mapped);
        assertTrue(Gc.until(() -> heap.get() == 1 && offHeap.get() == 1 && mapped.get() == 1),
                () -> "reclaimed: heap " + heap + ", off-heap " + offHeap + ", mapped " + mapped);
        assertTrue(Buffers.reclaimedByGc() >= before + 3, "reclaimed count rose by " + (Buffers.reclaimedByGc() - before));
    }

    /** A registration that, when its lease ends, records whether {@code segment} could still be read. */
    private record RevocationProbe(MemorySegment segment, AtomicReference<String> seen) implements Registration {
        @Override
        public Object key() {
            return "probe";
        }

        @Override
        public void deregister() {
            try {
                segment.get(ValueLayout.JAVA_BYTE, 0);
                seen.set("readable");
            } catch (IllegalStateException revoked) {
                seen.set("revoked");
            }
        }
    }

    /** Writes 42 into {@code b}, drops it with a {@link RevocationProbe} and returns a segment of it. */
    private static MemorySegment leakKeepingSegment(Buffer b, AtomicReference<String> seen) {
        b.putLong(0, 42L);
        MemorySegment segment = b.segment().asSlice(0, 8);
        b.register(new RevocationProbe(segment, seen));
        return segment;
    }

    @Test
    void aSegmentOfAnUnpooledBufferTheCollectorReclaimedThrowsInsteadOfReadingFreedMemory() throws Exception {
        // An unpooled native segment belongs to its memory's own arena and does not keep the buffer
        // reachable (no restricted-free way can anchor it): the collector reclaims the buffer, its
        // arena is closed before the registration is told, and the segment is revoked, never dangling.
        AtomicReference<String> offHeapSeen = new AtomicReference<>();
        AtomicReference<String> mappedSeen = new AtomicReference<>();
        MemorySegment offHeap = leakKeepingSegment(Buffers.offHeap(64), offHeapSeen);
        MemorySegment mapped = leakKeepingSegment(Buffers.mapNew(dir.resolve("kept.bin"), 64), mappedSeen);
        assertEquals(42L, offHeap.get(BufferContractTest.LE_LONG, 0));
        assertEquals(42L, mapped.get(BufferContractTest.LE_LONG, 0));
        assertTrue(Gc.until(() -> offHeapSeen.get() != null && mappedSeen.get() != null),
                () -> "reclaimed: off-heap " + offHeapSeen + ", mapped " + mappedSeen);
        assertEquals("revoked", offHeapSeen.get(), "off-heap segment when the registration was told");
        assertEquals("revoked", mappedSeen.get(), "mapped segment when the registration was told");
        assertThrows(IllegalStateException.class, () -> offHeap.get(BufferContractTest.LE_LONG, 0));
        assertThrows(IllegalStateException.class, () -> mapped.get(BufferContractTest.LE_LONG, 0));
    }

    @Test
    void aReleasedBufferIsNotCountedAsReclaimed() throws Exception {
        AtomicInteger deregistered = new AtomicInteger();
        Buffer b = Buffers.offHeap(64);
        b.register(new BufferContractTest.CountingRegistration("probe", deregistered));
        b.release();
        b = null;
        Gc.collectAFewTimes();
        assertEquals(1, deregistered.get(), "deregistered once, by the release, not again by the cleaner");
        assertNull(b);
    }
}
