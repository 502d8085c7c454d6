package dev.verbatim.bench.transport;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * A file mapped into memory with FFM ({@link FileChannel#map(FileChannel.MapMode, long, long, Arena)}),
 * shared by the two processes of a floor contender. The creator makes it owner-only
 * ({@code rw-------}) and zero-filled; the other side maps the same file. Unmapped when the arena
 * closes; the file itself is deleted with the session directory by the parent process.
 */
final class SharedFile {
    private SharedFile() {}

    /** Creates {@code file} (which must not exist) of {@code size} bytes and maps it. */
    static MemorySegment create(Path file, long size, Arena arena) throws IOException {
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try (FileChannel ch = FileChannel.open(file, Set.of(StandardOpenOption.READ, StandardOpenOption.WRITE))) {
            MemorySegment m = ch.map(FileChannel.MapMode.READ_WRITE, 0, size, arena); // grows the file
            m.fill((byte) 0); // touch every page now, not in the timed loop
            return m;
        }
    }

    /** Maps an existing {@code file} of {@code size} bytes. */
    static MemorySegment open(Path file, long size, Arena arena) throws IOException {
        try (FileChannel ch = FileChannel.open(file, Set.of(StandardOpenOption.READ, StandardOpenOption.WRITE))) {
            if (ch.size() < size) {
                throw new IOException(file + " has " + ch.size() + " bytes, expected " + size);
            }
            MemorySegment m = ch.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
            for (long off = 0; off < size; off += 4096) { // fault the pages in now
                m.get(java.lang.foreign.ValueLayout.JAVA_BYTE, off);
            }
            return m;
        }
    }
}
