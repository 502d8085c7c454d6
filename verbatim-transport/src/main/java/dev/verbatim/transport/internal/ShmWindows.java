package dev.verbatim.transport.internal;

import dev.verbatim.buffer.Buffer;
import dev.verbatim.buffer.Buffers;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

import static dev.verbatim.transport.internal.AreaDescriptor.AREA_COUNT_OFFSET;
import static dev.verbatim.transport.internal.AreaDescriptor.AREA_SIZE_OFFSET;
import static dev.verbatim.transport.internal.AreaDescriptor.MAGIC;
import static dev.verbatim.transport.internal.AreaDescriptor.MAGIC_OFFSET;
import static dev.verbatim.transport.internal.AreaDescriptor.OWNER_PID_OFFSET;
import static dev.verbatim.transport.internal.AreaDescriptor.STATE_SENDER;
import static dev.verbatim.transport.internal.AreaDescriptor.VERSION;
import static dev.verbatim.transport.internal.AreaDescriptor.VERSION_OFFSET;
import static dev.verbatim.transport.internal.AreaDescriptor.areaStateOffset;
import static dev.verbatim.transport.internal.AreaDescriptor.windowSize;

/** Creating this side's shm receive window file and mapping (after checking) the peer's. */
final class ShmWindows {
    private ShmWindows() {}

    /** Creates and maps a window file (owner-only, zero-filled) and writes its header. */
    static Buffer create(Path file, int areaCount, int areaSize, boolean neverParks) throws IOException {
        Buffer b = Buffers.mapNew(file, windowSize(areaCount, areaSize));
        try {
            MemorySegment w = b.segment();
            w.set(ValueLayout.JAVA_INT, VERSION_OFFSET, VERSION);
            w.set(ValueLayout.JAVA_INT, AREA_COUNT_OFFSET, areaCount);
            w.set(ValueLayout.JAVA_INT, AREA_SIZE_OFFSET, areaSize);
            w.set(ValueLayout.JAVA_LONG, OWNER_PID_OFFSET, ProcessHandle.current().pid());
            w.set(ValueLayout.JAVA_INT, areaStateOffset(0), STATE_SENDER);
            w.set(ValueLayout.JAVA_INT, AreaDescriptor.RECEIVER_NEVER_PARKS_OFFSET, neverParks ? 1 : 0);
            w.set(ValueLayout.JAVA_LONG, MAGIC_OFFSET, MAGIC);
            return b;
        } catch (RuntimeException e) {
            b.release();
            Files.deleteIfExists(file);
            throw e;
        }
    }

    /** Maps the peer's window after checking that it is the file its hello describes. */
    static Buffer mapPeer(Path file, Hello hello) throws IOException, ProtocolViolation {
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            throw new ProtocolViolation("the peer's receive window " + file.getFileName() + " cannot be read: " + e);
        }
        long expected = windowSize(hello.areaCount(), hello.areaSize());
        if (!a.isRegularFile() || a.size() != expected) {
            throw new ProtocolViolation("the peer's receive window " + file.getFileName() + " is not a regular file of "
                    + expected + " bytes");
        }
        Buffer b = Buffers.map(file, FileChannel.MapMode.READ_WRITE, 0, expected); // exactly: a file shrunk since is not trusted
        MemorySegment w = b.segment();
        if (w.get(ValueLayout.JAVA_LONG, MAGIC_OFFSET) != MAGIC
                || w.get(ValueLayout.JAVA_INT, VERSION_OFFSET) != VERSION
                || w.get(ValueLayout.JAVA_INT, AREA_COUNT_OFFSET) != hello.areaCount()
                || w.get(ValueLayout.JAVA_INT, AREA_SIZE_OFFSET) != hello.areaSize()
                || w.get(ValueLayout.JAVA_LONG, OWNER_PID_OFFSET) != hello.pid()) {
            b.release();
            throw new ProtocolViolation("the peer's receive window " + file.getFileName()
                    + " has a header that does not match its hello");
        }
        return b;
    }
}
