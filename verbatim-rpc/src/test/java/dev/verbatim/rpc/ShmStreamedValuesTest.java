package dev.verbatim.rpc;

import java.util.concurrent.atomic.AtomicInteger;

class ShmStreamedValuesTest extends StreamedValuesContract {
    private static final AtomicInteger N = new AtomicInteger();

    @Override
    String address() {
        return "shm:streams-" + ProcessHandle.current().pid() + "-" + N.incrementAndGet();
    }
}
