package dev.verbatim.bench.wire;

/** The zero-copy view of a {@link Pso} in a Verbatim message. */
public interface PsoView {
    byte b0();

    byte b1();

    byte b2();

    byte b3();

    int i0();

    int i1();

    int i2();

    int i3();

    PsoView next();
}
