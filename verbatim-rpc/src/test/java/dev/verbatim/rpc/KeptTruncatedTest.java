package dev.verbatim.rpc;

import dev.verbatim.wire.WireFormatException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Node#keep} copies an argument out of the connection's receive memory: if a shared-memory peer truncated the
 * window file under it, the copy is a typed error ({@link WireFormatException}, as for bytes the peer changed after
 * validation), never the JDK's {@code InternalError}, and nothing is kept.
 */
@Timeout(30)
class KeptTruncatedTest {

    @Test
    void keepingAnArgumentWhoseMemoryThePeerTruncatedIsAWireFormatException() throws Exception {
        Path file = Files.createTempFile("verbatim-kept", ".area");
        long before = Kept.liveBytes();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
             Arena arena = Arena.ofShared()) {
            MemorySegment m = ch.map(FileChannel.MapMode.READ_WRITE, 0, 1 << 16, arena);
            m.set(ValueLayout.JAVA_LONG, 0, 7L);
            ch.truncate(0);
            WireFormatException e = assertThrows(WireFormatException.class, () -> Kept.copy(m, null));
            assertTrue(e.getMessage().contains("truncated"), e.getMessage());
            assertEquals(before, Kept.liveBytes(), "nothing kept");
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
