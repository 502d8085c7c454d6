package dev.verbatim.rpc;

import dev.verbatim.transport.ConnectionOptions;

import java.util.concurrent.atomic.AtomicInteger;

/** The contract with the smallest receive areas (two of 64 KiB): every value above ~64 KiB is streamed. */
class SmallAreaStreamedValuesTest extends StreamedValuesContract {
    private static final AtomicInteger N = new AtomicInteger();

    @Override
    ConnectionOptions options() {
        return Node.DEFAULT_OPTIONS.withAreas(2, 64 * 1024);
    }

    @Override
    String address() {
        return "shm:small-streams-" + ProcessHandle.current().pid() + "-" + N.incrementAndGet();
    }
}
