package dev.verbatim.bench.wire;

/** The zero-copy view of a {@link Node} in a Verbatim message (same structure, method names = fields). */
public interface NodeView {
    int value();

    NodeView next();
}
