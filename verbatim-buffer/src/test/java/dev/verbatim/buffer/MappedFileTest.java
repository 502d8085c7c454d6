package dev.verbatim.buffer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel.MapMode;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Memory-mapped files as buffers: modes, regions, unmapping, file handling. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MappedFileTest {

    private Path dir;

    @BeforeEach
    void createDirectory() throws IOException {
        dir = Files.createTempDirectory("verbatim-mapped-");
    }

    @AfterEach
    void deleteDirectory() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.toList()) {
                Files.delete(file);
            }
        }
        Files.delete(dir);
        assertFalse(Files.exists(dir), "the temporary directory is gone");
    }

    @Test
    void writesThroughAReadWriteMappingAreReadBackFromAFreshReadOnlyMapping() throws IOException {
        Path file = dir.resolve("data.bin");
        Buffer writer = Buffers.mapNew(file, 4096);
        assertEquals(Buffer.Kind.MAPPED, writer.kind());
        for (int i = 0; i < 512; i++) {
            writer.putLong(i * 8L, i * 0x0101_0101_0101L);
        }
        writer.putDouble(4088, Math.E);
        writer.force();
        writer.slice(0, 64).force();
        writer.release();
        assertEquals(4096, Files.size(file));

        Buffer reader = Buffers.map(file, MapMode.READ_ONLY);
        assertTrue(reader.isReadOnly());
        assertEquals(4096, reader.capacity());
        for (int i = 0; i < 511; i++) {
            assertEquals(i * 0x0101_0101_0101L, reader.getLong(i * 8L), "long " + i);
        }
        assertEquals(Math.E, reader.getDouble(4088));
        reader.release();

        ByteBuffer onDisk = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(7 * 0x0101_0101_0101L, onDisk.getLong(56), "the file holds little-endian bytes");
    }

    @Test
    void aReadOnlyMappingRejectsWritesWithoutCrashing() throws IOException {
        Path file = dir.resolve("ro.bin");
        Files.write(file, new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
        Buffer ro = Buffers.map(file, MapMode.READ_ONLY);
        assertTrue(ro.isReadOnly());
        assertThrows(IllegalArgumentException.class, () -> ro.putByte(0, (byte) 9));
        assertThrows(IllegalArgumentException.class, () -> ro.putLong(0, 9));
        assertThrows(IllegalArgumentException.class, () -> ro.putArray(0, new byte[] {9}, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> ro.fill(0, 8, (byte) 9));
        assertThrows(IllegalArgumentException.class, () -> ro.slice(2, 2).putShort(0, (short) 9));
        MemorySegment segment = ro.segment();
        assertTrue(segment.isReadOnly());
        assertThrows(IllegalArgumentException.class, () -> segment.set(ValueLayout.JAVA_BYTE, 0, (byte) 9));
        assertThrows(IllegalArgumentException.class,
                () -> MemorySegment.copy(MemorySegment.ofArray(new byte[8]), 0, segment, 0, 8));
        assertEquals(0x0807060504030201L, ro.getLong(0), "reads still work");
        ro.force(); // nothing to write back
        ro.release();
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, Files.readAllBytes(file));
    }

    @Test
    void aRegionOfAFileCanBeMappedAtAnOffset() throws IOException {
        Path file = dir.resolve("region.bin");
        byte[] content = new byte[10_000];
        for (int i = 0; i < content.length; i++) {
            content[i] = (byte) (i * 31);
        }
        Files.write(file, content);
        Buffer region = Buffers.map(file, MapMode.READ_WRITE, 5_001, 100);
        assertEquals(100, region.capacity());
        for (int i = 0; i < 100; i++) {
            assertEquals((byte) ((5_001 + i) * 31), region.getByte(i), "byte " + i);
        }
        assertThrows(IndexOutOfBoundsException.class, () -> region.getByte(100));
        region.putInt(0, -1);
        region.release();
        byte[] after = Files.readAllBytes(file);
        assertEquals(10_000, after.length);
        assertEquals(-1, after[5_001]);
        assertEquals(content[5_000], after[5_000]);
        assertEquals(content[5_005], after[5_005]);
    }

    @Test
    void aReadWriteMappingPastTheEndGrowsTheFileButAReadOnlyOneIsRefused() throws IOException {
        Path file = dir.resolve("grow.bin");
        Files.write(file, new byte[100]);
        assertThrows(IOException.class, () -> Buffers.map(file, MapMode.READ_ONLY, 0, 101));
        Buffer grown = Buffers.map(file, MapMode.READ_WRITE, 0, 8192);
        grown.putLong(8184, 5L);
        grown.release();
        assertEquals(8192, Files.size(file));
    }

    @Test
    void aPrivateMappingDoesNotChangeTheFile() throws IOException {
        Path file = dir.resolve("private.bin");
        Files.write(file, new byte[16]);
        Buffer copy = Buffers.map(file, MapMode.PRIVATE);
        copy.putLong(0, -1L);
        assertEquals(-1L, copy.getLong(0));
        copy.release();
        assertArrayEquals(new byte[16], Files.readAllBytes(file));
    }

    @Test
    void releaseUnmapsAndEveryViewThenThrows() throws IOException {
        Path file = dir.resolve("unmap.bin");
        Buffer b = Buffers.mapNew(file, 64);
        MemorySegment segment = b.segment();
        Buffer slice = b.slice(8, 8);
        b.release();
        assertThrows(IllegalStateException.class, () -> segment.get(ValueLayout.JAVA_BYTE, 0));
        assertThrows(IllegalStateException.class, () -> slice.getLong(0));
        assertThrows(IllegalStateException.class, b::force);
        // The file can be mapped again at once.
        Buffer again = Buffers.map(file, MapMode.READ_WRITE);
        assertEquals(64, again.capacity());
        again.release();
    }

    @Test
    void aReadOnlyMappingReadsTypedArraysInPlaceAndThrowsOnceUnmapped() throws IOException {
        Path file = dir.resolve("ints.bin");
        ByteBuffer data = ByteBuffer.allocate(4 * 1000).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 1000; i++) {
            data.putInt(i * 3 - 7);
        }
        Files.write(file, data.array());
        Buffer ro = Buffers.map(file, MapMode.READ_ONLY);
        MemorySegment ints = ro.segment().asSlice(400, 400); // elements 100..199, no copy
        int[] copy = new int[100];
        ro.getArray(400, copy, 0, 100);
        for (int i = 0; i < 100; i++) {
            assertEquals((100 + i) * 3 - 7, ints.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i), "element " + (100 + i));
            assertEquals((100 + i) * 3 - 7, copy[i]);
        }
        Buffer slice = ro.slice(8, 8);
        ro.release();
        assertThrows(IllegalStateException.class, () -> ints.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, 0));
        assertThrows(IllegalStateException.class, () -> slice.getInt(0));
        assertThrows(IllegalStateException.class, () -> ro.getArray(0, copy, 0, 1));
        assertThrows(IllegalStateException.class, ro::segment);
        assertTrue(ro.isReadOnly(), "still answers after release");
    }

    @Test
    void aMappingFromTheCallersChannelOutlivesTheChannel() throws IOException {
        Path file = dir.resolve("channel.bin");
        Files.write(file, new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
        Buffer b;
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file)) {
            assertThrows(IllegalArgumentException.class, () -> Buffers.map(ch, MapMode.READ_ONLY, 0, -3));
            assertThrows(java.nio.channels.NonWritableChannelException.class, () -> Buffers.map(ch, MapMode.READ_WRITE, 0, 8));
            b = Buffers.map(ch, MapMode.READ_ONLY, 8, 8);
        }
        assertEquals(9, b.getByte(0), "readable after the channel closed");
        assertTrue(b.isReadOnly());
        b.release();
        assertThrows(IllegalStateException.class, () -> b.getByte(0));
    }

    @Test
    void mapNewCreatesAnOwnerOnlyFileAndRefusesToOverwrite() throws IOException {
        Path file = dir.resolve("new.bin");
        Buffer b = Buffers.mapNew(file, 256);
        assertEquals(256, Files.size(file));
        if (file.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            assertEquals(EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE),
                    Files.getPosixFilePermissions(file));
        }
        assertThrows(FileAlreadyExistsException.class, () -> Buffers.mapNew(file, 256));
        b.release();
        assertThrows(NoSuchFileException.class, () -> Buffers.map(dir.resolve("missing.bin"), MapMode.READ_ONLY));
    }

    @Test
    void negativeOffsetsAndSizesAreRejectedWithTheNumber() {
        Path file = dir.resolve("never.bin");
        IllegalArgumentException size = assertThrows(IllegalArgumentException.class,
                () -> Buffers.map(file, MapMode.READ_ONLY, 0, -7));
        assertTrue(size.getMessage().contains("-7"), size.getMessage());
        IllegalArgumentException offset = assertThrows(IllegalArgumentException.class,
                () -> Buffers.map(file, MapMode.READ_ONLY, -9, 1));
        assertTrue(offset.getMessage().contains("-9"), offset.getMessage());
        IllegalArgumentException created = assertThrows(IllegalArgumentException.class,
                () -> Buffers.mapNew(file, -11));
        assertTrue(created.getMessage().contains("-11"), created.getMessage());
        assertFalse(Files.exists(file));
    }
}
