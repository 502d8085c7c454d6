package dev.verbatim.rpc;

import java.util.concurrent.atomic.AtomicInteger;

class ShmRpcTest extends RpcContract {
    private static final AtomicInteger N = new AtomicInteger();

    @Override
    String address() {
        return "shm:rpc-" + ProcessHandle.current().pid() + "-" + N.incrementAndGet();
    }
}
