package dev.verbatim.bench.objects;

import dev.verbatim.bench.harness.CallLoop;
import dev.verbatim.bench.harness.ChildMain;
import dev.verbatim.bench.harness.LatencyHistogram;
import dev.verbatim.bench.harness.Session;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The main class of the objects suite's processes: {@code ObjectsPeer base base-K key=value...}, hosted by
 * {@link ChildMain#host} (the {@code VB} line protocol, STOP, deadline). Every process sets up a
 * {@link BaseProcess} and says {@code READY} with what it published; processes 1 to 3 then wait for STOP.
 * Process 0 ({@code index=0}, started last with the others' properties, suffixed by their index) makes
 * every call, one turn per command:
 * <pre>
 *   TURN contender case work warmMs warmCalls maxWarmMs measureMs
 *        VB TURN calls=N cpu=C warm=W warmMs=T hist=H      (H a {@link LatencyHistogram#encode()})
 *        VB FAILED reason...                              (that contender's calls of that case failed)
 *   STOP closes; DONE
 * </pre>
 * A contender's call of a case is prepared at its first turn ({@link BaseZeroCalls}: lookups, the lists
 * built); every result is checked ({@link ObjectsCase#expected}).
 */
public final class ObjectsPeer {
    private ObjectsPeer() {}

    /** Session property: this process's index, 0 to 3. */
    static final String INDEX = "index";
    /** Session property: elements of every list. */
    static final String ELEMENTS = "elements";

    public static void main(String[] args) {
        ChildMain.host(args, ObjectsPeer::run);
    }

    static void run(String role, String id, Session s) throws Exception {
        if (!role.equals("base")) {
            throw new IllegalArgumentException("unknown role " + role);
        }
        int index = Integer.parseInt(s.require(INDEX));
        try (BaseProcess p = new BaseProcess(s, index)) {
            p.publish(s);
            ChildMain.say(ChildMain.ready(s));
            if (index != 0) {
                ChildMain.awaitStop();
                return;
            }
            int n = Integer.parseInt(s.require(ELEMENTS));
            BaseZeroCalls calls = new BaseZeroCalls(p, s, n);
            Map<String, CallLoop.Call> prepared = new HashMap<>();
            LatencyHistogram h = new LatencyHistogram();
            long[] seq = {0};
            for (String cmd; (cmd = ChildMain.nextCommand()) != null; ) {
                String[] f = cmd.trim().split(" ");
                if (f.length != 8 || !f[0].equals("TURN")) {
                    throw new IllegalArgumentException("not a TURN command: " + cmd);
                }
                ObjectsCase c = ObjectsCase.of(f[2]);
                long work = Long.parseLong(f[3]);
                CallLoop loop = CallLoop.parse(f, 4);
                try {
                    CallLoop.Call call = prepared.get(f[1] + " " + c.key() + " " + work);
                    if (call == null) {
                        call = calls.call(f[1], c, work);
                        prepared.put(f[1] + " " + c.key() + " " + work, call);
                    }
                    long expected = c.expected(f[1], n);
                    CallLoop.Turn t = loop.run(call, (sq, r) -> {
                        if (r != expected) {
                            throw new IllegalStateException(c.key() + " call " + sq + " returned " + r + ", expected " + expected);
                        }
                    }, seq, h);
                    ChildMain.say(String.format(Locale.ROOT, "TURN calls=%d cpu=%.3f warm=%d warmMs=%d hist=%s",
                            h.count(), t.cpu(), t.warmCalls(), t.warmNanos() / 1_000_000, h.encode()));
                } catch (Exception | StackOverflowError e) {
                    e.printStackTrace();
                    ChildMain.say("FAILED " + String.valueOf(e).replace('\n', ' '));
                }
            }
        }
    }
}
