package dev.verbatim.bench.harness;

import java.util.List;

/**
 * What every contender of a suite whose sides run in child processes has (transport's ping-pongs
 * and streams, rpc's client-server pairs): a column, a medium, and the JVM flags of its processes.
 * Each suite's contender interface extends this one with its sides.
 */
public interface Contender {

    /** The column in tables and the key in JSON results: {@code floor}, {@code aeron}, {@code verbatim}, ... */
    String name();

    /** Where its processes talk: which figures and JSON cases it belongs to. */
    Medium medium();

    /** Extra JVM flags for this contender's processes (the harness adds {@link ChildProcess#BASE_FLAGS}). */
    default List<String> jvmFlags() {
        return List.of();
    }
}
