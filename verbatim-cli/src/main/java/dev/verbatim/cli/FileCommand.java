package dev.verbatim.cli;

import dev.verbatim.wire.file.WireFileDescriptor;
import dev.verbatim.wire.file.WireFileInfo;
import dev.verbatim.wire.file.WireLogRepair;
import dev.verbatim.wire.file.WireLogWriter;
import dev.verbatim.wire.WireFormatException;
import dev.verbatim.wire.WireLimits;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HexFormat;
import java.util.Locale;

/**
 * {@code verbatim file inspect PATH} and {@code verbatim file verify PATH}: what a stored graph file or log
 * holds, and whether it is intact. Both read the file with {@link WireFileInfo}, which learns the type
 * descriptions the file carries, so no class of the program that wrote it is needed.
 * {@code verbatim file repair PATH} opens a log for writing, which cuts it back to the last record whose
 * checksum holds ({@link WireLogWriter#repair(Path)}), and says what was cut.
 *
 * <p>Exit codes: 0 good (or repaired), 1 damaged or unreadable (the reason names the rule and the file offset),
 * 2 usage.
 */
final class FileCommand {
    private FileCommand() {}

    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length != 2 || !(args[0].equals("inspect") || args[0].equals("verify") || args[0].equals("repair"))) {
            err.println("usage: ./verbatim file inspect PATH    the header, the types with their fingerprints, the objects by type");
            err.println("       ./verbatim file verify PATH     validate everything, checksums included; exit 1 with the reason if damaged");
            err.println("       ./verbatim file repair PATH     cut a log back to the last record whose checksum holds (after a power loss)");
            return 2;
        }
        Path path = Path.of(args[1]);
        if (!Files.isRegularFile(path)) {
            err.println("verbatim file: no such file: " + path);
            return 1;
        }
        return switch (args[0]) {
            case "inspect" -> inspect(path, out, err);
            case "verify" -> verify(path, out, err);
            default -> repair(path, out, err);
        };
    }

    private static int repair(Path path, PrintStream out, PrintStream err) {
        try {
            WireLogRepair r = WireLogWriter.repair(path);
            if (r.cut()) {
                out.printf(Locale.ROOT, "REPAIRED %s: cut %d bytes at offset %d (%s); %d records kept%n",
                        path, r.bytesCut(), r.end(), r.damage(), r.records());
            } else {
                out.printf(Locale.ROOT, "OK %s: %d records, every checksum holds; nothing cut%n", path, r.records());
            }
            return 0;
        } catch (WireFormatException e) {
            err.println("CANNOT REPAIR " + path + ": " + e.rule() + " at offset " + e.offset());
            err.println("  " + e.getMessage());
            return 1;
        } catch (IllegalStateException e) {
            err.println("verbatim file repair: " + e.getMessage());
            return 1;
        } catch (IOException e) {
            err.println("verbatim file repair: cannot repair " + path + ": " + e);
            return 1;
        }
    }

    private static int verify(Path path, PrintStream out, PrintStream err) {
        try {
            WireFileInfo info = WireFileInfo.read(path, WireLimits.DEFAULT, true);
            out.printf(Locale.ROOT, "OK %s: %s file, %d record%s, %d objects, %d message bytes; checksums match%n",
                    path, info.kindName(), info.records(), info.records() == 1 ? "" : "s", info.objects(), info.messageBytes());
            if (info.tornRecordAt() >= 0) {
                out.println("note: an uncommitted record at offset " + info.tornRecordAt()
                        + " (a writer stopped while appending); readers ignore it and the next writer overwrites it");
            }
            return 0;
        } catch (WireFormatException e) {
            err.println("DAMAGED " + path + ": " + e.rule() + " at offset " + e.offset());
            err.println("  " + e.getMessage());
            return 1;
        } catch (IOException e) {
            err.println("verbatim file verify: cannot read " + path + ": " + e);
            return 1;
        }
    }

    private static int inspect(Path path, PrintStream out, PrintStream err) {
        try {
            printHeader(path, out);
            WireFileInfo info = WireFileInfo.read(path, WireLimits.DEFAULT, false);
            out.printf(Locale.ROOT, "records      %d (messages: %d bytes, %d objects)%n", info.records(), info.messageBytes(), info.objects());
            if (info.kind() == WireFileDescriptor.KIND_LOG) {
                out.printf(Locale.ROOT, "free         %d bytes after the committed end%n", info.fileSize() - info.end());
                out.println("torn tail    " + (info.tornRecordAt() < 0 ? "none"
                        : "an uncommitted record at offset " + info.tornRecordAt() + " (ignored by readers)"));
            }
            out.println();
            out.println("types (fingerprint, objects, bytes, description; * = described in the file, others built in)");
            for (WireFileInfo.TypeInfo t : info.types()) {
                out.printf(Locale.ROOT, "  %s%s %10d %12d  %s%n", HexFormat.of().toHexDigits(t.fingerprint()), t.described() ? "*" : " ",
                        t.objects(), t.bytes(), t.description());
            }
            return 0;
        } catch (WireFormatException e) {
            err.println("DAMAGED " + path + ": " + e.rule() + " at offset " + e.offset());
            err.println("  " + e.getMessage());
            return 1;
        } catch (IOException e) {
            err.println("verbatim file inspect: cannot read " + path + ": " + e);
            return 1;
        }
    }

    /** The file header as stored, before any check (so a damaged header can be seen). */
    private static void printHeader(Path path, PrintStream out) throws IOException {
        ByteBuffer h = ByteBuffer.allocate(WireFileDescriptor.FILE_HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        long size;
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            size = ch.size();
            while (h.hasRemaining() && ch.read(h, h.position()) > 0) { /* what the file has */ }
        }
        int magic = h.getInt(WireFileDescriptor.MAGIC_OFFSET);
        int kind = h.get(WireFileDescriptor.KIND_OFFSET) & 0xFF;
        out.println("file         " + path);
        out.printf(Locale.ROOT, "size         %d bytes%n", size);
        out.printf(Locale.ROOT, "magic        %s%s%n", printable(magic), magic == WireFileDescriptor.MAGIC ? "" : " (not a Verbatim file)");
        out.printf(Locale.ROOT, "version      %d%n", h.get(WireFileDescriptor.FILE_VERSION_OFFSET) & 0xFF);
        out.printf(Locale.ROOT, "kind         %d (%s)%n", kind,
                kind == WireFileDescriptor.KIND_GRAPH ? "graph" : kind == WireFileDescriptor.KIND_LOG ? "log" : "unknown");
        out.printf(Locale.ROOT, "flags        0x%04x%n", h.getShort(WireFileDescriptor.FILE_FLAGS_OFFSET) & 0xFFFF);
        out.printf(Locale.ROOT, "end          %d%n", h.getLong(WireFileDescriptor.END_OFFSET));
    }

    private static String printable(int magic) {
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < 4; i++) {
            int c = (magic >>> (8 * i)) & 0xFF;
            b.append(c >= 0x20 && c < 0x7F ? String.valueOf((char) c) : String.format(Locale.ROOT, "\\x%02x", c));
        }
        return b.append('"').toString();
    }
}
