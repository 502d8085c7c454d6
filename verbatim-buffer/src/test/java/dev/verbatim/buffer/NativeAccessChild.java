package dev.verbatim.buffer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Run by {@link NativeAccessTest} in a child JVM started with or without native access:
 * {@code unpooled DIR} goes through every way to make, use, release and drop an unpooled buffer
 * (and a heap pool), {@code pool} through an off-heap pool. Prints {@code unpooled ok} or
 * {@code pool ok} at the end; any failure is an uncaught exception (exit status 1).
 */
final class NativeAccessChild {

    private NativeAccessChild() {
    }

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "unpooled" -> unpooled(Path.of(args[1]));
            case "pool" -> pool();
            default -> throw new IllegalArgumentException(args[0]);
        }
    }

    private static void unpooled(Path dir) throws Exception {
        Buffer off = Buffers.offHeap(64 * 1024);
        off.putLong(8, 7L);
        off.slice(16, 8).putLong(0, 8L);
        MemorySegment segment = off.segment();
        check(segment.get(ValueLayout.JAVA_LONG_UNALIGNED, 16) == 8L, "a slice writes through to the segment");
        off.release();
        mustBeRevoked(off, segment);

        Path file = dir.resolve("mapped.bin");
        Buffer created = Buffers.mapNew(file, 4096);
        created.putLong(1024, 42L);
        created.force();
        MemorySegment createdSegment = created.segment();
        created.release();
        mustBeRevoked(created, createdSegment);

        for (FileChannel.MapMode mode : new FileChannel.MapMode[] {
                FileChannel.MapMode.READ_ONLY, FileChannel.MapMode.READ_WRITE, FileChannel.MapMode.PRIVATE}) {
            Buffer whole = Buffers.map(file, mode);
            check(whole.getLong(1024) == 42L, "whole mapping " + mode);
            Buffer region = Buffers.map(file, mode, 1024, 1024);
            check(region.getLong(0) == 42L, "mapping at an offset " + mode);
            MemorySegment s = region.segment();
            whole.release();
            region.release();
            mustBeRevoked(region, s);
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            Buffer fromChannel = Buffers.map(channel, FileChannel.MapMode.READ_WRITE, 1024, 8);
            check(fromChannel.getLong(0) == 42L, "mapping from the caller's channel");
            fromChannel.release();
        }

        AtomicInteger reclaimed = new AtomicInteger();
        drop(Buffers.offHeap(64), reclaimed);
        drop(Buffers.map(file, FileChannel.MapMode.READ_ONLY, 0, 64), reclaimed);
        for (int i = 0; i < 3000 && reclaimed.get() < 2; i++) { // up to 30 s on a busy machine
            System.gc();
            Thread.sleep(10);
        }
        check(reclaimed.get() == 2, "dropped buffers reclaimed by the collector: " + reclaimed);

        try (BufferPool heap = BufferPool.heap(1 << 16, 2)) {
            Buffer b = heap.tryAcquire(100);
            b.putLong(0, 1L);
            b.release();
        }
        Files.delete(file);
        System.out.println("unpooled ok");
    }

    private static void pool() {
        try (BufferPool pool = BufferPool.offHeap(1 << 16, 2)) {
            Buffer b = pool.tryAcquire(64);
            b.putLong(0, 1L);
            b.release();
        }
        System.out.println("pool ok");
    }

    /** Drops {@code b} without release; {@code reclaimed} counts up when the collector ends it. */
    private static void drop(Buffer b, AtomicInteger reclaimed) {
        b.register(new BufferContractTest.CountingRegistration("child", reclaimed));
    }

    private static void mustBeRevoked(Buffer b, MemorySegment segment) {
        try {
            b.getByte(0);
            throw new AssertionError("a released buffer was read");
        } catch (IllegalStateException expected) {
            // as documented
        }
        try {
            segment.get(ValueLayout.JAVA_BYTE, 0);
            throw new AssertionError("a segment of a released buffer was read");
        } catch (IllegalStateException expected) {
            // as documented
        }
    }

    private static void check(boolean condition, String what) {
        if (!condition) {
            throw new AssertionError(what);
        }
    }
}
