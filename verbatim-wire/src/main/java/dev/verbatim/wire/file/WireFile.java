package dev.verbatim.wire.file;

import dev.verbatim.buffer.Buffer;
import dev.verbatim.buffer.Buffers;
import dev.verbatim.wire.Message;
import dev.verbatim.wire.TypeDictionary;
import dev.verbatim.wire.WireFormatException;
import dev.verbatim.wire.WireLimits;
import dev.verbatim.wire.WireReader;
import dev.verbatim.wire.WireSchemaException;
import dev.verbatim.wire.WireWriter;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.zip.CRC32C;

import static dev.verbatim.wire.file.WireFileDescriptor.*;

/**
 * One object graph stored in a file, read in place: {@link #write} stores a graph, {@link #open} maps the
 * file, validates it once, and hands out views of the objects where they lie in the file, with no load
 * step proportional to the file (a 64 MiB {@code int[]} opens as fast as a 1 MiB one).
 *
 * <pre>{@code
 * WireFile.write(path, book);                                  // atomic: old file or new file, never half
 * try (WireFile f = WireFile.open(path)) {                      // another process, later: map + validate
 *     BookView v = f.view(BookView.class);                      // zero-copy reads from the mapping
 *     ArrayView.OfLong ts = v.timestamps();                      // a primitive array, not copied
 * }                                                             // unmapped: every view now throws
 * }</pre>
 *
 * <h2>Invariants</h2>
 * <ul>
 *   <li><b>Atomic store.</b> {@link #write} writes a temporary file in the target's directory, forces it to
 *       the device, renames it over the target in one step and forces the directory. A crash at any point
 *       leaves the old file (or none), or the complete new one; a left-over temporary file (named
 *       {@code .NAME.*.tmp}) fails {@link #open} (its header is written last).</li>
 *   <li><b>Validated once.</b> {@link #open} checks the file header and the record's lengths against the
 *       limits by reading them, <em>before</em> mapping the file, then maps it read-only, learns the type
 *       descriptions the file carries (so a process that never loaded the writer's classes can validate and
 *       {@linkplain #materialize materialize}), and validates the message (docs/wire-format.md sections 4 and 8).
 *       Any damage is a {@link WireFormatException} naming the file offset and the rule. The record's
 *       checksum is not checked here (that would cost a pass over every byte); {@link WireFileInfo#read}
 *       with checksums does.</li>
 *   <li><b>Lifetime.</b> The mapping lives until {@link #close()}; then every view, array view, string view
 *       and list handed out throws {@link IllegalStateException} (the mapping's arena is closed: no read of
 *       unmapped memory, no crash), as do {@link #view}, {@link #materialize} and {@link #message}.
 *       Materialized objects are heap copies and stay valid.</li>
 *   <li><b>Small files: {@link #load}.</b> Closing a mapping is not free: the JDK revokes a shared arena with a
 *       handshake with every thread of the JVM (tens of microseconds, more with more threads), on top of the
 *       {@code munmap}. {@link #load} reads the file into a heap copy instead (one read, no mapping), validates
 *       it the same way and needs no revocation: its {@link #close()} only marks the file closed ({@link #view},
 *       {@link #materialize} and {@link #message} throw), while views already handed out stay readable, since
 *       they read the heap copy, which the garbage collector frees when nothing reads it any more. For a
 *       program that opens many small files; a large file is better mapped (a copy costs its size).</li>
 * </ul>
 * Files are never changed in place by Verbatim. Another program that truncates a file while it is mapped
 * makes the JDK report reads past the new end as {@link InternalError}; replace files by renaming instead.
 *
 * <p>Thread-safety: an open file may be read from any number of threads; {@link #close()} may race with
 * reads, which then either complete or throw {@link IllegalStateException}. {@link #write} is thread-safe.
 */
public final class WireFile implements AutoCloseable {
    /** Files {@link #load} copies at most (a larger one is better mapped). */
    public static final long MAX_LOAD_BYTES = 256L << 20;

    private final Path path;
    /** The mapping, or null for a {@linkplain #load loaded} file. */
    private final Buffer mapping;
    private final long size;
    private final Message message;
    private final AtomicBoolean closed = new AtomicBoolean();

    private WireFile(Path path, Buffer mapping, long size, Message message) {
        this.path = path;
        this.mapping = mapping;
        this.size = size;
        this.message = message;
    }

    // ---------------------------------------------------------------------------------------------- writing

