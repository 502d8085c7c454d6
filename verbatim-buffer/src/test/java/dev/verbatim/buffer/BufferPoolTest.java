package dev.verbatim.buffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Bounds, reuse, reclamation, misuse and closing of {@link BufferPool}, for heap and off-heap pools. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BufferPoolTest {

    private static final ValueLayout.OfLong LE_LONG =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    static BufferPool pool(Buffer.Kind kind, long maxBytes, int maxBuffers) {
        return switch (kind) {
            case HEAP -> BufferPool.heap(maxBytes, maxBuffers);
            case OFF_HEAP -> BufferPool.offHeap(maxBytes, maxBuffers);
            case MAPPED -> throw new IllegalArgumentException("no mapped pools");
        };
    }

    /** Checks the invariants every snapshot must satisfy. */
    static void assertConsistent(BufferPool.Stats s) {
        assertTrue(s.inUse() >= 0 && s.inUse() <= s.maxBuffers(), s::toString);
        assertTrue(s.bytesHeld() <= s.maxBytes(), s::toString);
        assertEquals(s.bytesHeld(), s.bytesInUse() + s.bytesFree(), s::toString);
        assertEquals(s.acquired(), s.released() + s.reclaimedByGc() + s.revokedOnClose() + s.inUse(), s::toString);
        assertTrue(s.free() >= 0 && s.bytesFree() >= 0, s::toString);
    }

    // ------------------------------------------------------------------ bounds

    @ParameterizedTest
    @EnumSource(names = {"HEAP", "OFF_HEAP"})
    void tryAcquireReturnsNullOverMaxBuffers(Buffer.Kind kind) {
        try (BufferPool pool = pool(kind, 1 << 16, 2)) {
            Buffer a = pool.tryAcquire(10);
            Buffer b = pool.tryAcquire(10);
            assertNotNull(a);
            assertNotNull(b);
            assertEquals(kind, a.kind());
            assertNull(pool.tryAcquire(10));
            assertEquals(2, pool.stats().inUse());
            a.release();
            Buffer c = pool.tryAcquire(10);
            assertNotNull(c);
            assertNull(pool.tryAcquire(1));
            b.release();
            c.release();
            assertConsistent(pool.stats());
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"HEAP", "OFF_HEAP"})
    void tryAcquireReturnsNullOverMaxBytes(Buffer.Kind kind) {
        try (BufferPool pool = pool(kind, 1024, 100)) {
            Buffer big = pool.tryAcquire(600); // a 1024-byte slot
            assertNotNull(big);
            assertEquals(600, big.capacity());
            assertEquals(1024, pool.stats().bytesHeld());
            assertNull(pool.tryAcquire(1));
            big.release();
            List<Buffer> small = new ArrayList<>();
            for (int i = 0; i < 16; i++) { // 16 x 64 = 1024: the idle 1024-byte slot is evicted
                Buffer b = pool.tryAcquire(64);
                assertNotNull(b, "small buffer " + i);
                small.add(b);
            }
            assertNull(pool.tryAcquire(64));
            BufferPool.Stats s = pool.stats();
            assertEquals(1024, s.bytesHeld());
            assertEquals(0, s.free());
            assertConsistent(s);
            small.forEach(Buffer::release);
            assertEquals(16, pool.stats().free());
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"HEAP", "OFF_HEAP"})
    void acquireGivesUpAfterItsTimeoutWithAClearException(Buffer.Kind kind) {
        try (BufferPool pool = pool(kind, 1 << 16, 1)) {
            Buffer held = pool.tryAcquire(100);
            PoolExhaustedException e = assertThrows(PoolExhaustedException.class,
                    () -> pool.acquire(100, Duration.ofMillis(50)));
            assertEquals(100, e.requestedBytes());
            assertTrue(e.getMessage().contains("100-byte buffer"), e.getMessage());
            assertTrue(e.getMessage().contains("1 buffers leased"), e.getMessage());
            assertThrows(PoolExhaustedException.class, () -> pool.acquire(100, Duration.ZERO));
            assertThrows(PoolExhaustedException.class, () -> pool.acquire(100, Duration.ofSeconds(-1)));
            held.release();
            assertConsistent(pool.stats());
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"HEAP", "OFF_HEAP"})
    void acquireWaitsForABufferToComeBack(Buffer.Kind kind) throws Exception {
        try (BufferPool pool = pool(kind, 1 << 16, 1)) {
            Buffer held = pool.tryAcquire(100);
            CountDownLatch waiting = new CountDownLatch(1);
            AtomicReference<Buffer> got = new AtomicReference<>();
            Thread waiter = Thread.ofPlatform().start(() -> {
                waiting.countDown();
                try {
                    got.set(pool.acquire(100, Duration.ofSeconds(20)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            waiting.await();
            held.release();
            waiter.join(TimeUnit.SECONDS.toMillis(20));
            assertNotNull(got.get());
            assertEquals(100, got.get().capacity());
            got.get().release();
            assertEquals(2, pool.stats().acquired());
        }
    }

    @Test
    void aWaitingAcquireCanBeInterrupted() throws Exception {
        try (BufferPool pool = BufferPool.offHeap(1 << 16, 1)) {
            Buffer held = pool.tryAcquire(100);
            AtomicReference<Throwable> outcome = new AtomicReference<>();
            Thread waiter = Thread.ofPlatform().start(() -> {
                try {
                    pool.acquire(100, Duration.ofSeconds(30));
                } catch (Throwable t) {
                    outcome.set(t);
                }
            });
            waiter.interrupt();
            waiter.join(TimeUnit.SECONDS.toMillis(20));
            assertTrue(outcome.get() instanceof InterruptedException, () -> String.valueOf(outcome.get()));
            held.release();
            assertConsistent(pool.stats());
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"HEAP", "OFF_HEAP"})
    void boundsHoldAndStatsAddUpUnderConcurrentAcquireAndRelease(Buffer.Kind kind) throws Exception {
        int threads = 6;
        int rounds = 1_500;
        int maxBuffers = 4;
        long maxBytes = 4096;
        try (BufferPool pool = pool(kind, maxBytes, maxBuffers)) {
            AtomicInteger leased = new AtomicInteger();
            AtomicInteger mostLeased = new AtomicInteger();
            AtomicInteger successes = new AtomicInteger();
            ExecutorService executor = Executors.newFixedThreadPool(threads);
            try {
                List<Future<?>> futures = new ArrayList<>();
                java.util.concurrent.CountDownLatch together = new java.util.concurrent.CountDownLatch(2);
                for (int t = 0; t < threads; t++) {
                    boolean meet = t < 2;
                    futures.add(executor.submit(() -> {
                        ThreadLocalRandom random = ThreadLocalRandom.current();
                        if (meet) { // two threads certainly hold a buffer at once, however they are scheduled
                            Buffer first = pool.acquire(8, Duration.ofSeconds(10));
                            mostLeased.accumulateAndGet(leased.incrementAndGet(), Math::max);
                            successes.incrementAndGet();
                            together.countDown();
                            together.await(20, TimeUnit.SECONDS);
                            leased.decrementAndGet();
                            first.release();
                        }
                        for (int i = 0; i < rounds; i++) {
                            long size = 8 + random.nextInt(700);
                            Buffer b = random.nextBoolean()
                                    ? pool.tryAcquire(size)
                                    : pool.acquire(size, Duration.ofSeconds(10));
                            if (b == null) {
                                continue;
                            }
                            int now = leased.incrementAndGet();
                            mostLeased.accumulateAndGet(now, Math::max);
                            successes.incrementAndGet();
                            long mark = Thread.currentThread().threadId() * 1_000_003L + i;
                            b.putLong(0, mark);
                            for (long at = 0; at < size; at++) {
                                if (at >= 8 && b.getByte(at) != 0) {
                                    throw new AssertionError("pooled memory not zeroed at " + at);
                                }
                            }
                            if (b.getLong(0) != mark) {
                                throw new AssertionError("another thread wrote into a leased buffer");
                            }
                            if (i % 100 == 0) {
                                assertConsistent(pool.stats());
                            }
                            leased.decrementAndGet();
                            if (random.nextBoolean()) {
                                b.release();
                            } else {
                                pool.release(b);
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> f : futures) {
                    f.get(40, TimeUnit.SECONDS);
                }
            } finally {
                executor.shutdownNow();
            }
            assertTrue(mostLeased.get() <= maxBuffers, "at most " + maxBuffers + " leased, saw " + mostLeased);
            assertTrue(mostLeased.get() > 1, "the threads did overlap");
            BufferPool.Stats s = pool.stats();
            assertConsistent(s);
            assertEquals(0, s.inUse());
            assertEquals(successes.get(), s.acquired());
            assertEquals(s.acquired(), s.released());
            assertEquals(0, s.reclaimedByGc());
            assertTrue(s.bytesHeld() <= maxBytes);
        }
    }

    // ------------------------------------------------------------------ reuse

    @ParameterizedTest
    @EnumSource(names = {"HEAP", "OFF_HEAP"})
    void memoryIsReusedOnlyAfterRelease(Buffer.Kind kind) {
        try (BufferPool pool = pool(kind, 1 << 16, 1)) {
            Buffer a = pool.tryAcquire(200);
            a.putLong(0, -1L);
            assertNull(pool.tryAcquire(200), "no second lease of the memory while the first lives");
            BufferPool.Stats leased = pool.stats();
            assertEquals(256, leased.bytesHeld());
            assertEquals(0, leased.free());
            a.release();
            BufferPool.Stats idle = pool.stats();
            assertEquals(1, idle.free());
            assertEquals(256, idle.bytesFree());
            Buffer b = pool.tryAcquire(150);
            BufferPool.Stats reused = pool.stats();
            assertEquals(0, reused.free(), "the idle slot was taken");
            assertEquals(256, reused.bytesHeld(), "no new memory was allocated");
            assertEquals(0L, b.getLong(0), "reused memory is zeroed");
            assertEquals(150, b.capacity());
            b.release();
            assertConsistent(pool.stats());
        }
    }

    @Test
    void offHeapReuseHandsOutTheSameAddressOnlyAfterRelease() {
        try (BufferPool pool = BufferPool.offHeap(1 << 16, 4)) {
            Buffer a = pool.tryAcquire(64);
            Buffer concurrent = pool.tryAcquire(64);
            long address = a.segment().address();
            assertNotEquals(address, concurrent.segment().address());
            a.release();
            Buffer b = pool.tryAcquire(64);
            assertEquals(address, b.segment().address());
            b.release();
            concurrent.release();
        }
    }

    @Test
    void aReleasedOffHeapSegmentCannotReadTheNextLesseesBytes() {
        try (BufferPool pool = BufferPool.offHeap(1 << 16, 1)) {
            Buffer first = pool.tryAcquire(64);
            MemorySegment old = first.segment();
            old.set(LE_LONG, 0, 0x1111_1111L);
            first.release();

            Buffer second = pool.tryAcquire(64);
            MemorySegment now = second.segment();
            assertEquals(old.address(), now.address(), "the same memory was leased again");
            now.set(LE_LONG, 0, 0x2222_2222L);
            now.set(LE_LONG, 8, 0x3333_3333L);

            IllegalStateException e = assertThrows(IllegalStateException.class, () -> old.get(LE_LONG, 0));
            assertNotNull(e.getMessage());
            assertThrows(IllegalStateException.class, () -> old.get(LE_LONG, 8));
            assertThrows(IllegalStateException.class, () -> old.set(LE_LONG, 0, 0L));
            assertThrows(IllegalStateException.class, () -> MemorySegment.copy(old, 0, MemorySegment.ofArray(new byte[8]), 0, 8));
            assertEquals(0x2222_2222L, second.getLong(0));
            second.release();
        }
    }

    @Test
    void aHeapArrayWhoseSegmentEscapedIsNeverLeasedAgain() {
        try (BufferPool pool = BufferPool.heap(1 << 16, 1)) {
            Buffer first = pool.tryAcquire(64);
            MemorySegment old = first.segment();
            old.set(LE_LONG, 0, 0x1111_1111L);
            first.release();
            assertEquals(0, pool.stats().free(), "the escaped array was dropped, not pooled");
            assertEquals(0, pool.stats().bytesHeld());

            Buffer second = pool.tryAcquire(64);
            second.putLong(0, 0x2222_2222L);
            assertEquals(0x1111_1111L, old.get(LE_LONG, 0), "the old segment sees only its own bytes");
            old.set(LE_LONG, 0, -1L);
            assertEquals(0x2222_2222L, second.getLong(0), "and cannot write into the new buffer");
            second.release();
            assertEquals(1, pool.stats().free(), "a heap buffer used only through its methods is pooled");
            assertConsistent(pool.stats());
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"HEAP", "OFF_HEAP"})
    void aBulkCopyRacingWithReleaseSeesOnlyTheReleasedBuffersBytes(Buffer.Kind kind) throws Exception {
        int size = 16 << 20;
        try (BufferPool pool = pool(kind, size, 1)) {
            for (int round = 0; round < 3; round++) {
                Buffer b = pool.tryAcquire(size);
                b.fill(0, size, (byte) 0x11);
                byte[] copy = new byte[size];
                CountDownLatch copying = new CountDownLatch(1);
                AtomicReference<Throwable> outcome = new AtomicReference<>();
                Thread reader = Thread.ofPlatform().start(() -> {
                    copying.countDown();
                    try {
                        for (int i = 0; i < 4; i++) {
                            b.getArray(0, copy, 0, size);
                        }
                    } catch (Throwable t) {
                        outcome.set(t);
                    }
                });
                copying.await();
                b.release();
                Buffer next = pool.tryAcquire(size); // the same memory, zeroed for the next lessee
                next.fill(0, size, (byte) 0x5A);
                reader.join(TimeUnit.SECONDS.toMillis(20));
                Throwable t = outcome.get();
                assertTrue(t == null || t instanceof IllegalStateException, () -> "unexpected " + t);
                for (int i = 0; i < size; i++) {
                    if (copy[i] != 0 && copy[i] != 0x11) { // 0: the copy never started
                        throw new AssertionError("byte " + i + " came from the next lessee: " + copy[i]);
                    }
                }
                next.release();
            }
            assertEquals(1, pool.stats().free(), "the memory was reused each round");
        }
    }

    // ------------------------------------------------------------------ garbage collection

    /** Acquires a buffer, uses it and drops it without releasing. */
    private static void leak(BufferPool pool, long size) {
        Buffer b = pool.tryAcquire(size);
        b.putLong(0, 42L);
        b.slice(8, 8).putLong(0, 43L);
    }

    @ParameterizedTest
    @EnumSource(names = {"HEAP", "OFF_HEAP"})
    void aDroppedBufferIsReclaimedByTheGarbageCollector(Buffer.Kind kind) throws Exception {
        try (BufferPool pool = pool(kind, 1 << 16, 1)) {
            leak(pool, 100);
            assertNull(pool.tryAcquire(100), "still counted as leased until the GC proves otherwise");
            assertTrue(Gc.until(() -> pool.stats().reclaimedByGc() == 1), () -> "not reclaimed: " + pool.stats());
            BufferPool.Stats s = pool.stats();
            assertEquals(0, s.inUse());
            assertEquals(1, s.free());
            assertEquals(0, s.released());
            assertConsistent(s);
            Buffer again = pool.tryAcquire(100);
            assertNotNull(again);
            assertEquals(0L, again.getLong(0), "reclaimed memory is zeroed before reuse");
            again.release();
        }
    }

    /** Acquires a buffer, drops it but keeps its segment. */
    private static MemorySegment leakKeepingSegment(BufferPool pool) {
        Buffer b = pool.tryAcquire(64);
        b.putLong(0, 4242L);
        return b.segment().asSlice(0, 16);
    }

    @Test
    void aSegmentKeepsItsLeaseAliveUntilItTooIsUnreachable() throws Exception {
        try (BufferPool pool = BufferPool.offHeap(1 << 16, 1)) {
            MemorySegment kept = leakKeepingSegment(pool);
            Gc.collectAFewTimes();
            assertEquals(0, pool.stats().reclaimedByGc(), "a reachable segment is a reachable view");
            assertEquals(4242L, kept.get(LE_LONG, 0));
            assertNull(pool.tryAcquire(64));
            kept = null;
            assertTrue(Gc.until(() -> pool.stats().reclaimedByGc() == 1), () -> "not reclaimed: " + pool.stats());
            assertNull(kept);
        }
    }

    @Test
    void aRegistrationOfAReclaimedBufferIsDeregistered() throws Exception {
        AtomicInteger deregistered = new AtomicInteger();
        try (BufferPool pool = BufferPool.offHeap(1 << 16, 1)) {
            registerAndLeak(pool, deregistered);
            assertTrue(Gc.until(() -> deregistered.get() == 1), () -> "not deregistered: " + pool.stats());
            assertEquals(1, pool.stats().reclaimedByGc());
        }
        assertEquals(1, deregistered.get());
    }

    private static void registerAndLeak(BufferPool pool, AtomicInteger deregistered) {
        Buffer b = pool.tryAcquire(64);
        b.register(new BufferContractTest.CountingRegistration("transport", deregistered));
    }

    // ------------------------------------------------------------------ misuse

    @Test
    void releasingThroughAnotherPoolIsRejected() {
        try (BufferPool mine = BufferPool.offHeap(1 << 16, 2); BufferPool theirs = BufferPool.offHeap(1 << 16, 2)) {
            Buffer b = mine.tryAcquire(64);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> theirs.release(b));
            assertTrue(e.getMessage().contains("not acquired from this pool"), e.getMessage());
            assertFalse(b.isReleased(), "a rejected release leaves the buffer alone");
            Buffer unpooled = Buffers.offHeap(64);
            assertThrows(IllegalArgumentException.class, () -> mine.release(unpooled));
            assertFalse(unpooled.isReleased());
            unpooled.release();
            mine.release(b);
            assertTrue(b.isReleased());
            assertEquals(0, theirs.stats().released());
            assertEquals(1, mine.stats().released());
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"HEAP", "OFF_HEAP"})
    void doubleReleaseThroughThePoolIsRejected(Buffer.Kind kind) {
        try (BufferPool pool = pool(kind, 1 << 16, 2)) {
            Buffer b = pool.tryAcquire(64);
            pool.release(b);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> pool.release(b));
            assertTrue(e.getMessage().contains("double release"), e.getMessage());
            assertThrows(UnsupportedOperationException.class, () -> pool.release(pool.tryAcquire(64).slice(0, 8)));
            BufferPool.Stats s = pool.stats();
            assertEquals(1, s.released(), "the slot went back once");
            assertEquals(1, s.inUse());
            assertConsistent(s);
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"HEAP", "OFF_HEAP"})
    void negativeAndOverflowingSizesAreRejectedWithTheNumber(Buffer.Kind kind) {
        try (BufferPool pool = pool(kind, 1 << 20, 2)) {
            IllegalArgumentException negative = assertThrows(IllegalArgumentException.class, () -> pool.tryAcquire(-1));
            assertTrue(negative.getMessage().contains("-1"), negative.getMessage());
            IllegalArgumentException huge = assertThrows(IllegalArgumentException.class,
                    () -> pool.tryAcquire(Long.MAX_VALUE));
            assertTrue(huge.getMessage().contains(String.valueOf(Long.MAX_VALUE)), huge.getMessage());
            IllegalArgumentException overPool = assertThrows(IllegalArgumentException.class,
                    () -> pool.acquire((1 << 20) + 1, Duration.ofSeconds(5)));
            assertTrue(overPool.getMessage().contains(String.valueOf((1 << 20) + 1)), overPool.getMessage());
            assertTrue(overPool.getMessage().contains("maxBytes"), overPool.getMessage());
            assertThrows(IllegalArgumentException.class, () -> pool.tryAcquire(Long.MIN_VALUE));
            assertThrows(IllegalArgumentException.class, () -> pool.tryAcquire((1L << 62) + 1));
            Buffer empty = pool.tryAcquire(0);
            assertEquals(0, empty.capacity());
            empty.release();
            assertEquals(0, pool.stats().inUse());
        }
        IllegalArgumentException bytes = assertThrows(IllegalArgumentException.class, () -> pool(kind, -5, 1));
        assertTrue(bytes.getMessage().contains("-5"), bytes.getMessage());
        IllegalArgumentException buffers = assertThrows(IllegalArgumentException.class, () -> pool(kind, 1024, -3));
        assertTrue(buffers.getMessage().contains("-3"), buffers.getMessage());
        assertThrows(IllegalArgumentException.class, () -> pool(kind, 1024, 0));
        assertThrows(IllegalArgumentException.class, () -> pool(kind, 63, 1));
    }

    @Test
    void heapPoolsRejectSizesNoArrayCanHold() {
        try (BufferPool pool = BufferPool.heap(Long.MAX_VALUE, 1)) {
            long tooBig = (1L << 33) + 1;
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> pool.tryAcquire(tooBig));
            assertTrue(e.getMessage().contains(String.valueOf(tooBig)), e.getMessage());
        }
    }

    // ------------------------------------------------------------------ closing

    @ParameterizedTest
    @EnumSource(names = {"HEAP", "OFF_HEAP"})
    void closingRevokesLeasedBuffersAndRefusesAcquisition(Buffer.Kind kind) {
        BufferPool pool = pool(kind, 1 << 16, 4);
        Buffer leased = pool.tryAcquire(64);
        Buffer slice = leased.slice(8, 8);
        MemorySegment segment = leased.segment();
        AtomicInteger deregistered = new AtomicInteger();
        leased.register(new BufferContractTest.CountingRegistration("t", deregistered));
        pool.tryAcquire(128).release(); // an idle slot
        assertFalse(pool.isClosed());

        pool.close();
        assertTrue(pool.isClosed());
        assertTrue(leased.isReleased());
        assertEquals(1, deregistered.get());
        IllegalStateException use = assertThrows(IllegalStateException.class, () -> leased.getLong(0));
        assertTrue(use.getMessage().contains("pool was closed"), use.getMessage());
        assertThrows(IllegalStateException.class, () -> slice.putLong(0, 1));
        if (kind == Buffer.Kind.OFF_HEAP) {
            assertThrows(IllegalStateException.class, () -> segment.get(LE_LONG, 0));
        }
        IllegalStateException release = assertThrows(IllegalStateException.class, leased::release);
        assertTrue(release.getMessage().contains("pool was closed"), release.getMessage());
        IllegalStateException acquire = assertThrows(IllegalStateException.class, () -> pool.tryAcquire(64));
        assertTrue(acquire.getMessage().contains("closed pool"), acquire.getMessage());
        assertThrows(IllegalStateException.class, () -> pool.acquire(64, Duration.ofSeconds(1)));

        BufferPool.Stats s = pool.stats();
        assertTrue(s.closed());
        assertEquals(0, s.bytesHeld(), "all memory freed");
        assertEquals(0, s.inUse());
        assertEquals(1, s.revokedOnClose());
        assertConsistent(s);
        pool.close(); // closing again does nothing
        assertEquals(s, pool.stats());
    }

    @Test
    void closingWakesWaitingAcquirers() throws Exception {
        BufferPool pool = BufferPool.offHeap(1 << 16, 1);
        Buffer held = pool.tryAcquire(64);
        CountDownLatch started = new CountDownLatch(1);
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        Thread waiter = Thread.ofPlatform().start(() -> {
            started.countDown();
            try {
                pool.acquire(64, Duration.ofSeconds(30));
            } catch (Throwable t) {
                outcome.set(t);
            }
        });
        started.await();
        while (waiter.getState() != Thread.State.TIMED_WAITING && waiter.isAlive()) {
            Thread.onSpinWait();
        }
        pool.close();
        waiter.join(TimeUnit.SECONDS.toMillis(20));
        assertTrue(outcome.get() instanceof IllegalStateException, () -> String.valueOf(outcome.get()));
        assertTrue(held.isReleased());
    }

    @Test
    void aBufferReleasedAfterItsPoolClosedReportsTheClose() {
        BufferPool pool = BufferPool.heap(1 << 16, 2);
        Buffer b = pool.tryAcquire(64);
        pool.close();
        assertSame(Buffer.Kind.HEAP, b.kind());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> pool.release(b));
        assertTrue(e.getMessage().contains("pool was closed"), e.getMessage());
    }
}
