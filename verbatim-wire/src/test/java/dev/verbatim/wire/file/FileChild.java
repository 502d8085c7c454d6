package dev.verbatim.wire.file;

import dev.verbatim.wire.Message;
import dev.verbatim.wire.Schema;

import java.nio.file.Path;

import static dev.verbatim.wire.file.FileFixtures.*;

/**
 * The other process of the file tests (started by {@link ChildJvm}):
 * <ul>
 *   <li>{@code write-graph PATH SEED}: stores {@code item(SEED)};</li>
 *   <li>{@code read-graph PATH}: opens the file and prints the digests of its view and its materialized copy;</li>
 *   <li>{@code write-loop PATH N}: stores {@code blob(g, N)} for g = 1, 2, ... until killed;</li>
 *   <li>{@code append PATH COUNT}: appends {@code item(i)} (and a {@code Late} every 10th) for i below COUNT to an
 *       existing log, yielding now and then so that readers interleave; COUNT -1 appends until the log is full
 *       or the process is killed;</li>
 *   <li>{@code read-log PATH}: prints the digest of every record of a log, one per line.</li>
 *   <li>{@code hold-writer PATH}: opens a writer, then opens, reads and closes a reader of the same log (and
 *       other descriptors of the file), prints "holding" and keeps the writer until its stdin ends.</li>
 *   <li>{@code create-log PATH BYTES}: creates a log, fills it with records, prints "created N", or "refused: "
 *       and the message of the IOException.</li>
 *   <li>{@code try-writer PATH}: tries to open a writer on a log; prints "opened" (and appends a record) or
 *       "refused".</li>
 *   <li>{@code inspect PATH}: validates a file with only the types it describes (no class of its types loaded) and
 *       prints its object count and descriptions, or "refused: " and the rule broken.</li>
 * </ul>
 */
public final class FileChild {
    private FileChild() {}

    public static void main(String[] args) throws Exception {
        Path path = Path.of(args[1]);
        switch (args[0]) {
            case "write-graph" -> WireFile.write(path, item(Integer.parseInt(args[2])));
            case "read-graph" -> {
                try (WireFile f = WireFile.open(path)) {
                    System.out.println(digest(f.view(ItemView.class)) + " " + digest(f.materialize(Item.class)));
                }
            }
            case "write-loop" -> {
                int n = Integer.parseInt(args[2]);
                for (int g = 1; ; g++) {
                    WireFile.write(path, blob(g, n));
                    if (g == 1) System.out.println("first written");
                }
            }
            case "append" -> {
                int count = Integer.parseInt(args[2]);
                try (WireLogWriter w = WireLogWriter.open(path, false)) {
                    for (int i = 0; count < 0 || i < count; i++) {
                        if (w.append(record(i)) == WireLogWriter.FULL) break;
                        if (i % 50 == 0) Thread.sleep(1);
                    }
                }
            }
            case "read-log" -> {
                try (WireLog log = WireLog.open(path)) {
                    for (Message m; (m = log.next()) != null; ) System.out.println(digestOf(m));
                }
            }
            case "hold-writer" -> {
                try (WireLogWriter w = WireLogWriter.open(path, false)) {
                    try (WireLog log = WireLog.open(path)) {
                        if (log.next() == null) throw new IllegalStateException("an empty log");
                    }
                    WireFileInfo.read(path, dev.verbatim.wire.WireLimits.DEFAULT, true);
                    java.nio.file.Files.readAllBytes(path);
                    System.out.println("holding " + (w.lockOwnsItsDescription() ? "ofd" : "posix") + " " + w.end());
                    System.out.flush();
                    System.in.read();
                }
            }
            case "create-log" -> {
                try (WireLogWriter w = WireLogWriter.create(path, Long.parseLong(args[2]), false)) {
                    int n = 0;
                    while (w.append(new int[3000]) != WireLogWriter.FULL) n++;
                    System.out.println("created " + n);
                } catch (java.io.IOException e) {
                    System.out.println("refused: " + e.getMessage());
                }
            }
            case "try-writer" -> {
                try (WireLogWriter w = WireLogWriter.open(path, false)) {
                    w.append(record(1000));
                    System.out.println("opened");
                } catch (IllegalStateException e) {
                    System.out.println("refused");
                }
            }
            case "inspect" -> {
                try {
                    WireFileInfo info = WireFileInfo.read(path, dev.verbatim.wire.WireLimits.DEFAULT, false); // as a reader: no checksums
                    System.out.println("objects " + info.objects());
                    for (WireFileInfo.TypeInfo t : info.types()) System.out.println(t.description());
                } catch (dev.verbatim.wire.WireFormatException e) {
                    System.out.println("refused: " + e.getMessage());
                }
            }
            default -> throw new IllegalArgumentException(args[0]);
        }
    }

    /** Record {@code i} of a test log: an item, or every 10th record a {@code Late}. */
    static Object record(int i) {
        return i % 10 == 9 ? new Late(i, "late-" + i) : item(i);
    }

    /** The digest of a log record read back, equal to {@link #expected} of its index. */
    static long digestOf(Message m) {
        if (m.rootFingerprint() == Schema.fingerprint(Late.class)) {
            LateView v = m.view(LateView.class);
            return v.stamp() * 31 + v.note().toString().hashCode();
        }
        return digest(m.view(ItemView.class));
    }

    static long expected(int i) {
        return record(i) instanceof Late l ? l.stamp() * 31 + l.note().hashCode() : digest((Item) record(i));
    }
}
