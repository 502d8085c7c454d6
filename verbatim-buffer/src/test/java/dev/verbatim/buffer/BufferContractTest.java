package dev.verbatim.buffer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;

/**
 * The contract every {@link Buffer} keeps, whatever its kind and whether it is pooled. Each
 * concrete subclass supplies buffers of one implementation.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
abstract class BufferContractTest {

    static final ValueLayout.OfLong LE_LONG =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfInt LE_INT =
            ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** A new live buffer of exactly {@code size} bytes. */
    abstract Buffer newBuffer(long size) throws Exception;

    /** The kind of the buffers {@link #newBuffer} makes. */
    abstract Buffer.Kind kind();

    /** Whether segments handed out become inaccessible when the lease ends (native memory). */
    boolean segmentsRevocable() {
        return kind() != Buffer.Kind.HEAP;
    }

    // ------------------------------------------------------------------ basics

    @Test
    void newBufferHasItsKindCapacityAndReadsAsZero() throws Exception {
        Buffer b = newBuffer(100);
        assertEquals(kind(), b.kind());
        assertEquals(100, b.capacity());
        assertEquals(100, b.segment().byteSize());
        assertFalse(b.isReleased());
        assertFalse(b.isSlice());
        assertFalse(b.isReadOnly());
        for (long i = 0; i < 100; i++) {
            assertEquals(0, b.getByte(i), "byte " + i);
        }
        b.release();
        assertTrue(b.isReleased());
        assertEquals(100, b.capacity(), "capacity answers after release");
    }

    @Test
    void typedValuesRoundTripAtBothEnds() throws Exception {
        Buffer b = newBuffer(64);
        long last = b.capacity();
        for (long at : new long[] {0, 1, last - 8}) {
            b.putByte(at, Byte.MIN_VALUE);
            assertEquals(Byte.MIN_VALUE, b.getByte(at));
            b.putByte(at, Byte.MAX_VALUE);
            assertEquals(Byte.MAX_VALUE, b.getByte(at));
            b.putShort(at, Short.MIN_VALUE);
            assertEquals(Short.MIN_VALUE, b.getShort(at));
            b.putShort(at, (short) 0xBEEF);
            assertEquals((short) 0xBEEF, b.getShort(at));
            b.putChar(at, Character.MAX_VALUE);
            assertEquals(Character.MAX_VALUE, b.getChar(at));
            b.putChar(at, 'λ');
            assertEquals('λ', b.getChar(at));
            b.putInt(at, Integer.MIN_VALUE);
            assertEquals(Integer.MIN_VALUE, b.getInt(at));
            b.putInt(at, 0xCAFEBABE);
            assertEquals(0xCAFEBABE, b.getInt(at));
            b.putLong(at, Long.MIN_VALUE);
            assertEquals(Long.MIN_VALUE, b.getLong(at));
            b.putLong(at, 0x0123456789ABCDEFL);
            assertEquals(0x0123456789ABCDEFL, b.getLong(at));
            float nan = Float.intBitsToFloat(0x7FC0_1234);
            b.putFloat(at, nan);
            assertEquals(0x7FC0_1234, Float.floatToRawIntBits(b.getFloat(at)), "NaN payload kept");
            b.putFloat(at, -0.0f);
            assertEquals(Float.floatToRawIntBits(-0.0f), Float.floatToRawIntBits(b.getFloat(at)));
            b.putDouble(at, Double.MIN_VALUE);
            assertEquals(Double.MIN_VALUE, b.getDouble(at));
            double dnan = Double.longBitsToDouble(0x7FF8_0000_0000_0042L);
            b.putDouble(at, dnan);
            assertEquals(0x7FF8_0000_0000_0042L, Double.doubleToRawLongBits(b.getDouble(at)));
        }
        // The last byte of each width is reachable exactly at capacity - width.
        b.putByte(last - 1, (byte) 7);
        assertEquals(7, b.getByte(last - 1));
        b.putShort(last - 2, (short) 7);
        assertEquals(7, b.getShort(last - 2));
        b.putInt(last - 4, 7);
        assertEquals(7, b.getInt(last - 4));
        b.putFloat(last - 4, 7.5f);
        assertEquals(7.5f, b.getFloat(last - 4));
        b.putDouble(last - 8, 7.25);
        assertEquals(7.25, b.getDouble(last - 8));
        b.release();
    }

    @Test
    void scalarsAreLittleEndian() throws Exception {
        Buffer b = newBuffer(32);
        b.putInt(0, 0x0A0B0C0D);
        assertEquals(0x0D, b.getByte(0));
        assertEquals(0x0C, b.getByte(1));
        assertEquals(0x0B, b.getByte(2));
        assertEquals(0x0A, b.getByte(3));
        b.putLong(8, 0x0102030405060708L);
        for (int i = 0; i < 8; i++) {
            assertEquals(8 - i, b.getByte(8 + i), "long byte " + i);
        }
        b.putShort(16, (short) 0x1122);
        assertEquals(0x22, b.getByte(16));
        assertEquals(0x11, b.getByte(17));
        b.putChar(18, '\u3344');
        assertEquals(0x44, b.getByte(18));
        b.putDouble(24, 1.0); // 0x3FF0000000000000
        assertEquals((byte) 0x3F, b.getByte(31));
        assertEquals((byte) 0xF0, b.getByte(30));

        // Same bytes as the JDK's little-endian ByteBuffer.
        byte[] bytes = new byte[32];
        b.putFloat(4, 3.5f);
        b.getArray(0, bytes, 0, 32);
        ByteBuffer reference = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(0x0A0B0C0D, reference.getInt(0));
        assertEquals(3.5f, reference.getFloat(4));
        assertEquals(0x0102030405060708L, reference.getLong(8));
        assertEquals((short) 0x1122, reference.getShort(16));
        assertEquals('\u3344', reference.getChar(18));
        assertEquals(1.0, reference.getDouble(24));
        b.release();
    }

    @Test
    void everyUnalignedOffsetWorks() throws Exception {
        Buffer b = newBuffer(64);
        for (int at = 0; at <= 56; at++) {
            long v = 0x1122334455667788L ^ at;
            b.putLong(at, v);
            assertEquals(v, b.getLong(at), "offset " + at);
            b.putInt(at, (int) v);
            assertEquals((int) v, b.getInt(at), "offset " + at);
        }
        b.release();
    }

    @Test
    void outOfBoundsAccessThrowsIndexOutOfBounds() throws Exception {
        Buffer b = newBuffer(16);
        List<Executable> outside = List.of(
                () -> b.getByte(16), () -> b.getByte(-1), () -> b.putByte(16, (byte) 1),
                () -> b.getShort(15), () -> b.putShort(-1, (short) 1),
                () -> b.getChar(15), () -> b.putChar(15, 'x'),
                () -> b.getInt(13), () -> b.putInt(13, 1), () -> b.getInt(Long.MAX_VALUE),
                () -> b.getLong(9), () -> b.putLong(9, 1), () -> b.getLong(Long.MIN_VALUE),
                () -> b.getFloat(13), () -> b.putFloat(13, 1f),
                () -> b.getDouble(9), () -> b.putDouble(9, 1d),
                () -> b.fill(8, 9, (byte) 1), () -> b.fill(-1, 1, (byte) 1));
        for (Executable e : outside) {
            assertThrows(IndexOutOfBoundsException.class, e);
        }
        for (long i = 0; i < 16; i++) {
            assertEquals(0, b.getByte(i), "no partial write at " + i);
        }
        b.release(); // also proves no access was left open by a failed one
        assertTrue(b.isReleased());
    }

    // ------------------------------------------------------------------ bulk copies

    @Test
    void arraysRoundTripForEveryPrimitiveType() throws Exception {
        Buffer b = newBuffer(256);
        byte[] bytes = {1, -2, 3, -4, 5};
        b.putArray(3, bytes, 1, 3);
        byte[] bytesBack = new byte[5];
        b.getArray(3, bytesBack, 2, 3);
        assertArrayEquals(new byte[] {0, 0, -2, 3, -4}, bytesBack);

        short[] shorts = {Short.MIN_VALUE, -1, 0x1234};
        b.putArray(9, shorts, 0, 3);
        short[] shortsBack = new short[3];
        b.getArray(9, shortsBack, 0, 3);
        assertArrayEquals(shorts, shortsBack);

        char[] chars = "añ€".toCharArray();
        b.putArray(17, chars, 0, chars.length);
        char[] charsBack = new char[chars.length];
        b.getArray(17, charsBack, 0, chars.length);
        assertArrayEquals(chars, charsBack);

        int[] ints = {Integer.MIN_VALUE, -1, 0x7F00FF00};
        b.putArray(33, ints, 0, 3);
        int[] intsBack = new int[3];
        b.getArray(33, intsBack, 0, 3);
        assertArrayEquals(ints, intsBack);

        long[] longs = {Long.MIN_VALUE, -1, 0x0102030405060708L};
        b.putArray(65, longs, 0, 3);
        long[] longsBack = new long[3];
        b.getArray(65, longsBack, 0, 3);
        assertArrayEquals(longs, longsBack);

        float[] floats = {Float.MIN_VALUE, -0.0f, Float.POSITIVE_INFINITY};
        b.putArray(101, floats, 0, 3);
        float[] floatsBack = new float[3];
        b.getArray(101, floatsBack, 0, 3);
        assertArrayEquals(floats, floatsBack);

        double[] doubles = {Double.MAX_VALUE, -0.0, Double.NEGATIVE_INFINITY};
        b.putArray(129, doubles, 0, 3);
        double[] doublesBack = new double[3];
        b.getArray(129, doublesBack, 0, 3);
        assertArrayEquals(doubles, doublesBack);
        b.release();
    }

    @Test
    void arrayCopiesAreLittleEndianLikeScalars() throws Exception {
        Buffer b = newBuffer(64);
        b.putArray(1, new int[] {0x01020304, 0x05060708}, 0, 2);
        assertEquals(0x01020304, b.getInt(1));
        assertEquals(0x04, b.getByte(1));
        assertEquals(0x05060708, b.getInt(5));
        b.putLong(16, 0x1122334455667788L);
        long[] one = new long[1];
        b.getArray(16, one, 0, 1);
        assertEquals(0x1122334455667788L, one[0]);
        b.putDouble(24, Math.PI);
        double[] pi = new double[1];
        b.getArray(24, pi, 0, 1);
        assertEquals(Math.PI, pi[0]);
        b.release();
    }

    @Test
    void bulkCopiesRejectOutOfBoundsRanges() throws Exception {
        Buffer b = newBuffer(16);
        byte[] bytes = new byte[8];
        assertThrows(IndexOutOfBoundsException.class, () -> b.getArray(12, bytes, 0, 8));
        assertThrows(IndexOutOfBoundsException.class, () -> b.getArray(0, bytes, 4, 8));
        assertThrows(IndexOutOfBoundsException.class, () -> b.putArray(0, bytes, -1, 2));
        assertThrows(IndexOutOfBoundsException.class, () -> b.putArray(0, new long[3], 0, 3));
        assertThrows(IndexOutOfBoundsException.class, () -> b.putArray(-1, bytes, 0, 1));
        MemorySegment heap = MemorySegment.ofArray(new byte[8]);
        assertThrows(IndexOutOfBoundsException.class, () -> b.getSegment(0, heap, 0, 9));
        assertThrows(IndexOutOfBoundsException.class, () -> b.putSegment(10, heap, 0, 8));
        Buffer other = Buffers.heap(8);
        assertThrows(IndexOutOfBoundsException.class, () -> b.putBuffer(0, other, 1, 8));
        assertThrows(IndexOutOfBoundsException.class, () -> other.putBuffer(4, b, 0, 8));
        other.release();
        b.release();
    }

    @Test
    void segmentCopiesGoBothWaysWithHeapAndNativeSegments() throws Exception {
        Buffer b = newBuffer(64);
        MemorySegment heap = MemorySegment.ofArray(new byte[] {9, 8, 7, 6, 5});
        b.putSegment(10, heap, 1, 4);
        assertEquals(8, b.getByte(10));
        assertEquals(5, b.getByte(13));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment nat = arena.allocate(16);
            b.getSegment(10, nat, 2, 4);
            assertEquals(8, nat.get(ValueLayout.JAVA_BYTE, 2));
            assertEquals(5, nat.get(ValueLayout.JAVA_BYTE, 5));
            nat.set(LE_LONG, 8, -2L);
            b.putSegment(56, nat, 8, 8);
            assertEquals(-2L, b.getLong(56));
        }
        b.release();
    }

    @Test
    void putBufferCopiesBetweenBuffersOfAnyKindAndWithinOne() throws Exception {
        Buffer b = newBuffer(64);
        Buffer heap = Buffers.heap(16);
        heap.putLong(0, 0x0102030405060708L);
        b.putBuffer(20, heap, 0, 8);
        assertEquals(0x0102030405060708L, b.getLong(20));
        heap.putBuffer(8, b, 20, 8);
        assertEquals(0x0102030405060708L, heap.getLong(8));
        b.putBuffer(21, b, 20, 8); // overlapping, same buffer
        assertEquals(0x0102030405060708L, b.getLong(21));
        heap.release();
        b.release();
    }

    @Test
    void fillSetsExactlyTheRange() throws Exception {
        Buffer b = newBuffer(32);
        b.fill(4, 8, (byte) 0x7E);
        for (int i = 0; i < 32; i++) {
            assertEquals(i >= 4 && i < 12 ? 0x7E : 0, b.getByte(i), "byte " + i);
        }
        b.release();
    }

    @Test
    void segmentShowsTheSameBytes() throws Exception {
        Buffer b = newBuffer(32);
        MemorySegment s = b.segment();
        b.putLong(3, 0x0102030405060708L);
        assertEquals(0x0102030405060708L, s.get(LE_LONG, 3));
        s.set(LE_INT, 20, -5);
        assertEquals(-5, b.getInt(20));
        assertEquals(b.capacity(), s.byteSize());
        b.release();
    }

    // ------------------------------------------------------------------ slices

    @Test
    void slicesShareContentAtTheirOffset() throws Exception {
        Buffer b = newBuffer(64);
        Buffer s = b.slice(16, 32);
        assertTrue(s.isSlice());
        assertEquals(32, s.capacity());
        assertEquals(kind(), s.kind());
        s.putInt(0, 0x11223344);
        assertEquals(0x11223344, b.getInt(16));
        b.putLong(40, -9L);
        assertEquals(-9L, s.getLong(24));
        Buffer inner = s.slice(8, 8);
        inner.putLong(0, 77L);
        assertEquals(77L, b.getLong(24));
        assertEquals(77L, s.getLong(8));
        assertEquals(77L, s.segment().get(LE_LONG, 8));
        assertEquals(b.getLong(24), inner.segment().get(LE_LONG, 0));
        b.release();
    }

    @Test
    void sliceBoundsAreChecked() throws Exception {
        Buffer b = newBuffer(64);
        assertThrows(IndexOutOfBoundsException.class, () -> b.slice(-1, 4));
        assertThrows(IndexOutOfBoundsException.class, () -> b.slice(0, 65));
        assertThrows(IndexOutOfBoundsException.class, () -> b.slice(60, 5));
        assertThrows(IndexOutOfBoundsException.class, () -> b.slice(8, -1));
        assertThrows(IndexOutOfBoundsException.class, () -> b.slice(Long.MAX_VALUE, 1));
        Buffer s = b.slice(60, 4);
        assertThrows(IndexOutOfBoundsException.class, () -> s.getInt(1));
        assertThrows(IndexOutOfBoundsException.class, () -> s.getByte(4));
        assertThrows(IndexOutOfBoundsException.class, () -> s.slice(2, 3));
        assertEquals(0, b.slice(64, 0).capacity());
        b.release();
    }

    @Test
    void slicesEndWithTheirParent() throws Exception {
        Buffer b = newBuffer(64);
        Buffer s = b.slice(8, 16);
        Buffer inner = s.slice(4, 4);
        b.release();
        assertTrue(s.isReleased());
        assertTrue(inner.isReleased());
        assertThrows(IllegalStateException.class, () -> s.getInt(0));
        assertThrows(IllegalStateException.class, () -> s.putInt(0, 1));
        assertThrows(IllegalStateException.class, () -> inner.getByte(0));
        assertThrows(IllegalStateException.class, s::segment);
        assertThrows(IllegalStateException.class, () -> s.slice(0, 1));
        assertEquals(16, s.capacity());
    }

    @Test
    void aSliceCannotBeReleasedOnItsOwn() throws Exception {
        Buffer b = newBuffer(64);
        Buffer s = b.slice(0, 8);
        assertThrows(UnsupportedOperationException.class, s::release);
        assertFalse(b.isReleased());
        s.putLong(0, 1L);
        assertEquals(1L, b.getLong(0));
        b.release();
    }

    // ------------------------------------------------------------------ release

    @Test
    void everyAccessAfterReleaseThrowsIllegalState() throws Exception {
        Buffer b = newBuffer(64);
        Buffer other = Buffers.heap(8);
        b.release();
        List<Executable> uses = List.of(
                () -> b.getByte(0), () -> b.putByte(0, (byte) 1),
                () -> b.getShort(0), () -> b.putShort(0, (short) 1),
                () -> b.getChar(0), () -> b.putChar(0, 'c'),
                () -> b.getInt(0), () -> b.putInt(0, 1),
                () -> b.getLong(0), () -> b.putLong(0, 1),
                () -> b.getFloat(0), () -> b.putFloat(0, 1),
                () -> b.getDouble(0), () -> b.putDouble(0, 1),
                () -> b.getArray(0, new byte[4], 0, 4), () -> b.putArray(0, new byte[4], 0, 4),
                () -> b.getArray(0, new long[1], 0, 1), () -> b.putArray(0, new double[1], 0, 1),
                () -> b.getSegment(0, MemorySegment.ofArray(new byte[4]), 0, 4),
                () -> b.putSegment(0, MemorySegment.ofArray(new byte[4]), 0, 4),
                () -> b.putBuffer(0, other, 0, 4), () -> other.putBuffer(0, b, 0, 4),
                () -> b.fill(0, 4, (byte) 1), b::segment, () -> b.slice(0, 4), b::force,
                () -> b.getByte(1000) /* released wins over bounds */);
        for (Executable use : uses) {
            IllegalStateException e = assertThrows(IllegalStateException.class, use);
            assertTrue(e.getMessage().contains("released"), e.getMessage());
        }
        assertEquals(0, other.getLong(0), "a failed copy leaves the destination alone");
        other.release();
    }

    @Test
    void segmentObtainedBeforeReleaseNeverShowsTheNextBuffersBytes() throws Exception {
        Buffer b = newBuffer(64);
        MemorySegment whole = b.segment();
        MemorySegment part = b.slice(8, 8).segment();
        MemorySegment derived = whole.asSlice(16, 8);
        b.putLong(0, 0x1111L);
        b.putLong(8, 0x2222L);
        b.putLong(16, 0x3333L);
        b.release();
        Buffer next = newBuffer(64);
        next.fill(0, 64, (byte) 0x5A);

        if (segmentsRevocable()) {
            assertThrows(IllegalStateException.class, () -> whole.get(LE_LONG, 0));
            assertThrows(IllegalStateException.class, () -> part.get(LE_LONG, 0));
            assertThrows(IllegalStateException.class, () -> derived.get(LE_LONG, 0));
            assertThrows(IllegalStateException.class, () -> whole.set(LE_LONG, 0, -1L));
            assertThrows(IllegalStateException.class, () -> whole.asSlice(0, 8).toArray(ValueLayout.JAVA_BYTE));
            assertFalse(whole.scope().isAlive());
        } else {
            // A heap segment cannot be revoked: it keeps showing this buffer's own bytes only.
            assertEquals(0x1111L, whole.get(LE_LONG, 0));
            assertEquals(0x2222L, part.get(LE_LONG, 0));
            assertEquals(0x3333L, derived.get(LE_LONG, 0));
            whole.set(LE_LONG, 0, -1L);
        }
        for (long i = 0; i < 64; i++) {
            assertEquals(0x5A, next.getByte(i), "the next buffer's byte " + i + " is untouched");
        }
        next.release();
    }

    @Test
    void doubleReleaseThrowsAClearIllegalState() throws Exception {
        Buffer b = newBuffer(16);
        b.release();
        IllegalStateException e = assertThrows(IllegalStateException.class, b::release);
        assertTrue(e.getMessage().contains("double release"), e.getMessage());
        assertTrue(b.isReleased());
    }

    @Test
    void accessesRacingWithReleaseCompleteOrThrowButNeverSeeOtherBytes() throws Exception {
        final long mine = 0x0123_4567_89AB_CDEFL;
        final long theirs = 0x5A5A_5A5A_5A5A_5A5AL;
        Buffer b = newBuffer(64);
        b.putLong(0, mine);
        AtomicLong reads = new AtomicLong();
        AtomicBoolean endedWithIllegalState = new AtomicBoolean();
        AtomicReference<Throwable> wrong = new AtomicReference<>();
        Thread reader = Thread.ofPlatform().start(() -> {
            try {
                for (;;) {
                    long v = b.getLong(0);
                    if (v != mine) {
                        wrong.set(new AssertionError("read 0x" + Long.toHexString(v)));
                        return;
                    }
                    b.putLong(8, mine);
                    reads.incrementAndGet();
                }
            } catch (IllegalStateException expected) {
                endedWithIllegalState.set(true);
            } catch (Throwable t) {
                wrong.set(t);
            }
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (reads.get() < 10_000 && reader.isAlive() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        b.release();
        Buffer next = newBuffer(64);
        next.putLong(0, theirs);
        next.putLong(8, theirs);
        reader.join(TimeUnit.SECONDS.toMillis(10));
        assertFalse(reader.isAlive(), "the reader stopped");
        assertNull(wrong.get(), () -> "unexpected: " + wrong.get());
        assertTrue(endedWithIllegalState.get());
        assertTrue(reads.get() > 0);
        assertEquals(theirs, next.getLong(0));
        assertEquals(theirs, next.getLong(8), "no stale write reached the next buffer");
        next.release();
    }

    // ------------------------------------------------------------------ registration

    /** A registration that counts its deregistrations. */
    record CountingRegistration(Object key, AtomicInteger deregistered) implements Registration {
        CountingRegistration(Object key) {
            this(key, new AtomicInteger());
        }

        @Override
        public void deregister() {
            deregistered.incrementAndGet();
        }
    }

    @Test
    void registrationsAreDeregisteredExactlyOnceWhenTheLeaseEnds() throws Exception {
        Buffer b = newBuffer(32);
        CountingRegistration shm = new CountingRegistration("shm");
        CountingRegistration rdma = new CountingRegistration("rdma");
        b.register(shm);
        b.slice(0, 8).register(rdma);
        assertSame(shm, b.registration("shm"));
        assertSame(rdma, b.registration("rdma"));
        assertSame(rdma, b.slice(8, 8).registration("rdma"), "slices share the lease's registrations");
        assertNull(b.registration("tcp"));
        b.release();
        assertEquals(1, shm.deregistered().get());
        assertEquals(1, rdma.deregistered().get());
        assertThrows(IllegalStateException.class, () -> b.registration("shm"));
    }

    @Test
    void registrationMisuseIsRejectedAndExplicitDeregistrationRunsOnce() throws Exception {
        Buffer b = newBuffer(32);
        CountingRegistration first = new CountingRegistration("t");
        b.register(first);
        IllegalStateException twice = assertThrows(IllegalStateException.class,
                () -> b.register(new CountingRegistration("t")));
        assertTrue(twice.getMessage().contains("already registered"), twice.getMessage());
        assertThrows(NullPointerException.class, () -> b.register(null));
        assertThrows(NullPointerException.class, () -> b.register(new CountingRegistration(null)));
        assertTrue(b.deregister("t"));
        assertFalse(b.deregister("t"));
        assertEquals(1, first.deregistered().get());
        b.register(new CountingRegistration("t")); // the key is free again
        b.release();
        assertEquals(1, first.deregistered().get());
        assertThrows(IllegalStateException.class, () -> b.register(new CountingRegistration("u")));
        assertThrows(IllegalStateException.class, () -> b.deregister("t"));
    }

    @Test
    void aFailingDeregistrationStillReturnsTheMemory() throws Exception {
        Buffer b = newBuffer(32);
        CountingRegistration ok = new CountingRegistration("ok");
        b.register(ok);
        b.register(new Registration() {
            @Override
            public Object key() {
                return "bad";
            }

            @Override
            public void deregister() {
                throw new IllegalArgumentException("transport refused");
            }
        });
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, b::release);
        assertEquals("transport refused", e.getMessage());
        assertTrue(b.isReleased());
        assertEquals(1, ok.deregistered().get());
        assertThrows(IllegalStateException.class, () -> b.getInt(0));
    }
}
