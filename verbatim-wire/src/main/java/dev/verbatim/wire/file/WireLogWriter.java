package dev.verbatim.wire.file;

import dev.verbatim.buffer.Buffer;
import dev.verbatim.buffer.Buffers;
import dev.verbatim.wire.MessageDescriptor;
import dev.verbatim.wire.Schema;
import dev.verbatim.wire.WireFormatException;
import dev.verbatim.wire.WireLimits;
import dev.verbatim.wire.WireSchemaException;
import dev.verbatim.wire.WireWriter;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import static dev.verbatim.wire.file.WireFileDescriptor.*;

/**
 * Appends messages to a log file that readers ({@link WireLog}) iterate in place, in this process or
 * others, while it grows. The file has a fixed capacity, set when it is created; it is mapped read-write
 * whole and never resized, so readers map it once.
 *
 * <h2>Invariants</h2>
 * <ul>
 *   <li><b>Commit.</b> {@link #append} writes the record (message, the descriptions of types this log has
 *       not described yet, checksum, header) past the committed end, clears the next record header, and only
 *       then publishes the new end with a release store. Readers never see part of a record. If this process
 *       dies mid-append, the record is simply not committed: readers ignore it and the next writer
 *       overwrites it.</li>
 *   <li><b>Durability.</b> A committed record is in the operating system's page cache and survives the
 *       crash of this process at once. For power loss, open the writer with {@code sync}: then every
 *       append forces the record to the device before publishing the end, and the end after; without it,
 *       {@link #force()} flushes what was appended so far (a record whose bytes did not reach the device
 *       before the end did is then caught by the record checksum, see {@link WireFileInfo}).</li>
 *   <li><b>One writer.</b> The writer holds an exclusive lock on the file (advisory, across processes);
 *       a second writer is refused.</li>
 * </ul>
 *
 * <p>Not thread-safe: one writer thread.
 */
public final class WireLogWriter implements AutoCloseable {
    /** What {@link #append} returns when the record does not fit in the rest of the log. */
    public static final long FULL = -1;

    private final Path path;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final Buffer mapping;
    private final MemorySegment file;
    private final boolean sync;
    private final WireWriter writer = new WireWriter();
    /** Fingerprints of the types some record of this log described: later records refer to them. */
    private final Set<Long> described = new HashSet<>();
    private long end;
    private long records;
    private boolean closed;

    private WireLogWriter(Path path, FileChannel lockChannel, FileLock lock, Buffer mapping, boolean sync) {
        this.path = path;
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.mapping = mapping;
        this.file = mapping.segment();
        this.sync = sync;
    }

    /**
     * Creates a new, empty log of {@code capacity} bytes (owner-only permissions on POSIX file systems;
     * the file is sparse where the file system allows).
     *
     * @param sync force every record to the device before it is committed (see the class comment)
     * @throws IllegalArgumentException if the capacity cannot hold the header and one record header
     * @throws java.nio.file.FileAlreadyExistsException if the file exists
     * @throws IOException if the file cannot be created or mapped
     */
    public static WireLogWriter create(Path file, long capacity, boolean sync) throws IOException {
        if (capacity < FILE_HEADER_LENGTH + RECORD_HEADER_LENGTH) {
            throw new IllegalArgumentException("a log needs at least " + (FILE_HEADER_LENGTH + RECORD_HEADER_LENGTH) + " bytes: " + capacity);
        }
        Buffer mapping = Buffers.mapNew(file, capacity);
        WireLogWriter w = null;
        try {
            w = locked(file, mapping, sync);
            putFileHeader(w.file, KIND_LOG, FILE_HEADER_LENGTH);
            w.end = FILE_HEADER_LENGTH;
            mapping.force();
            WireFile.forceDirectory(file.toAbsolutePath().getParent());
            return w;
        } catch (IOException | RuntimeException | Error e) {
            if (w != null) w.close(); else mapping.release();
            throw e;
        }
    }

