package dev.verbatim.bench.wire;

import dev.verbatim.bench.fixtures.ListNode;
import dev.verbatim.bench.fixtures.Pso;

/** The shapes of message in the wire suite. */
public enum MessageKind {
    /** A {@code byte[]} root (J-RPC Table 3, upper half). Figures per message. */
    BYTES,
    /** A linked list of {@link ListNode} (J-RPC Table 3, lower half). Figures per element. */
    LIST,
    /** A linked list of {@link Pso} (Jaguar Figure 8). Figures per element. */
    PSO,
    /** A {@link dev.verbatim.bench.fixtures.Trade} root. Figures per message. */
    TRADE,
    /** A {@link dev.verbatim.bench.fixtures.Profile} root. Figures per message. */
    PROFILE,
    /** An {@link dev.verbatim.bench.fixtures.EventBatch} root. Figures per message. */
    EVENTS;

    /** Whether this is one of the small string-heavy payloads (issue 19), measured per message. */
    public boolean payload() {
        return this == TRADE || this == PROFILE || this == EVENTS;
    }
}
