/**
 * Connections between processes: {@code shm:NAME} (shared memory on one host, no system call on
 * the critical path) and {@code tcp://HOST:PORT} (Java NIO), one {@link dev.verbatim.transport.Connection}
 * interface with receive areas owned by the receiver, sender-managed flow control and one-sided
 * writes.
 */
@SuppressWarnings("module") // dev.verbatim.rpc, built after this module, is not there to see
module dev.verbatim.transport {
    requires dev.verbatim.buffer;
    exports dev.verbatim.transport;
    // how a spinner pauses between looks (yielding once its CPU proves shared): the transport's waits and rpc's
    exports dev.verbatim.transport.spin to dev.verbatim.rpc;
}
