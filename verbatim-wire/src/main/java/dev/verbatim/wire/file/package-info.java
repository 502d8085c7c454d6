/**
 * Object graphs stored in files and read in place (Jaguar's file scan, jbufs' persistent objects): a graph
 * file holds one message, a log holds records appended while readers, in this process or others, iterate
 * it. The messages are the wire format of {@link dev.verbatim.wire}; the file layout is drawn in
 * {@link dev.verbatim.wire.file.WireFileDescriptor} and specified in {@code docs/wire-format.md} §8.
 *
 * <h2>Entry points</h2>
 * <ul>
 *   <li>{@link dev.verbatim.wire.file.WireFile}: {@code write} stores a graph atomically, {@code open} maps
 *       and validates it once and hands out views of it.</li>
 *   <li>{@link dev.verbatim.wire.file.WireLogWriter}: creates a log of fixed capacity, or reopens one, and
 *       appends records; {@link dev.verbatim.wire.file.WireLog} reads the committed records one by one.</li>
 *   <li>{@link dev.verbatim.wire.file.WireFileInfo}: checks a whole file (checksums too, if asked) and
 *       summarises its types and objects; the engine of {@code verbatim file inspect | verify}.</li>
 * </ul>
 *
 * <h2>Invariants</h2>
 * <ul>
 *   <li><b>Whole or nothing.</b> A graph file is replaced by rename: a reader sees the old file or the
 *       complete new one. A log publishes a record's end with a release store after the record is in
 *       place; a reader loads it with acquire semantics and never reads a partial record.</li>
 *   <li><b>Validated before use.</b> Headers and record lengths are checked against the file and the
 *       {@link dev.verbatim.wire.WireLimits} before anything is mapped or read through them; each message is
 *       validated once, with the type descriptions the file carries, so a process that never loaded the
 *       writer's classes can read it. Damage is a {@link dev.verbatim.wire.WireFormatException} naming the
 *       file offset and the rule.</li>
 *   <li><b>Lifetime.</b> Views live as long as the mapping: after {@code close} every view, string and array
 *       read from the file throws {@link java.lang.IllegalStateException}; nothing reads unmapped memory.</li>
 *   <li><b>One writer per log</b>, enforced with an advisory file lock across processes (an OFD lock on a
 *       descriptor of the writer's own where native access allows: {@code LogLock}).</li>
 *   <li><b>Recoverable.</b> A log's space is reserved when it is created; opening it for writing cuts it back to
 *       the last record whose checksum holds (a power loss without {@code sync}) and reports the cut
 *       ({@link dev.verbatim.wire.file.WireLogRepair}).</li>
 * </ul>
 */
package dev.verbatim.wire.file;
