package dev.verbatim.bench.wire;

/** The three shapes of message in the wire suite. */
public enum Kind {
    /** A {@code byte[]} root (J-RPC Table 3, upper half). Figures per message. */
    BYTES,
    /** A linked list of {@link Node} (J-RPC Table 3, lower half). Figures per element. */
    LIST,
    /** A linked list of {@link Pso} (Jaguar Figure 8). Figures per element. */
    PSO
}
