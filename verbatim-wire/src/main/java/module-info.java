/**
 * The typed zero-copy wire format ({@link dev.verbatim.wire}), and graphs and logs stored in mapped files
 * ({@link dev.verbatim.wire.file}). {@code dev.verbatim.wire.internal} is not exported: it is the one access
 * point from the file package into the wire package's internals, not API.
 */
module dev.verbatim.wire {
    requires dev.verbatim.buffer;
    exports dev.verbatim.wire;
    exports dev.verbatim.wire.file;
}
