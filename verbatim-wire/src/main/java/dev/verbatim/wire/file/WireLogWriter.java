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
import java.nio.file.Path;
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
 *       {@link #force()} flushes what was appended so far. A record whose bytes did not reach the device
 *       before the end did fails its checksum: the next {@link #open} cuts the log back to the record before
 *       it and reports the cut ({@link #repair()}, {@code verbatim file repair}).</li>
 *   <li><b>Space.</b> The file's blocks are reserved when the log is created (and, with native access, what a
 *       sparse log lacks when it is opened), so a full device is an {@link IOException} there; a fault on the
 *       mapping in {@link #append} anyway (the file truncated under the writer) is an {@link IOException} too,
 *       never an {@link InternalError}, and commits nothing.</li>
 *   <li><b>One writer.</b> The writer holds an exclusive lock on the file (advisory, across processes, held
 *       by a descriptor of its own: {@link LogLock}); a second writer, in this process or another, is
 *       refused, whatever else the writer's process opens and closes.</li>
 * </ul>
 *
 * <p>Not thread-safe: one writer thread.
 */
public final class WireLogWriter implements AutoCloseable {
    /** What {@link #append} returns when the record does not fit in the rest of the log. */
    public static final long FULL = -1;

    private static final System.Logger LOG = System.getLogger(WireLogWriter.class.getName());

    private final Path path;
    private final LogLock lock;
    private final Buffer mapping;
    private final MemorySegment file;
    private final boolean sync;
    private final WireWriter writer = new WireWriter();
    /** Fingerprints of the types some record of this log described: later records refer to them. */
    private final Set<Long> described = new HashSet<>();
    private long end;
    private long records;
    private WireLogRepair repair;
    private boolean closed;

    private WireLogWriter(Path path, LogLock lock, Buffer mapping, boolean sync) {
        this.path = path;
        this.lock = lock;
        this.mapping = mapping;
        this.file = mapping.segment();
        this.sync = sync;
    }

    /**
     * Creates a new, empty log of {@code capacity} bytes (owner-only permissions on POSIX file systems). Its
     * blocks are reserved on the device now ({@code posix_fallocate}), so that appends never run out of space:
     * a device without room fails here, and the file is removed.
     *
     * @param sync force every record to the device before it is committed (see the class comment)
     * @throws IllegalArgumentException if the capacity cannot hold the header and one record header
     * @throws java.nio.file.FileAlreadyExistsException if the file exists
     * @throws IOException if the file cannot be created, reserved (no space left) or mapped
     */
    public static WireLogWriter create(Path file, long capacity, boolean sync) throws IOException {
        if (capacity < FILE_HEADER_LENGTH + RECORD_HEADER_LENGTH) {
            throw new IllegalArgumentException("a log needs at least " + (FILE_HEADER_LENGTH + RECORD_HEADER_LENGTH) + " bytes: " + capacity);
        }
        Buffer mapping = Buffers.mapNew(file, capacity);
        WireLogWriter w = null;
        try {
            w = locked(file, mapping, sync);
            w.lock.reserve(capacity, true);
            putFileHeader(w.file, KIND_LOG, FILE_HEADER_LENGTH);
            w.end = FILE_HEADER_LENGTH;
            w.repair = new WireLogRepair(file, 0, FILE_HEADER_LENGTH, FILE_HEADER_LENGTH, null);
            mapping.force();
            WireFile.forceDirectory(file.toAbsolutePath().getParent());
            return w;
        } catch (IOException | RuntimeException | Error e) {
            if (w != null) w.close(); else mapping.release();
            java.nio.file.Files.deleteIfExists(file);
            throw e;
        }
    }

    /**
     * Opens an existing log to append to it: checks its header and every committed record (header and
     * checksum), collects the types its records described, and reserves what its file lacks on the device (with
     * native access: see {@link LogLock#reserve}).
     * A record torn by a crash past the end is overwritten. A committed record whose checksum does not hold (a
     * power loss without {@code sync}: the end reached the device before the record) is cut, with every record
     * after it: {@link #repair()} says what was cut, and a warning is logged.
     *
     * @throws WireFormatException if the file is not a log, or its committed end is not a record boundary inside it
     * @throws IllegalStateException if another writer has the log open
     * @throws IOException if the file cannot be opened, mapped or reserved (no space left)
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
            String damage = null;
            long at = FILE_HEADER_LENGTH;
            while (at < end) {
                damage = w.keep(at, end, any);
                if (damage != null) break;
                at = w.end;
            }
            w.end = at;
            w.repair = new WireLogRepair(file, w.records, at, end, damage);
            if (damage != null) w.cut(at);
            w.lock.reserve(s.byteSize(), false);
            return w;
        } catch (IOException | RuntimeException | Error e) {
            if (w != null) w.close(); else mapping.release();
            throw e;
        }
    }

    /**
     * Checks the committed record at {@code at} (header, checksum, descriptions) and keeps it: its types count as
     * described and {@link #end} moves past it. Returns {@code null}, or the damage that stops the log there.
     */
    private String keep(long at, long committedEnd, WireLimits any) {
        try {
            RecordHeader h = checkRecordHeader(file, at, at, committedEnd, any);
            int crc = FileRecords.bodyChecksum(file, h);
            if (crc != h.checksum()) {
                return "record checksum mismatch: stored " + Integer.toHexString(h.checksum()) + ", computed " + Integer.toHexString(crc);
            }
            List<Long> fingerprints = new java.util.ArrayList<>();
            for (FileRecords.Description d : FileRecords.descriptions(file, h, any)) fingerprints.add(Schema.fingerprintOf(d.text()));
            described.addAll(fingerprints);
            end = h.next();
            records++;
            return null;
        } catch (WireFormatException e) {
            return e.getMessage();
        }
    }

    /** Cuts the log back to {@code at} (the end of the last whole record), forced to the device, and warns. */
    private void cut(long at) {
        if (at + RECORD_HEADER_LENGTH <= file.byteSize()) file.asSlice(at, RECORD_HEADER_LENGTH).fill((byte) 0);
        mapping.slice(at, Math.min(RECORD_HEADER_LENGTH, file.byteSize() - at)).force();
        putEndRelease(file, at);
        mapping.slice(0, FILE_HEADER_LENGTH).force();
        LOG.log(System.Logger.Level.WARNING, "repaired the log " + repair);
    }

    /**
     * Opens the log for writing (which repairs it, see {@link #open}), forces it, and closes it again: what
     * {@code verbatim file repair PATH} runs.
     *
     * @return what was found and cut
     * @throws WireFormatException if the file is not a log, or its committed end is not a record boundary inside it
     * @throws IllegalStateException if another writer has the log open
     * @throws IOException if the file cannot be opened, mapped or reserved
     */
    public static WireLogRepair repair(Path file) throws IOException {
        try (WireLogWriter w = open(file, false)) {
            w.force();
            return w.repair();
        }
    }

    private static WireLogWriter locked(Path file, Buffer mapping, boolean sync) throws IOException {
        return new WireLogWriter(file, LogLock.acquire(file), mapping, sync);
    }

    /**
     * Appends {@code root} and everything it reaches as one record and commits it.
     *
     * @return the file offset of the record, or {@link #FULL} if it does not fit in the rest of the log
     *         (nothing is committed then)
     * @throws WireSchemaException if a type cannot be carried
     * @throws IOException if the record cannot be written to the file (the file was truncated under the writer,
     *         or, for a log whose space could not be reserved, the device is full): nothing is committed
     * @throws IllegalStateException after {@link #close()}
     */
    public long append(Object root) throws IOException {
        if (closed) throw new IllegalStateException("log writer for " + path + " is closed");
        try {
            return write(root);
        } catch (InternalError e) {
            // the JDK's report of a fault (SIGBUS) on a mapped page: the file shrank, or its page had no block
            IOException io = new IOException("cannot write the log " + path + " at file offset " + end
                    + " (the file was truncated, or the device is full): nothing was committed", e);
            throw io;
        }
    }

    private long write(Object root) {
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

    /** What opening the log found and cut (nothing, for a log this writer created). */
    public WireLogRepair repair() { return repair; }

    /** Whether the writer's lock belongs to a descriptor of its own (see {@link LogLock}); for tests. */
    boolean lockOwnsItsDescription() { return lock.ownDescription(); }

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
            lock.close();
        }
    }

    @Override
    public String toString() {
        return "WireLogWriter[" + path + ", end " + end + " of " + capacity() + (closed ? ", closed]" : "]");
    }
}
