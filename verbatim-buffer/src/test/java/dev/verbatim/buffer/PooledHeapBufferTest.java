package dev.verbatim.buffer;

/** The buffer contract for buffers from a heap {@link BufferPool}. */
class PooledHeapBufferTest extends PooledBufferContractTest {

    @Override
    BufferPool newPool() {
        return BufferPool.heap(1 << 20, 8);
    }

    @Override
    Buffer.Kind kind() {
        return Buffer.Kind.HEAP;
    }
}
