/**
 * J-RPC: a node exports an object under a name as exactly one interface; another process looks it
 * up and calls it through a generated proxy, over {@code shm:} or {@code tcp://} connections.
 */
module dev.verbatim.rpc {
    requires dev.verbatim.buffer;
    requires dev.verbatim.wire;
    requires transitive dev.verbatim.transport;
    exports dev.verbatim.rpc;
}
