/** The typed zero-copy wire format. */
module dev.verbatim.wire {
    requires transitive dev.verbatim.buffer;
    exports dev.verbatim.wire;
}
