package dev.verbatim.buffer;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;

/**
 * Factories for single, unpooled buffers: each owns its memory, which is freed (or unmapped)
 * when the buffer ends: on {@link Buffer#release()}, or when the garbage collector finds the
 * buffer and all its slices unreachable (counted by {@link #reclaimedByGc()}).
 *
 * <h2>Segments and the garbage collector</h2>
 * The memory of an off-heap or mapped buffer from here lives in a shared
 * {@link java.lang.foreign.Arena} of its own (allocated in it, or mapped into it with
 * {@link FileChannel#map(FileChannel.MapMode, long, long, java.lang.foreign.Arena)}), and the
 * buffer's segments are that arena's. Ending the buffer closes the arena, so every segment ever
 * handed out by {@link Buffer#segment()} throws {@link IllegalStateException} from then on, and
 * the memory is freed in the same step. A segment keeps that arena alive but <em>not</em> the
 * buffer: keep the buffer (or a slice) reachable while you use its segments, and release it when
 * done. If the collector reclaims a buffer whose segment you still hold, the segment throws
 * {@code IllegalStateException}, as after a release: it never reads freed memory and never crashes
 * the JVM. (Pooled off-heap segments do keep their buffer alive; see {@link BufferPool}. The JDK
 * offers that anchoring only through a restricted method, which this class does not call.)
 *
 * <h2>Native access</h2>
 * Nothing here calls a restricted method: heap, off-heap and mapped buffers need no
 * {@code --enable-native-access} and print no warning, and they work under
 * {@code --illegal-native-access=deny}. Only {@link BufferPool#offHeap off-heap pools} do (see
 * {@link BufferPool}).
 *
 * <p>Thread-safe: all methods may be called from any thread.
 */
public final class Buffers {

    private static final LongAdder RECLAIMED = new LongAdder();

    /** Frees the slot of an unpooled buffer when its lease ends. */
    private static final Owner UNPOOLED = new Owner() {
        @Override
        public void dispose(LeaseState lease, int cause) {
            if (cause == LeaseState.RECLAIMED) {
                RECLAIMED.increment();
            }
            lease.slot.free();
        }

        @Override
        public boolean recycles() {
            return false;
        }
    };

    private Buffers() {
    }

    /**
     * A zeroed heap buffer of {@code size} bytes, backed by a {@code long[]} (so its segment also
     * supports aligned accesses of up to 8 bytes).
     *
     * @throws IllegalArgumentException if {@code size} is negative or larger than a
     *         {@code long[]} can hold (about 16 GiB); the message names the size
     */
    public static Buffer heap(long size) {
        return LeaseState.open(UNPOOLED, Slot.heap(size), size);
    }

    /**
     * A zeroed off-heap buffer of {@code size} bytes, aligned to 64 bytes.
     *
     * @throws IllegalArgumentException if {@code size} is negative (the message names it)
     * @throws OutOfMemoryError if the memory cannot be allocated
     */
    public static Buffer offHeap(long size) {
        return LeaseState.open(UNPOOLED, Slot.offHeap(size), size);
    }

    /**
     * Maps the whole of an existing file.
     *
     * @param mode {@link FileChannel.MapMode#READ_ONLY READ_ONLY} (writes throw),
     *             {@link FileChannel.MapMode#READ_WRITE READ_WRITE} (writes reach the file), or
     *             {@link FileChannel.MapMode#PRIVATE PRIVATE} (copy-on-write)
     * @throws IOException if the file cannot be opened or mapped
     */
    public static Buffer map(Path file, FileChannel.MapMode mode) throws IOException {
        return mapExisting(file, mode, 0, 0, true);
    }

