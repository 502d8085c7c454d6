/**
 * The fuzz campaign against the wire validator, and the graph oracle that says whether two object graphs (heap
 * objects or views of a message) are the same graph. Depends on the wire module only; the {@code verbatim fuzz}
 * command and the test suite run it.
 */
module dev.verbatim.fuzz {
    requires transitive dev.verbatim.wire;
    requires java.management;
    requires jdk.management;
    exports dev.verbatim.fuzz;
    // The wire module generates views of the campaign's types and materializes them (a class with package-private fields).
    opens dev.verbatim.fuzz to dev.verbatim.wire;
}
