/**
 * J-RPC: a node exports an object under a name as exactly one interface; another process looks it
 * up and calls it through a generated proxy, over {@code shm:} or {@code tcp://} connections.
 */
@SuppressWarnings("module") // dev.verbatim.objects, built after this module, is not there to see
module dev.verbatim.rpc {
    requires dev.verbatim.buffer;
    requires dev.verbatim.wire;
    requires transitive dev.verbatim.transport;
    requires jdk.management; // the JVM's thread stack size, once a chain nests deep (CallContext.maxNesting)
    exports dev.verbatim.rpc;
    // the object layer stands on the endpoint: its references, calls to shared objects, chains across connections
    exports dev.verbatim.rpc.internal to dev.verbatim.objects;
}
