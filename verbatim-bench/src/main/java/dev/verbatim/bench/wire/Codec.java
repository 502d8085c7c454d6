package dev.verbatim.bench.wire;

import dev.verbatim.bench.fixtures.Graphs;
import dev.verbatim.bench.harness.Blackhole;

/**
 * One library under test, holding its reusable output and input. A codec is stateful and not
 * thread-safe: one per measuring thread.
 *
 * <p>Each implementation writes its own batch loops on purpose (they look alike): a loop shared
 * by all codecs would make the call to the operation megamorphic and charge every library for
 * a virtual call per operation. Inside a codec's loop the call is monomorphic, as in JMH.
 */
public interface Codec {

    /**
     * The column name: {@code verbatim}, {@code verbatim-materialize}, {@code jos}, {@code kryo}, {@code fory},
     * {@code kryo-noref}, {@code fory-noref}, {@code verbatim-hand}, {@code verbatim-hand-materialize}.
     */
    String name();

    /** Marshals {@code root} into this codec's reusable output; returns the message size in bytes. */
    long marshal(Object root) throws Exception;

    /** Runs {@link #marshal} {@code n} times, consuming each size. */
    void marshalBatch(Object root, int n, Blackhole bh) throws Exception;

    /**
     * Marshals {@code root} and keeps a copy of the message as the received one, which
     * {@link #unmarshal} and {@link #decode} then read (untimed set-up). Returns its size.
     */
    long receive(Object root) throws Exception;

    /**
     * Unmarshals the received message and reads every field ({@link Graphs#touch}); returns the
     * sum of the fields read.
     */
    long unmarshal(MessageKind kind) throws Exception;

    /** Runs {@link #unmarshal} {@code n} times, consuming each result. */
    void unmarshalBatch(MessageKind kind, int n, Blackhole bh) throws Exception;

    /** The received message as heap objects (Verbatim: validated and materialized). */
    Object decode() throws Exception;

    /**
     * Checks the received message against {@code expected} the way this codec's {@link #unmarshal}
     * reads it; returns the first difference, or {@code null}.
     */
    default String verifyReceived(Object expected) throws Exception {
        return Graphs.diff(expected, decode());
    }
}
