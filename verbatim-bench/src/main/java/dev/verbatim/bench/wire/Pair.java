package dev.verbatim.bench.wire;

import java.io.Serial;
import java.io.Serializable;

/**
 * Two references, for the start-up check that a codec preserves sharing (both fields pointing at
 * one node arrive pointing at one node) and cycles (a ring of nodes arrives as a ring).
 */
public final class Pair implements Serializable {
    @Serial
    private static final long serialVersionUID = 1L;

    public Node left;
    public Node right;

    public Pair() {}

    public Pair(Node left, Node right) {
        this.left = left;
        this.right = right;
    }
}
