package dev.verbatim.fuzz;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds a cycle through records in a message read through views: a cycle of direct references (a component whose
 * value is the next struct, not a list or array element) between structs whose wire types are records. No record
 * graph can hold one (a record is built after its components), so the materializer must refuse such a message
 * with a {@code WireSchemaException}, and may refuse a valid message for no other reason.
 *
 * <p>Collects the edges a {@link GraphOracle} walk reports (by offset), then searches them iteratively. Not
 * thread-safe; one per message.
 */
final class RecordCycles implements GraphOracle.ViewEdges {
    private final Map<Long, List<Long>> edges = new HashMap<>();

    @Override
    public void edge(Object from, Object to) {
        if (FuzzTypes.isRecordBacked(from) && FuzzTypes.isRecordBacked(to)) {
            edges.computeIfAbsent(GraphOracle.viewOffset(from), k -> new ArrayList<>()).add(GraphOracle.viewOffset(to));
        }
    }

    /** True if the views read so far hold a cycle through records. */
    boolean found() {
        Map<Long, Integer> state = new HashMap<>(); // 1 on the path, 2 done
        for (Long start : edges.keySet()) {
            if (state.containsKey(start)) continue;
            ArrayDeque<long[]> path = new ArrayDeque<>(); // (node, next edge index)
            path.push(new long[] {start, 0});
            state.put(start, 1);
            while (!path.isEmpty()) {
                long[] top = path.peek();
                List<Long> next = edges.getOrDefault(top[0], List.of());
                if (top[1] < next.size()) {
                    long w = next.get((int) top[1]++);
                    Integer s = state.get(w);
                    if (s == null) {
                        state.put(w, 1);
                        path.push(new long[] {w, 0});
                    } else if (s == 1) {
                        return true;
                    }
                } else {
                    state.put(top[0], 2);
                    path.pop();
                }
            }
        }
        return false;
    }

    /** True if the graph of views rooted at {@code root} holds a cycle through records (reads all of it). */
    static boolean in(Object root) {
        RecordCycles c = new RecordCycles();
        GraphOracle.read(root, c);
        return c.found();
    }
}
