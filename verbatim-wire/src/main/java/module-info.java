/** The typed zero-copy wire format, and graphs stored in mapped files. */
module dev.verbatim.wire {
    requires dev.verbatim.buffer;
    exports dev.verbatim.wire;
}
