package dev.verbatim.buffer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** The buffer contract for buffers from a heap {@link BufferPool}. */
class PooledHeapBufferTest extends BufferContractTest {

    private BufferPool pool;

    @BeforeEach
    void openPool() {
        pool = BufferPool.heap(1 << 20, 8);
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
        return Buffer.Kind.HEAP;
    }
}
