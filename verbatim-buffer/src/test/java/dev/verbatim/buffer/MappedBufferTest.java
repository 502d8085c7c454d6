package dev.verbatim.buffer;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The buffer contract for memory-mapped files ({@link Buffers#mapNew}), in a temporary directory. */
class MappedBufferTest extends BufferContractTest {

    @TempDir
    Path dir;

    private int files;

    @Override
    Buffer newBuffer(long size) throws IOException {
        return Buffers.mapNew(dir.resolve("buffer-" + files++ + ".bin"), size);
    }

    @Override
    Buffer.Kind kind() {
        return Buffer.Kind.MAPPED;
    }
}
