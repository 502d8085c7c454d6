package dev.verbatim.buffer;

/** The buffer contract for unpooled heap buffers ({@link Buffers#heap}). */
class HeapBufferTest extends BufferContractTest {

    @Override
    Buffer newBuffer(long size) {
        return Buffers.heap(size);
    }

    @Override
    Buffer.Kind kind() {
        return Buffer.Kind.HEAP;
    }
}
