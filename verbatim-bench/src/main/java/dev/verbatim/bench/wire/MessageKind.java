package dev.verbatim.bench.wire;

import dev.verbatim.bench.fixtures.ListNode;
import dev.verbatim.bench.fixtures.Pso;

/** The three shapes of message in the wire suite. */
public enum MessageKind {
    /** A {@code byte[]} root (J-RPC Table 3, upper half). Figures per message. */
    BYTES,
    /** A linked list of {@link ListNode} (J-RPC Table 3, lower half). Figures per element. */
    LIST,
    /** A linked list of {@link Pso} (Jaguar Figure 8). Figures per element. */
    PSO
}
