/** Explicit off-heap, heap and mapped-file buffers with safe lifetimes. */
module dev.verbatim.buffer {
    exports dev.verbatim.buffer;
}