    /**
     * Maps {@code size} bytes of an existing file from {@code offset}. A read-only mapping must
     * lie inside the file; a read-write mapping past its end grows the file. The mapping is
     * unmapped when the buffer ends; accessing a view afterwards throws
     * {@link IllegalStateException}. (If another process truncates the file under a live
     * mapping, the JDK reports accesses beyond the new end as {@link InternalError}.)
     *
     * @throws IllegalArgumentException if {@code offset} or {@code size} is negative (named in
     *         the message)
     * @throws IOException if the file cannot be opened or mapped
     */
    public static Buffer map(Path file, FileChannel.MapMode mode, long offset, long size) throws IOException {
        if (size < 0) {
            throw new IllegalArgumentException("mapped size must not be negative: " + size);
        }
        if (offset < 0) {
            throw new IllegalArgumentException("mapping offset must not be negative: " + offset);
        }
        return mapExisting(file, mode, offset, size, false);
    }

    /**
     * Maps {@code size} bytes from {@code offset} of a file the caller has open (for example after
     * reading a header through the same channel). The channel stays the caller's: closing it does not
     * end the mapping, which lives until the buffer ends, as with {@link #map(Path, FileChannel.MapMode, long, long)}.
     *
     * @throws IllegalArgumentException if {@code offset} or {@code size} is negative (named in the message)
     * @throws java.nio.channels.NonWritableChannelException if {@code mode} writes and the channel is read-only
     * @throws IOException if the region cannot be mapped
     */
    public static Buffer map(FileChannel channel, FileChannel.MapMode mode, long offset, long size) throws IOException {
        Objects.requireNonNull(channel, "channel");
        Objects.requireNonNull(mode, "mode");
        if (size < 0) {
            throw new IllegalArgumentException("mapped size must not be negative: " + size);
        }
        if (offset < 0) {
            throw new IllegalArgumentException("mapping offset must not be negative: " + offset);
        }
        return mapChannel(channel, mode, offset, size);
    }

    private static Buffer mapExisting(Path file, FileChannel.MapMode mode, long offset, long size, boolean whole)
            throws IOException {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(mode, "mode");
        Set<OpenOption> options = mode == FileChannel.MapMode.READ_ONLY
                ? Set.of(StandardOpenOption.READ)
                : Set.of(StandardOpenOption.READ, StandardOpenOption.WRITE);
        try (FileChannel channel = FileChannel.open(file, options)) {
            return mapChannel(channel, mode, offset, whole ? channel.size() : size);
        }
    }

    /**
     * Creates a new file of {@code size} zero bytes (owner-only permissions where the file system
     * supports POSIX permissions) and maps it read-write.
     *
     * @throws IllegalArgumentException if {@code size} is negative (named in the message)
     * @throws java.nio.file.FileAlreadyExistsException if the file exists
     * @throws IOException if the file cannot be created or mapped
     */
    public static Buffer mapNew(Path file, long size) throws IOException {
        if (size < 0) {
            throw new IllegalArgumentException("mapped size must not be negative: " + size);
        }
        Objects.requireNonNull(file, "file");
        Set<StandardOpenOption> options = EnumSet.of(
                StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE);
        FileAttribute<?>[] attributes = file.getFileSystem().supportedFileAttributeViews().contains("posix")
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))}
                : new FileAttribute<?>[0];
        try (FileChannel channel = FileChannel.open(file, options, attributes)) {
            return mapChannel(channel, FileChannel.MapMode.READ_WRITE, 0, size);
        }
    }

    private static Buffer mapChannel(FileChannel channel, FileChannel.MapMode mode, long offset, long size)
            throws IOException {
        Arena arena = Arena.ofShared();
        try {
            MemorySegment mapping = channel.map(mode, offset, size, arena);
            return LeaseState.open(UNPOOLED, Slot.mapped(arena, mapping), size);
        } catch (IOException | RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    /**
     * How many unpooled buffers (of any kind) the garbage collector has reclaimed because they
     * became unreachable without {@link Buffer#release()}; a growing number means a leak.
     */
    public static long reclaimedByGc() {
        return RECLAIMED.sum();
    }
}
