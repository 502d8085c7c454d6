package dev.verbatim.bench.objects;

import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * A case of {@code verbatim bench objects} (issue 15 §4) and the contenders that measure it; a turn of a
 * contender is calls of one case, each checked ({@link #expected}).
 *
 * <table>
 *   <caption>Cases</caption>
 *   <tr><th>key</th><th>one call</th><th>contenders</th><th>figure</th></tr>
 *   <tr><td>{@code shm/call-null}, {@code tcp/call-null}</td><td>a method that does nothing, on base 1's object,
 *       from base 0</td><td>{@code rpc}, {@code objects}, {@code rmi} (always loopback TCP); over shm also {@code floor}
 *       (an 8-byte FFM spin ping-pong between processes 0 and 1, {@link FloorTurns})</td><td>p50 ns per call</td></tr>
 *   <tr><td>{@code shm/forward-ref}</td><td>base 0 passes its reference to base 1's probe to base 2's probe,
 *       which stores it</td><td>{@code objects}, {@code bytes} (the same call carrying the reference's bytes as a
 *       {@code byte[]}), {@code rmi}</td><td>p50 ns per call</td></tr>
 *   <tr><td>{@code list/LAYOUT/ALGORITHM/bB}</td><td>a walk of the n-element list over {@code B} bases from
 *       base 0, work {@code w} per element</td><td>{@code objects}; {@code rmi} for {@code serial}</td>
 *       <td>p50 walk / n, ns per element</td></tr>
 *   <tr><td>{@code list/scattered/serial/b2/w0}</td><td>the same with no work: the cost of a hop</td>
 *       <td>{@code objects}, {@code rmi}, {@code null-run} (n - 1 null calls in a row, timed as one)</td>
 *       <td>ns per element</td></tr>
 * </table>
 *
 * @param medium    {@code shm} or {@code tcp} (the list over shm)
 * @param layout    the list's layout, null for the calls
 * @param traversal the list's walk, null for the calls
 * @param bases     the list's bases (1-4), 2 for the calls, 3 for forward-ref
 * @param noWork    the {@code w0} case: no work per element
 */
public record ObjectsCase(String key, String medium, Layout layout, Traversal traversal, int bases, boolean noWork,
                          Set<String> contenders) {
    /**
     * The shm floor: the transport suite's FFM spin ping-pong of 8 bytes between processes 0 and 1 ({@link FloorTurns}),
     * what no call over shm can beat, measured in the same run as the calls.
     */
    public static final String FLOOR = "floor";
    public static final String RPC = "rpc";
    public static final String OBJECTS = "objects";
    public static final String RMI = "rmi";
    /**
     * The hop's like-for-like denominator: as many null calls on base 1's object as the walk has remote links, one after
     * the other, timed as one and divided by the list's length as a walk is (so every call's tail counts, as every hop's
     * does in a walk).
     */
    public static final String NULL_RUN = "null-run";
    /**
     * The forward's like for like without the objects layer's work on the reference: base 0 passes base 2's probe,
     * through the same proxy, a {@code byte[]} as long as the reference the forward carries (docs/objects.md §1), which
     * it stores. What is left of the forward beyond it is the reference's weight split and counted, its encoding, its
     * reading and its weight taken in.
     */
    public static final String BYTES = "bytes";
    /** Bases of the list cases: 1 to this many. */
    public static final int MAX_BASES = 4;

    public static final ObjectsCase SHM_CALL_NULL = new ObjectsCase("shm/call-null", "shm", null, null, 2, false,
            Set.of(FLOOR, RPC, OBJECTS, RMI));
    public static final ObjectsCase TCP_CALL_NULL = new ObjectsCase("tcp/call-null", "tcp", null, null, 2, false,
            Set.of(RPC, OBJECTS, RMI));
    public static final ObjectsCase FORWARD_REF = new ObjectsCase("shm/forward-ref", "shm", null, null, 3, false,
            Set.of(OBJECTS, BYTES, RMI));
    public static final ObjectsCase HOP = new ObjectsCase("list/scattered/serial/b2/w0", "shm", Layout.SCATTERED,
            Traversal.SERIAL, 2, true, Set.of(OBJECTS, RMI, NULL_RUN));

    /** Whether this is a walk of the list. */
    public boolean isList() {
        return layout != null;
    }

    /** The contender names in column order that measure this case. */
    public List<String> columns() {
        return List.of(FLOOR, RPC, OBJECTS, BYTES, RMI, NULL_RUN).stream().filter(contenders::contains).toList();
    }

    /** The cases of the first phase, which fix the work per element: the calls, the forwarded reference, the hop. */
    public static List<ObjectsCase> calls() {
        return List.of(SHM_CALL_NULL, TCP_CALL_NULL, FORWARD_REF, HOP);
    }

    /** The list cases with work, layout by layout, walk by walk, 1 to {@value #MAX_BASES} bases. */
    public static List<ObjectsCase> lists() {
        List<ObjectsCase> l = new ArrayList<>();
        for (Layout layout : Layout.values()) {
            for (Traversal t : Traversal.values()) {
                for (int b = 1; b <= MAX_BASES; b++) {
                    l.add(list(layout, t, b));
                }
            }
        }
        return l;
    }

    /** {@code list/LAYOUT/ALGORITHM/bB}: {@code objects}, and {@code rmi} for the serial walk. */
    public static ObjectsCase list(Layout layout, Traversal t, int b) {
        return new ObjectsCase("list/" + layout.key() + "/" + t.key() + "/b" + b, "shm", layout, t, b, false,
                t == Traversal.SERIAL ? Set.of(OBJECTS, RMI) : Set.of(OBJECTS));
    }

    /** Every case, in report order. */
    public static List<ObjectsCase> all() {
        List<ObjectsCase> l = new ArrayList<>(calls());
        l.addAll(lists());
        return l;
    }

    /** The case of {@code key}. */
    public static ObjectsCase of(String key) {
        return all().stream().filter(c -> c.key.equals(key)).findFirst()
                .orElseThrow(() -> new NoSuchElementException("no objects case '" + key + "'"));
    }

    /**
     * What one call of {@code contender} in this case returns: the sum of the values 0..n-1 for a walk of {@code n}, 0
     * for the calls (and the {@link #NULL_RUN}).
     */
    public long expected(String contender, int elements) {
        return isList() && !contender.equals(NULL_RUN) ? (long) elements * (elements - 1) / 2 : 0;
    }
}
