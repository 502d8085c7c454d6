package dev.verbatim.bench.objects;

import dev.verbatim.bench.harness.FloorCase;
import dev.verbatim.bench.harness.FloorTable;
import dev.verbatim.bench.harness.Host;
import dev.verbatim.bench.harness.Json;
import dev.verbatim.bench.harness.ReportText;
import dev.verbatim.bench.harness.Target;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static dev.verbatim.bench.objects.ObjectsCase.BYTES;
import static dev.verbatim.bench.objects.ObjectsCase.FLOOR;
import static dev.verbatim.bench.objects.ObjectsCase.NULL_RUN;
import static dev.verbatim.bench.objects.ObjectsCase.OBJECTS;
import static dev.verbatim.bench.objects.ObjectsCase.RMI;
import static dev.verbatim.bench.objects.ObjectsCase.RPC;

/**
 * Prints an {@link ObjectsBench.Run}: tables (the calls, the hop, the list by layout and walk against the
 * number of bases) or one JSON object per line; then the targets of issue 15 §4, evaluated on this run.
 *
 * <p>JSON lines: {@code {"suite":"objects","case":KEY,"unit":"ns"|"ns/element","results":{contender: figure},
 * "ratios":{..},"work":W,"elements":N,"mode":"quick"}} for every case of {@link ObjectsCase#all()} (its
 * contenders that measured it; ratios: {@code objects/rpc}, {@code rmi/objects}, {@code objects/bytes} and
 * {@code objects/null-run} where both are there, paired by round); then a line per target ({@code {"suite":"objects","target":..,"measured":x|null,
 * "need":..,"pass":true|false|null}}) and a line per failure ({@code {"suite":"objects","failed":
 * "contender case","error":..}}).
 */
final class ObjectsReport {
    private ObjectsReport() {}

    /** The figures of case {@code c}, contender by contender (those that measured it). */
    static Map<String, Double> results(ObjectsBench.Run run, ObjectsCase c) {
        Map<String, Double> m = new LinkedHashMap<>();
        for (String contender : c.columns()) {
            if (run.has(c, contender)) {
                m.put(contender, run.figure(c, contender));
            }
        }
        return m;
    }

    /**
     * {@code objects/rpc}, {@code rmi/objects}, {@code rmi/rpc} (the bound of the RMI target: the RPC call under the
     * objects call), {@code objects/bytes} (the forward) and {@code objects/null-run} (the hop)
     * in case {@code c}, paired by round, where both sides measured it.
     */
    static Map<String, Double> ratios(ObjectsBench.Run run, ObjectsCase c) {
        Map<String, Double> m = new LinkedHashMap<>();
        if (run.has(c, OBJECTS) && run.has(c, RPC)) {
            m.put(OBJECTS + "/" + RPC, run.ratio(c, OBJECTS, c, RPC));
        }
        if (run.has(c, RMI) && run.has(c, OBJECTS)) {
            m.put(RMI + "/" + OBJECTS, run.ratio(c, RMI, c, OBJECTS));
        }
        if (run.has(c, RMI) && run.has(c, RPC)) {
            m.put(RMI + "/" + RPC, run.ratio(c, RMI, c, RPC));
        }
        if (run.has(c, OBJECTS) && run.has(c, BYTES)) {
            m.put(OBJECTS + "/" + BYTES, run.ratio(c, OBJECTS, c, BYTES));
        }
        if (run.has(c, OBJECTS) && run.has(c, NULL_RUN)) {
            m.put(OBJECTS + "/" + NULL_RUN, run.ratio(c, OBJECTS, c, NULL_RUN));
        }
        if (run.has(c, OBJECTS) && run.has(c, FLOOR)) {
            m.put(OBJECTS + "/" + FLOOR, run.ratio(c, OBJECTS, c, FLOOR));
        }
        if (run.has(c, RMI) && run.has(c, FLOOR)) {
            m.put(RMI + "/" + FLOOR, run.ratio(c, RMI, c, FLOOR));
        }
        return m;
    }

    static String unit(ObjectsCase c) {
        return c.isList() ? "ns/element" : "ns";
    }

    /** The null call's target against Java RMI: at least this many times faster (issue 15 §4). */
    static final double RMI_AT_LEAST = 100;
    /** The forward's target: at most this many times the objects null call (issue 15 §4). */
    static final double FORWARD_AT_MOST = 1.5;

    /** The targets of issue 15 §4, ratios of figures measured in the same rounds. */
    static List<Target> targets(ObjectsBench.Run run) {
        ObjectsCase nul = ObjectsCase.SHM_CALL_NULL;
        return List.of(
                Target.atMost("shm/call-null p50 objects/rpc", run.ratio(nul, OBJECTS, nul, RPC), 1.25, "<= 1.25x"),
                Target.atLeast("shm/call-null p50 rmi/objects", run.ratio(nul, RMI, nul, OBJECTS), RMI_AT_LEAST, ">= 100x"),
                Target.atMost("shm/forward-ref p50 objects / objects null call",
                        run.ratio(ObjectsCase.FORWARD_REF, OBJECTS, nul, OBJECTS), FORWARD_AT_MOST, "<= 1.50x"),
                Target.atMost("list/scattered/serial/b2/w0 per element objects/null-run",
                        run.ratio(ObjectsCase.HOP, OBJECTS, ObjectsCase.HOP, NULL_RUN), 1.5, "<= 1.50x"),
                Target.atLeast("list/scattered/serial/b2/w0 per element rmi/objects",
                        run.ratio(ObjectsCase.HOP, RMI, ObjectsCase.HOP, OBJECTS), 50, ">= 50x"));
    }

