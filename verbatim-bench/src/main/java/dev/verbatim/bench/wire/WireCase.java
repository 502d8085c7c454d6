package dev.verbatim.bench.wire;

import dev.verbatim.bench.fixtures.Graphs;
import dev.verbatim.bench.fixtures.Payloads;

import java.util.List;

/**
 * One row of the wire suite: a message root and how to report it.
 *
 * @param name the case name used in the tables and the JSON ({@code bytes-100}, {@code list-10}, ...)
 * @param kind the shape of the root
 * @param n array length in bytes, number of list elements, or of events ({@code batch-100}; 1 for the other payloads)
 * @param root the object graph every codec marshals
 */
public record WireCase(String name, MessageKind kind, int n, Object root) {

    /**
     * The cases of J-RPC Tables 3-4 and Jaguar Figure 8, then the small string-heavy payloads of
     * issue 19 ({@link #payloads()}), in table order.
     */
    public static List<WireCase> all() {
        return List.of(
                bytes(10), bytes(100), bytes(500), bytes(1000), bytes(5000), bytes(1 << 20),
                list(10), list(100), list(500),
                new WireCase("pso-128", MessageKind.PSO, 128, Graphs.psoList(128)),
                trade(), profile(), events(100));
    }

    /** The payload cases alone, in table order: {@code trade}, {@code profile}, {@code batch-100}. */
    public static List<WireCase> payloads() {
        return all().stream().filter(c -> c.kind().payload()).toList();
    }

    static WireCase trade() {
        return new WireCase("trade", MessageKind.TRADE, 1, Payloads.trade());
    }

    static WireCase profile() {
        return new WireCase("profile", MessageKind.PROFILE, 1, Payloads.profile());
    }

    static WireCase events(int n) {
        return new WireCase("batch-" + n, MessageKind.EVENTS, n, Payloads.events(n));
    }

    static WireCase bytes(int n) {
        return new WireCase("bytes-" + n, MessageKind.BYTES, n, Graphs.bytes(n));
    }

    static WireCase list(int n) {
        return new WireCase("list-" + n, MessageKind.LIST, n, Graphs.list(n));
    }

    /** Operations per reported figure: 1 for byte arrays and payloads (per message), n for lists (per element). */
    public int perUnit() {
        return perMessage() ? 1 : n;
    }

    /** The unit of the time figures. */
    public String timeUnit() {
        return perMessage() ? "ns" : "ns/elem";
    }

    private boolean perMessage() {
        return kind == MessageKind.BYTES || kind.payload();
    }
}