    /**
     * Opens an existing log to append to it: checks its header and every committed record's header, and
     * collects the types its records described (a record torn by a crash past the end is overwritten).
     *
     * @throws WireFormatException if the file is not a log or a committed record's header is damaged
     * @throws IllegalStateException if another writer has the log open
     * @throws IOException if the file cannot be opened or mapped
     */
    public static WireLogWriter open(Path file, boolean sync) throws IOException {
        Buffer mapping = Buffers.map(file, FileChannel.MapMode.READ_WRITE);
        WireLogWriter w = null;
        try {
            w = locked(file, mapping, sync);
            MemorySegment s = w.file;
            int kind = checkFileHeader(s, s.byteSize());
            if (kind != KIND_LOG) throw new WireFormatException(KIND_OFFSET, "not a log", "kind " + kind + ": a graph file is written once");
            long end = endAcquire(s);
            checkEnd(end, kind, s.byteSize());
            WireLimits any = new WireLimits(MessageDescriptor.MAX_MESSAGE_BYTES, Integer.MAX_VALUE, MessageDescriptor.MAX_TYPES, Integer.MAX_VALUE);
            for (long at = FILE_HEADER_LENGTH; at < end; ) {
                RecordHeader h = checkRecordHeader(s, at, at, end, any);
                for (FileRecords.Description d : FileRecords.descriptions(s, h, any)) w.described.add(Schema.fingerprintOf(d.text()));
                at = h.next();
                w.records++;
            }
            w.end = end;
            return w;
        } catch (IOException | RuntimeException | Error e) {
            if (w != null) w.close(); else mapping.release();
            throw e;
        }
    }

    private static WireLogWriter locked(Path file, Buffer mapping, boolean sync) throws IOException {
        FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = ch.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
        if (lock == null) {
            ch.close();
            throw new IllegalStateException("log " + file + " is open for writing elsewhere");
        }
        return new WireLogWriter(file, ch, lock, mapping, sync);
    }

    /**
     * Appends {@code root} and everything it reaches as one record and commits it.
     *
     * @return the file offset of the record, or {@link #FULL} if it does not fit in the rest of the log
     *         (nothing is committed then)
     * @throws WireSchemaException if a type cannot be carried
     * @throws IllegalStateException after {@link #close()}
     */
    public long append(Object root) {
        if (closed) throw new IllegalStateException("log writer for " + path + " is closed");
        long at = end;
        long messageAt = at + RECORD_HEADER_LENGTH;
        long capacity = file.byteSize();
        if (messageAt + MessageDescriptor.HEADER_LENGTH > capacity) return FULL;
        long m = writer.tryWrite(root, file.asSlice(0, Math.min(capacity, messageAt + MessageDescriptor.MAX_MESSAGE_BYTES)), messageAt);
        if (m < 0) return FULL;
        List<String> fresh = FileRecords.newDescriptions(file, messageAt, m, described::contains);
        byte[] d = FileRecords.encode(fresh);
        long descriptionsAt = messageAt + align8(m);
        long next = descriptionsAt + align8(d.length);
        if (next > capacity) return FULL;
        file.asSlice(messageAt + m, descriptionsAt - (messageAt + m)).fill((byte) 0);
        MemorySegment.copy(MemorySegment.ofArray(d), 0, file, descriptionsAt, d.length);
        file.asSlice(descriptionsAt + d.length, next - (descriptionsAt + d.length)).fill((byte) 0);
        if (next + RECORD_HEADER_LENGTH <= capacity) file.asSlice(next, RECORD_HEADER_LENGTH).fill((byte) 0);
        int crc = FileRecords.checksum(file, messageAt, next - messageAt);
        putRecordHeader(file, at, (int) m, d.length, crc);
        if (sync) mapping.slice(at, next - at).force();
        putEndRelease(file, next);
        if (sync) mapping.slice(0, FILE_HEADER_LENGTH).force();
        for (String s : fresh) described.add(Schema.fingerprintOf(s));
        end = next;
        records++;
        return at;
    }

    /** Forces everything appended so far to the storage device (records first, then the header). */
    public void force() {
        if (closed) throw new IllegalStateException("log writer for " + path + " is closed");
        if (end > FILE_HEADER_LENGTH) mapping.slice(FILE_HEADER_LENGTH, end - FILE_HEADER_LENGTH).force();
        mapping.slice(0, FILE_HEADER_LENGTH).force();
    }

    /** The committed end: the file offset where the next record goes. */
    public long end() { return end; }

    /** The log's capacity in bytes (its file's size). */
    public long capacity() { return file.byteSize(); }

    /** Records in the log (committed before this writer opened it, and appended since). */
    public long records() { return records; }

    /** Unmaps the log and releases the writer's lock; idempotent. Does not force (see {@link #force()}). */
    @Override
    public void close() throws IOException {
        if (closed) return;
        closed = true;
        try {
            mapping.release();
        } finally {
            try {
                lock.release();
            } finally {
                lockChannel.close();
            }
        }
    }

    @Override
    public String toString() {
        return "WireLogWriter[" + path + ", end " + end + " of " + capacity() + (closed ? ", closed]" : "]");
    }
}