    // ---- human form -----------------------------------------------------------------------

    static void printTables(ObjectsBench.Run run, PrintStream out) {
        out.println("Verbatim objects benchmark: issue 15 §4, paper 003 §5's distributed list, with plain RPC and Java RMI");
        out.printf(Locale.ROOT, "%s; %s run; %d bases, each a process of its own hosting all three contenders,"
                + " taking turns; %d rounds%n%n", Host.jvm(), run.mode(), ObjectsCase.MAX_BASES, run.rounds());
        List<FloorCase> calls = new ArrayList<>();
        for (ObjectsCase c : List.of(ObjectsCase.SHM_CALL_NULL, ObjectsCase.TCP_CALL_NULL, ObjectsCase.FORWARD_REF)) {
            calls.add(new FloorCase(c.key(), c.key(), "ns", results(run, c), Map.of()));
        }
        FloorTable.print(out, "Calls from base 0 (p50 per call, ns; rmi: loopback TCP)", "case", calls);
        FloorTable.print(out, "The hop: the list walked serially over 2 bases with no work (ns per element)", "case",
                List.of(new FloorCase(ObjectsCase.HOP.key(), "scattered b2 w0", "ns/element", results(run, ObjectsCase.HOP),
                        Map.of())));
        FloorTable.print(out, String.format(Locale.ROOT, "The distributed list: %,d elements, work %,d ns each;"
                + " p50 walk / n (ns per element) against the number of bases", run.elements(), run.work()),
                "layout/walk", listRows(run));
        Target.print(out, targets(run), 66, ReportText::ratio, Target.Missing.CONTENDER);
        ObjectsCase nul = ObjectsCase.SHM_CALL_NULL;
        double overP50 = run.ratio(ObjectsCase.HOP, OBJECTS, nul, OBJECTS);
        if (!Double.isNaN(overP50)) {
            out.printf(Locale.ROOT, "  (the hop per element over the shm/call-null objects p50: %s, over its mean per call: %s. A"
                    + " walk's time per element counts the tails of every call in it, a call's p50 leaves its own out: the"
                    + " target sets the walk against null calls in a row, timed as the walk is.)%n",
                    ReportText.ratio(overP50), ReportText.ratio(run.hopOverNullMean()));
        }
        double overFloor = run.ratio(nul, OBJECTS, nul, FLOOR);
        if (!Double.isNaN(overFloor)) {
            double rmiOverFloor = run.ratio(nul, RMI, nul, FLOOR);
            out.printf(Locale.ROOT, "  (the shm floor, an FFM spin ping-pong of 8 bytes between the same two processes: %,.0f ns p50;"
                    + " the objects null call is %s it, RMI's %s: \">= 100x RMI\" asks the call to be within %s the floor"
                    + " in this run.)%n", run.figure(nul, FLOOR), ReportText.ratio(overFloor), ReportText.ratio(rmiOverFloor),
                    ReportText.ratio(rmiOverFloor / RMI_AT_LEAST));
        }
        double rmiOverRpc = run.ratio(nul, RMI, nul, RPC);
        if (!Double.isNaN(rmiOverRpc)) {
            out.printf(Locale.ROOT, "  (RMI's null call over the plain RPC null call beside it, the call an objects call stands on:"
                    + " %s; the objects layer cannot beat it: \">= 100x RMI\" is %s the RPC call's reach in this run.)%n",
                    ReportText.ratio(rmiOverRpc), rmiOverRpc >= RMI_AT_LEAST ? "within" : "out of");
        }
        double bytes = run.ratio(ObjectsCase.FORWARD_REF, BYTES, nul, OBJECTS);
        if (!Double.isNaN(bytes)) {
            out.printf(Locale.ROOT, "  (the forward's call carrying the reference's bytes as a plain byte[] (bytes) over the"
                    + " shm/call-null objects p50: %s, the call and its argument alone; the forward over it: %s, the"
                    + " objects layer's work on the reference; \"<= 1.50x the null call\" leaves it %s in this run.)%n",
                    ReportText.ratio(bytes), ReportText.ratio(run.ratio(ObjectsCase.FORWARD_REF, OBJECTS, ObjectsCase.FORWARD_REF,
                    BYTES)), ReportText.ratio(FORWARD_AT_MOST / bytes));
        }
        out.println();
        out.printf(Locale.ROOT, "Host load average (1 min) %.2f before, %.2f after.%n", run.loadBefore(), run.loadAfter());
        out.println(run.jit().line("the bases'"));
        out.println();
        ReportText.closing(out, failures(run), notes(run), run.seconds());
    }

