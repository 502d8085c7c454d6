package dev.verbatim.bench.wire;

import java.io.Serial;
import java.io.Serializable;

/**
 * One element of the linked list of Jaguar's Figure 8 (the PSO-over-VIA benchmark): four bytes,
 * four ints and a reference to the next element. 128 of them filled the paper's 4 KB buffer.
 */
public final class Pso implements Serializable {
    @Serial
    private static final long serialVersionUID = 1L;

    public byte b0;
    public byte b1;
    public byte b2;
    public byte b3;
    public int i0;
    public int i1;
    public int i2;
    public int i3;
    public Pso next;

    public Pso() {}
}
