package dev.verbatim.bench.wire;

import java.io.Serial;
import java.io.Serializable;

/**
 * One element of the linked list of J-RPC Table 3: an int and a next reference. A plain class with
 * a no-arg constructor that every codec reads as it is: Verbatim (no registration), Java
 * serialization ({@link Serializable}), Kryo and Fory (registered).
 */
public final class Node implements Serializable {
    @Serial
    private static final long serialVersionUID = 1L;

    public int value;
    public Node next;

    public Node() {}

    public Node(int value, Node next) {
        this.value = value;
        this.next = next;
    }
}
