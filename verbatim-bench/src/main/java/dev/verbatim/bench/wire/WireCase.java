package dev.verbatim.bench.wire;

import dev.verbatim.bench.fixtures.Graphs;

import java.util.List;

/**
 * One row of the wire suite: a message root and how to report it.
 *
 * @param name the case name used in the tables and the JSON ({@code bytes-100}, {@code list-10}, ...)
 * @param kind the shape of the root
 * @param n array length in bytes, or number of list elements
 * @param root the object graph every codec marshals
 */
public record WireCase(String name, MessageKind kind, int n, Object root) {

    /** The cases of J-RPC Tables 3-4 and Jaguar Figure 8, in table order. */
    public static List<WireCase> all() {
        return List.of(
                bytes(10), bytes(100), bytes(500), bytes(1000), bytes(5000), bytes(1 << 20),
                list(10), list(100), list(500),
                new WireCase("pso-128", MessageKind.PSO, 128, Graphs.psoList(128)));
    }

    static WireCase bytes(int n) {
        return new WireCase("bytes-" + n, MessageKind.BYTES, n, Graphs.bytes(n));
    }

    static WireCase list(int n) {
        return new WireCase("list-" + n, MessageKind.LIST, n, Graphs.list(n));
    }

    /** Operations per reported figure: 1 for byte arrays (per message), n for lists (per element). */
    public int perUnit() {
        return kind == MessageKind.BYTES ? 1 : n;
    }

    /** The unit of the time figures. */
    public String timeUnit() {
        return kind == MessageKind.BYTES ? "ns" : "ns/elem";
    }
}
