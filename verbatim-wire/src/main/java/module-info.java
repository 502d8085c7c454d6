/** The typed zero-copy wire format. */
module dev.verbatim.wire {
    exports dev.verbatim.wire;
}
