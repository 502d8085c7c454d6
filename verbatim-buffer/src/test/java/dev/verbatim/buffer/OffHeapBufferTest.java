package dev.verbatim.buffer;

/** The buffer contract for unpooled off-heap buffers ({@link Buffers#offHeap}). */
class OffHeapBufferTest extends BufferContractTest {

    @Override
    Buffer newBuffer(long size) {
        return Buffers.offHeap(size);
    }

    @Override
    Buffer.Kind kind() {
        return Buffer.Kind.OFF_HEAP;
    }
}
