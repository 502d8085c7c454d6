package dev.verbatim.wire.file;

import java.nio.file.Path;

/**
 * What opening a log for writing found, and what it cut: the outcome of {@link WireLogWriter#open} (see
 * {@link WireLogWriter#repair()}) and of {@code verbatim file repair PATH}.
 *
 * <p>Opening a log for writing checks every committed record, its checksum included. After a power loss
 * without {@code sync} the committed end may have reached the device before the record it commits (the
 * operating system writes dirty pages back in any order): that record reads as zeros or as older bytes, and
 * its checksum does not hold. The writer then cuts the log back to the end of the last record before the
 * first damaged one (the log is a sequence: nothing after a damaged record is trusted), so that readers and
 * appends go on from there. What was cut is reported here and logged as a warning.
 *
 * @param path         the log
 * @param records      the records kept (every record, when nothing was cut)
 * @param end          the committed end after opening: the end of the last record kept
 * @param previousEnd  the committed end found in the file (equal to {@code end} when nothing was cut)
 * @param damage       why the record at {@code end} was not kept (the rule it broke), or {@code null}
 */
public record WireLogRepair(Path path, long records, long end, long previousEnd, String damage) {

    /** Whether records were cut. */
    public boolean cut() { return previousEnd != end; }

    /** Bytes of committed records cut (0 when nothing was). */
    public long bytesCut() { return previousEnd - end; }

    @Override
    public String toString() {
        return cut()
                ? path + ": cut " + bytesCut() + " bytes at file offset " + end + " (" + damage + "); kept " + records
                  + " records"
                : path + ": " + records + " records, every checksum holds, nothing cut";
    }
}