    /**
     * Stores {@code root} and everything it reaches in {@code file}, replacing it atomically if it exists.
     * The file gets owner-only permissions where the file system has POSIX permissions.
     *
     * @return the size of the file in bytes
     * @throws WireSchemaException if a type cannot be carried
     * @throws IllegalArgumentException if the graph is larger than the format allows
     * @throws IOException if the file cannot be written (the target is then unchanged)
     */
    public static long write(Path file, Object root) throws IOException {
        Path target = file.toAbsolutePath();
        Path dir = Objects.requireNonNull(target.getParent(), "a file needs a directory");
        WireWriter writer = new WireWriter();
        long m = writer.sizeOf(root);
        long messageAt = FILE_HEADER_LENGTH + RECORD_HEADER_LENGTH;
        long descriptionsAt = messageAt + align8(m);
        Path tmp = Files.createTempFile(dir, "." + target.getFileName() + ".", ".tmp"); // rw------- on POSIX
        boolean renamed = false;
        try {
            long end;
            Buffer main = Buffers.map(tmp, FileChannel.MapMode.READ_WRITE, 0, descriptionsAt);
            try {
                MemorySegment s = main.segment();
                long written = writer.write(root, s, messageAt);
                if (written != m) throw new IllegalStateException("the graph changed while it was written: " + m + " then " + written + " bytes");
                byte[] d = FileRecords.encode(FileRecords.newDescriptions(s, messageAt, m, fp -> false));
                end = descriptionsAt + align8(d.length);
                CRC32C crc = new CRC32C();
                crc.update(s.asSlice(messageAt, descriptionsAt - messageAt).asByteBuffer());
                if (d.length > 0) {
                    byte[] padded = java.util.Arrays.copyOf(d, (int) align8(d.length));
                    crc.update(padded);
                    Buffer tail = Buffers.map(tmp, FileChannel.MapMode.READ_WRITE, descriptionsAt, padded.length);
                    try {
                        tail.putArray(0, padded, 0, padded.length);
                        tail.force();
                    } finally {
                        tail.release();
                    }
                }
                if (d.length > Integer.MAX_VALUE - 8) throw new IllegalArgumentException("type descriptions too long: " + d.length);
                putRecordHeader(s, FILE_HEADER_LENGTH, (int) m, d.length, (int) crc.getValue());
                putFileHeader(s, KIND_GRAPH, end); // last: until here the file has no magic and fails to open
                main.force();
            } finally {
                main.release();
            }
            if (Files.size(tmp) != end) throw new IOException("temporary file " + tmp + " has " + Files.size(tmp) + " bytes, expected " + end);
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                throw new IOException("cannot replace " + target + " atomically on this file system", e);
            }
            renamed = true;
            forceDirectory(dir);
            return end;
        } finally {
            if (!renamed) Files.deleteIfExists(tmp);
        }
    }

    /** Makes a rename in {@code dir} durable (where the platform can open a directory; elsewhere a no-op). */
    static void forceDirectory(Path dir) {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            // Windows cannot open a directory as a channel; its rename is durable by other means.
        }
    }

    // ---------------------------------------------------------------------------------------------- reading

    /** {@link #open(Path, WireLimits)} with {@link WireLimits#DEFAULT}. */
    public static WireFile open(Path file) throws IOException {
        return open(file, WireLimits.DEFAULT);
    }

    /**
     * Maps a graph file read-only and validates it once (see the class comment). The caller must
     * {@link #close()} it.
     *
     * @throws WireFormatException if the file is not a graph file, is damaged, or is larger than the limits
     *         (refused before it is mapped); the offset is the file offset
     * @throws IOException if the file cannot be read or mapped
     */
    public static WireFile open(Path file, WireLimits limits) throws IOException {
        Objects.requireNonNull(limits, "limits");
        RecordHeader early;
        Buffer mapping;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            early = readHeader(ch, limits); // refused here: nothing mapped
            mapping = Buffers.map(ch, FileChannel.MapMode.READ_ONLY, 0, early.next());
        }
        try {
            MemorySegment s = mapping.segment();
            // Check again what is mapped: the file may have changed since the header was read.
            RecordHeader h = checkGraph(s, early.next(), limits);
            if (!h.equals(early)) throw new WireFormatException(0, "file changed while it was opened", null);
            Message m = FileRecords.read(s, mapping, h, new TypeDictionary(limits), new WireReader(limits));
            return new WireFile(file, mapping, mapping.capacity(), m);
        } catch (RuntimeException | Error e) {
            mapping.release();
            throw e;
        }
    }

    /** {@link #load(Path, WireLimits)} with {@link WireLimits#DEFAULT}. */
    public static WireFile load(Path file) throws IOException {
        return load(file, WireLimits.DEFAULT);
    }

    /**
     * Reads a graph file into a heap copy and validates it once, as {@link #open} does with a mapping; see
     * the class comment for what its {@link #close()} does. Cheaper than {@link #open} for small files:
     * no mapping to make, and none to revoke.
     *
     * @throws WireFormatException if the file is not a graph file, is damaged, or is larger than the limits
     *         (refused before it is read), or larger than {@link #MAX_LOAD_BYTES}; the offset is the file offset
     * @throws IOException if the file cannot be read, or shrank while it was read
     */
    public static WireFile load(Path file, WireLimits limits) throws IOException {
        Objects.requireNonNull(limits, "limits");
        long[] words;
        MemorySegment s;
        RecordHeader early;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ); Arena staging = Arena.ofConfined()) {
            early = readHeader(ch, limits);
            if (early.next() > MAX_LOAD_BYTES) {
                throw new WireFormatException(0, "file too large to load", early.next() + " bytes, at most "
                        + MAX_LOAD_BYTES + " are copied: open() maps it instead");
            }
            int n = (int) early.next();
            // The kernel copies into native memory (a heap buffer would cost the JDK a second copy), then one copy
            // into a long[]: the reader's aligned accesses need 8-byte alignment, which only a long[] has on the heap.
            // The staging memory is confined to this thread: freeing it costs no handshake.
            ByteBuffer into = staging.allocate(n, 8).asByteBuffer();
            while (into.hasRemaining()) {
                if (ch.read(into, into.position()) < 0) {
                    throw new IOException(file + " shrank to " + into.position() + " bytes while it was read");
                }
            }
            words = new long[(n + 7) >>> 3];
            s = MemorySegment.ofArray(words).asSlice(0, n);
            MemorySegment.copy(MemorySegment.ofBuffer(into.clear()), 0, s, 0, n);
        }
        s = s.asReadOnly(); // as a mapping is: what was validated cannot be changed through a view's segment()
        RecordHeader h = checkGraph(s, early.next(), limits); // what was read, not what was first seen
        if (!h.equals(early)) throw new WireFormatException(0, "file changed while it was loaded", null);
        Message m = FileRecords.read(s, words, h, new TypeDictionary(limits), new WireReader(limits));
        return new WireFile(file, null, s.byteSize(), m);
    }

    /** The checks of the file header and the record header, from the file's first bytes, before anything is mapped or read. */
    private static RecordHeader readHeader(FileChannel ch, WireLimits limits) throws IOException {
        long size = ch.size();
        ByteBuffer head = ByteBuffer.allocate(FILE_HEADER_LENGTH + RECORD_HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        while (head.hasRemaining() && ch.read(head, head.position()) > 0) { /* read what the file has */ }
        return checkGraph(MemorySegment.ofBuffer(head.clear()), size, limits);
    }

    /** The checks of a graph file's header and its one record, from the first 32 bytes and the file's size. */
    private static RecordHeader checkGraph(MemorySegment head, long size, WireLimits limits) {
        int kind = checkFileHeader(head, size);
        if (kind != KIND_GRAPH) throw new WireFormatException(KIND_OFFSET, "not a graph file", "a log: read it with WireLog");
        long end = head.get(U64, END_OFFSET);
        checkEnd(end, kind, size);
        RecordHeader h = checkRecordHeader(head, FILE_HEADER_LENGTH, FILE_HEADER_LENGTH, end, limits);
        if (h.next() != end) {
            throw new WireFormatException(FILE_HEADER_LENGTH, "graph file does not hold exactly one record",
                    "record ends at " + h.next() + ", file at " + end);
        }
        return h;
    }

    /** The file this was opened from. */
    public Path path() { return path; }

    /** The size of the file in bytes. */
    public long byteSize() { return size; }

    /**
     * The validated message (for {@link Message#objectCount()} and the like).
     *
     * @throws IllegalStateException after {@link #close()}
     */
    public Message message() {
        checkOpen();
        return message;
    }

    /**
     * A zero-copy view of the root, as {@link Message#view}; valid until {@link #close()}.
     *
     * @throws IllegalStateException after {@link #close()}
     * @throws WireSchemaException if the stored root cannot be read as {@code type}
     */
    public <T> T view(Class<T> type) {
        return message().view(type);
    }

    /**
     * Copies the graph into heap objects, as {@link Message#materialize}; the copy outlives the file.
     *
     * @throws IllegalStateException after {@link #close()}
     * @throws WireSchemaException if the stored root cannot be read as {@code type}
     */
    public <T> T materialize(Class<T> type) {
        return message().materialize(type);
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() { return closed.get(); }

    /**
     * Unmaps the file; every view of it throws {@link IllegalStateException} from now on. Idempotent. A
     * {@linkplain #load loaded} file is only marked closed (its views read a heap copy and stay readable).
     */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true) && mapping != null) mapping.release();
    }

    private void checkOpen() {
        if (closed.get()) throw new IllegalStateException("wire file " + path + " is closed");
    }

    @Override
    public String toString() {
        return "WireFile[" + path + ", " + byteSize() + " bytes" + (isClosed() ? ", closed]" : "]");
    }
}