    /** A row per layout and walk (objects), and per layout for rmi's serial walk; columns b1 to b4. */
    static List<FloorCase> listRows(ObjectsBench.Run run) {
        List<FloorCase> rows = new ArrayList<>();
        for (Layout l : Layout.values()) {
            for (Traversal t : Traversal.values()) {
                for (String contender : t == Traversal.SERIAL ? List.of(OBJECTS, RMI) : List.of(OBJECTS)) {
                    Map<String, Double> byBases = new LinkedHashMap<>();
                    for (int b = 1; b <= ObjectsCase.MAX_BASES; b++) {
                        ObjectsCase c = ObjectsCase.list(l, t, b);
                        if (run.has(c, contender)) {
                            byBases.put("b" + b, run.figure(c, contender));
                        }
                    }
                    String label = l.key() + "/" + t.key() + (contender.equals(RMI) ? " rmi" : "");
                    rows.add(new FloorCase(label, label, "ns/element", byBases, Map.of()));
                }
            }
        }
        return rows;
    }

    /** The failures, one line per reason: the cases that failed for it, then the reason. */
    static List<String> failures(ObjectsBench.Run run) {
        Map<String, List<String>> byReason = new LinkedHashMap<>();
        run.failures().forEach((k, v) -> byReason.computeIfAbsent(v, r -> new ArrayList<>()).add(k));
        List<String> lines = new ArrayList<>();
        byReason.forEach((reason, cases) -> lines.add(String.join(", ", cases) + ": " + reason));
        return lines;
    }

    static List<String> notes(ObjectsBench.Run run) {
        return List.of(
                "Processes: four, each a base of its own (dev.verbatim.objects.Base over shm and another over tcp),"
                        + " a plain dev.verbatim.rpc.Node (shm and tcp) and a Java RMI factory; base 0 makes every call."
                        + " Contenders take turns case by case, round after round (order rotating), after the processes"
                        + " fell quiet; a turn during which their JIT compilers ran (>= 10 ms of CPU) is run again, as"
                        + " still warming up (on 2 CPUs a compilation takes a CPU from the two spinning ends of a call);"
                        + " a figure is the median of a contender's turns' p50s, a ratio (and each target)"
                        + " the median over rounds of the ratio within a round. Every result is checked.",
                "call-null: a method that does nothing on base 1's object: rpc = a generated RPC proxy of a Node"
                        + " export, objects = the proxy of a shared object (found by name), rmi = a UnicastRemoteObject"
                        + " on 127.0.0.1 (the same in both tables). Verbatim sides spin 1 ms waiting, then park. floor"
                        + " (shm only) = the transport suite's FFM spin ping-pong of 8 bytes between processes 0 and 1,"
                        + " its pong started for each turn: no call over shm beats it.",
                "forward-ref: base 0 passes its reference to base 1's probe to base 2's probe, which stores it"
                        + " (objects: the weight split, nothing sent to base 1; rmi: a stub serialized); bytes = the same"
                        + " call through the same proxy carrying a byte[] as long as the reference (the call and its"
                        + " argument without the objects layer's work on the reference).",
                "the hop: null-run = as many null calls on base 1's object (objects, shm) as the walk has remote links,"
                        + " one after the other, timed as one and divided by the list's length as the walk is: the"
                        + " hop's like for like (a walk's time counts every call's tail; a call's p50 does not).",
                String.format(Locale.ROOT, "list: %,d elements built from the tail by remote construction on their"
                        + " bases (head on base 0); scattered = element i on base i mod b (every link remote), clumped ="
                        + " clumps of 4 dealt round the bases (one link in four remote), compact = b even runs. serial:"
                        + " each element works, then calls the next; threaded: each element starts a thread (virtual)"
                        + " for its work, calls the next, then joins; hybrid: a thread only when the next element is"
                        + " remote (Base.isRemote), else the work inline (paper 003 §5). The walk follows the links, so"
                        + " a call nests per remote link. Work: a spin of %,d ns (the objects null call over shm in this"
                        + " run: its fastest turn's p50, at most 50 us; the paper's work was one remote call's time). rmi: the serial walk over RMI"
                        + " elements, the factory linking elements of one process directly.", run.elements(), run.work()),
                "This host has 2 CPUs shared with other work: threaded and hybrid walks have little to run in"
                        + " parallel on, and every figure moves with the load; judge targets on full runs on a quiet host.");
    }

    // ---- JSON -----------------------------------------------------------------------------

    static void printJson(ObjectsBench.Run run, PrintStream out) {
        for (ObjectsCase c : ObjectsCase.all()) {
            out.println(Json.line("objects").string("case", c.key()).string("unit", unit(c))
                    .numbers("results", results(run, c), Json.decimals(3))
                    .numbers("ratios", ratios(run, c), Json.decimals(3))
                    .raw("work", Long.toString(c.isList() && !c.noWork() ? run.work() : 0))
                    .raw("elements", Integer.toString(c.isList() ? run.elements() : 0))
                    .string("mode", run.mode()));
        }
        targets(run).forEach(t -> out.println(t.jsonLine("objects")));
        run.failures().forEach((k, v) -> out.println(Json.line("objects").string("failed", k).string("error", v)));
    }
}
