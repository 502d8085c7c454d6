package dev.verbatim.buffer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** The buffer contract for buffers from a {@link BufferPool}: a fresh pool per test, closed after it. */
abstract class PooledBufferContractTest extends BufferContractTest {

    private BufferPool pool;

    /** The pool under test. */
    abstract BufferPool newPool();

    @BeforeEach
    void openPool() {
        pool = newPool();
    }

    @AfterEach
    void closePool() {
        pool.close();
    }

    @Override
    Buffer newBuffer(long size) {
        return pool.tryAcquire(size);
    }
}
