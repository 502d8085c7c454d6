/**
 * Distributed objects on J-RPC (docs/objects.md): bases, shared objects passed by reference with one
 * identity on every base, forwarding without the owner, remote construction, weighted reference counting,
 * delegate threads across bases.
 */
module dev.verbatim.objects {
    requires transitive dev.verbatim.rpc;
    requires transitive dev.verbatim.wire; // Shared extends the wire format's ByReference
    exports dev.verbatim.objects;
    // the RPC proxy and stub of the base service are generated in the rpc module
    exports dev.verbatim.objects.internal to dev.verbatim.rpc;
}
