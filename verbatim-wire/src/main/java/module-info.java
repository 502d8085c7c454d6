/**
 * The typed zero-copy wire format ({@link dev.verbatim.wire}), and graphs and logs stored in mapped files
 * ({@link dev.verbatim.wire.file}). {@code dev.verbatim.wire.internal} is not exported: it is the one access
 * point from the file package into the wire package's internals, not API.
 *
 * <p>The implementation of the format (shapes, bindings, the code generators, the materializer) is
 * package-private in {@code dev.verbatim.wire} rather than in an internal package: the classes it generates
 * are hidden classes of that package and call package-private members of {@link dev.verbatim.wire.Message},
 * {@link dev.verbatim.wire.WireWriter} and {@link dev.verbatim.wire.WireReader} directly (no indirection on the
 * per-message path); from another package those members would have to be public API.
 */
module dev.verbatim.wire {
    requires dev.verbatim.buffer;
    exports dev.verbatim.wire;
    exports dev.verbatim.wire.file;
}
