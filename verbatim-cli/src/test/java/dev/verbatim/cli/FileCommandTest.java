package dev.verbatim.cli;

import dev.verbatim.wire.Schema;
import dev.verbatim.wire.file.WireFile;
import dev.verbatim.wire.file.WireFileDescriptor;
import dev.verbatim.wire.file.WireLogWriter;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.*;

/** {@code verbatim file inspect} and {@code verbatim file verify} on graph files and logs, good and damaged. */
class FileCommandTest {
    public record Point(int x, int y) {}

    public record Shape(String name, List<Point> points) {}

    @TempDir
    Path dir;

    private record Outcome(int code, String out, String err) {}

    private static Outcome run(String... args) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Outcome(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static Shape shape() {
        return new Shape("triangle", List.of(new Point(0, 0), new Point(4, 0), new Point(0, 3)));
    }

    @Test
    void inspectPrintsTheHeaderTheTypesWithFingerprintsAndTheObjects() throws Exception {
        Path f = dir.resolve("shape.vbt");
        long size = WireFile.write(f, shape());
        Outcome o = run("file", "inspect", f.toString());
        assertEquals(0, o.code(), o.err());
        String hex = HexFormat.of().toHexDigits(Schema.fingerprint(Shape.class));
        String point = HexFormat.of().toHexDigits(Schema.fingerprint(Point.class));
        assertTrue(o.out().contains("magic        \"VRBT\""), o.out());
        assertTrue(o.out().contains("kind         1 (graph)"), o.out());
        assertTrue(o.out().contains("end          " + size), o.out());
        assertTrue(o.out().contains("records      1 (messages: "), o.out());
        assertTrue(o.out().contains(" 6 objects)"), o.out()); // shape, its name, the list, three points
        assertTrue(o.out().contains(hex + "*          1"), o.out());
        assertTrue(o.out().contains(point + "*          3"), o.out());
        assertTrue(o.out().contains("struct{x:i32;y:i32}"), o.out());
    }

    @Test
    void verifyAcceptsAGoodFileAndNamesTheRuleAndOffsetOfADamagedOne() throws Exception {
        Path f = dir.resolve("shape.vbt");
        WireFile.write(f, shape());
        Outcome good = run("file", "verify", f.toString());
        assertEquals(0, good.code(), good.err());
        assertTrue(good.out().startsWith("OK "), good.out());

        byte[] b = Files.readAllBytes(f);
        b[b.length - 3] ^= 0x40; // in the message's object table: the checksum catches it whatever it does
        Files.write(f, b);
        Outcome bad = run("file", "verify", f.toString());
        assertEquals(1, bad.code());
        assertTrue(bad.err().startsWith("DAMAGED "), bad.err());
        assertTrue(bad.err().contains("at offset "), bad.err());

        b[0] = 'X';
        Files.write(f, b);
        Outcome magic = run("file", "verify", f.toString());
        assertEquals(1, magic.code());
        assertTrue(magic.err().contains("not a Verbatim file at offset 0"), magic.err());
        Outcome inspect = run("file", "inspect", f.toString());
        assertEquals(1, inspect.code());
        assertTrue(inspect.out().contains("(not a Verbatim file)"), inspect.out());
    }

    @Test
    void bothWorkOnLogs() throws Exception {
        Path f = dir.resolve("log.vbt");
        try (WireLogWriter w = WireLogWriter.create(f, 1 << 14, false)) {
            for (int i = 0; i < 5; i++) w.append(new Point(i, -i));
            w.append(shape());
        }
        Outcome v = run("file", "verify", f.toString());
        assertEquals(0, v.code(), v.err());
        assertTrue(v.out().contains("log file, 6 records, 11 objects"), v.out());
        Outcome i = run("file", "inspect", f.toString());
        assertEquals(0, i.code(), i.err());
        assertTrue(i.out().contains("kind         " + WireFileDescriptor.KIND_LOG + " (log)"), i.out());
        assertTrue(i.out().contains("torn tail    none"), i.out());
    }

    @Test
    void repairCutsALogBackToItsLastRecordWhoseChecksumHoldsAndSaysWhat() throws Exception {
        Path f = dir.resolve("log.vbt");
        long third;
        try (WireLogWriter w = WireLogWriter.create(f, 1 << 14, false)) {
            w.append(new Point(0, 0));
            w.append(new Point(1, -1));
            third = w.append(new Point(2, -2));
            w.append(new Point(3, -3));
        }
        Outcome ok = run("file", "repair", f.toString());
        assertEquals(0, ok.code(), ok.err());
        assertTrue(ok.out().startsWith("OK ") && ok.out().contains("4 records"), ok.out());
        // a power loss: the committed end reached the disk, the third record's body did not
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(f, java.nio.file.StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.wrap(new byte[8]), third + WireFileDescriptor.RECORD_HEADER_LENGTH + 8);
        }
        Outcome damaged = run("file", "verify", f.toString());
        assertEquals(1, damaged.code());
        Outcome repaired = run("file", "repair", f.toString());
        assertEquals(0, repaired.code(), repaired.err());
        assertTrue(repaired.out().startsWith("REPAIRED ") && repaired.out().contains("at offset " + third)
                && repaired.out().contains("checksum mismatch") && repaired.out().contains("2 records kept"), repaired.out());
        Outcome v = run("file", "verify", f.toString());
        assertEquals(0, v.code(), v.err());
        assertTrue(v.out().contains("log file, 2 records"), v.out());
        Outcome graph = run("file", "repair", dir.resolve("g.vbt").toString());
        assertEquals(1, graph.code());
        WireFile.write(dir.resolve("g.vbt"), new Point(1, 2));
        Outcome notALog = run("file", "repair", dir.resolve("g.vbt").toString());
        assertEquals(1, notALog.code());
        assertTrue(notALog.err().contains("not a log"), notALog.err());
    }

    @Test
    void usageAndMissingFiles() throws Exception {
        assertEquals(2, run("file").code());
        assertEquals(2, run("file", "check", "x").code());
        Outcome missing = run("file", "verify", dir.resolve("nope.vbt").toString());
        assertEquals(1, missing.code());
        assertTrue(missing.err().contains("no such file"), missing.err());
    }
}
