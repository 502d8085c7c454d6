package dev.verbatim.buffer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The buffer contract for buffers from an off-heap {@link BufferPool}. The pool hands the most
 * recently returned slot out first, so a buffer made after a release reuses the released memory:
 * the contract's "next buffer" checks run against the very same bytes.
 */
class PooledOffHeapBufferTest extends BufferContractTest {

    private BufferPool pool;

    @BeforeEach
    void openPool() {
        pool = BufferPool.offHeap(1 << 20, 8);
    }

    @AfterEach
    void closePool() {
        pool.close();
    }

    @Override
    Buffer newBuffer(long size) {
        return pool.tryAcquire(size);
    }

    @Override
    Buffer.Kind kind() {
        return Buffer.Kind.OFF_HEAP;
    }
}
