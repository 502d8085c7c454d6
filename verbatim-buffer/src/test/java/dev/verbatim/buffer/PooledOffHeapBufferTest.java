package dev.verbatim.buffer;

/**
 * The buffer contract for buffers from an off-heap {@link BufferPool}. The pool hands the most
 * recently returned slot out first, so a buffer made after a release reuses the released memory:
 * the contract's "next buffer" checks run against the very same bytes.
 */
class PooledOffHeapBufferTest extends PooledBufferContractTest {

    @Override
    BufferPool newPool() {
        return BufferPool.offHeap(1 << 20, 8);
    }

    @Override
    Buffer.Kind kind() {
        return Buffer.Kind.OFF_HEAP;
    }
}
