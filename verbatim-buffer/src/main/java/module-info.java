/** Explicit off-heap, heap and mapped-file buffers with safe lifetimes. */
@SuppressWarnings("module") // dev.verbatim.rpc, built after this module, is not there to see
module dev.verbatim.buffer {
    exports dev.verbatim.buffer;
    // page-lazy memory (mmap, madvise, mincore) for the tcp window and J-RPC's streamed values
    exports dev.verbatim.buffer.internal to dev.verbatim.transport, dev.verbatim.rpc;
}
