package dev.verbatim.wire.file;

import dev.verbatim.buffer.Buffer;
import dev.verbatim.buffer.Buffers;
import dev.verbatim.wire.Message;
import dev.verbatim.wire.TypeDictionary;
import dev.verbatim.wire.WireFormatException;
import dev.verbatim.wire.WireLimits;
import dev.verbatim.wire.WireReader;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.Objects;

import static dev.verbatim.wire.file.WireFileDescriptor.*;

/**
 * Reads a log of messages (written by {@link WireLogWriter}) in place, record by record, while a writer may
 * still be appending to it, in this process or another. A graph file ({@link WireFile}) reads as a log of
 * one record.
 *
 * <pre>{@code
 * try (WireLog log = WireLog.open(path)) {
 *     for (Message m; (m = log.next()) != null; ) {
 *         OrderView o = m.view(OrderView.class);       // zero-copy, valid until the log is closed
 *     }
 *     // later: log.next() again returns what was appended since
 * }
 * }</pre>
 *
 * <h2>Invariants</h2>
 * <ul>
 *   <li><b>Whole records only.</b> {@link #next()} loads the log's committed end with acquire semantics and
 *       never reads past it; a writer publishes a record's end only after the whole record is in place. A
 *       record torn by a writer's crash lies past the end and is never read (the next writer overwrites it;
 *       {@link WireFileInfo} reports it).</li>
 *   <li><b>Validated once.</b> Each record's lengths are checked against the end and the limits, its type
 *       descriptions are learned, its message validated, before {@link #next()} returns it. Damage is a
 *       {@link WireFormatException} with the file offset and the rule; the cursor then stays on the damaged
 *       record (calling {@link #next()} again throws again).</li>
 *   <li><b>Lifetime.</b> Messages and their views are valid until {@link #close()}, after which they throw
 *       {@link IllegalStateException}.</li>
 * </ul>
 * The log is mapped whole (its size is the capacity its writer gave it), read-only; pages are read from the
 * file only when touched. Each message is limited by {@link WireLimits}; the log as a whole is not.
 *
 * <p>Not thread-safe: one cursor, for one thread; the messages it returns may be read from any thread.
 */
public final class WireLog implements AutoCloseable {
    private final Path path;
    private final Buffer mapping;
    private final MemorySegment file;
    private final WireLimits limits;
    private final WireReader reader;
    private final TypeDictionary dictionary;
    private final int kind;
    private long position = FILE_HEADER_LENGTH;
    private long records;
    private volatile boolean closed;

    private WireLog(Path path, Buffer mapping, WireLimits limits, int kind) {
        this.path = path;
        this.mapping = mapping;
        this.file = mapping.segment();
        this.limits = limits;
        this.reader = new WireReader(limits);
        this.dictionary = new TypeDictionary(limits);
        this.kind = kind;
    }

    /** {@link #open(Path, WireLimits)} with {@link WireLimits#DEFAULT}. */
    public static WireLog open(Path file) throws IOException {
        return open(file, WireLimits.DEFAULT);
    }

    /**
     * Maps a log (or a graph file) read-only, positioned before its first record.
     *
     * @throws WireFormatException if the file header is bad
     * @throws IOException if the file cannot be read or mapped
     */
    public static WireLog open(Path file, WireLimits limits) throws IOException {
        Objects.requireNonNull(limits, "limits");
        Buffer mapping = Buffers.map(file, FileChannel.MapMode.READ_ONLY);
        try {
            int kind = checkFileHeader(mapping.segment(), mapping.capacity());
            WireLog log = new WireLog(file, mapping, limits, kind);
            log.committedEnd(); // checks the end
            return log;
        } catch (RuntimeException | Error e) {
            mapping.release();
            throw e;
        }
    }

    /**
     * The next committed message, validated, or {@code null} if every committed record has been read (call
     * again later to see records appended since).
     *
     * @throws WireFormatException if the next record is damaged (the cursor does not move past it)
     * @throws IllegalStateException after {@link #close()}
     */
    public Message next() {
        checkOpen();
        long end = committedEnd();
        if (position == end) return null;
        if (position > end) throw new WireFormatException(END_OFFSET, "committed end moved backwards", "end " + end + ", read up to " + position);
        RecordHeader h = checkRecordHeader(file, position, position, end, limits);
        Message m = FileRecords.read(file, mapping, h, dictionary, reader);
        position = h.next();
        records++;
        return m;
    }

    /**
     * The log's committed end (a file offset), loaded with acquire semantics; records before it are whole.
     *
     * @throws WireFormatException if the end is not a record boundary inside the file
     */
    public long committedEnd() {
        checkOpen();
        long end = endAcquire(file);
        checkEnd(end, kind, file.byteSize());
        return end;
    }

    /** The file offset of the next record to read. */
    public long position() { return position; }

    /** How many records {@link #next()} has returned. */
    public long recordsRead() { return records; }

    /** The size of the mapped file (the log's capacity). */
    public long byteSize() { return mapping.capacity(); }

    /** The file this was opened from. */
    public Path path() { return path; }

    /** Unmaps the log; every message and view read from it throws {@link IllegalStateException} from now on. Idempotent. */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            mapping.release();
        }
    }

    private void checkOpen() {
        if (closed) throw new IllegalStateException("wire log " + path + " is closed");
    }

    @Override
    public String toString() {
        return "WireLog[" + path + ", at " + position + (closed ? ", closed]" : "]");
    }
}
