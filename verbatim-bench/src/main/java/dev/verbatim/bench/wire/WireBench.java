package dev.verbatim.bench.wire;

import dev.verbatim.bench.Harness;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The wire suite: J-RPC Tables 3-4 (marshal and unmarshal cost and message size of byte arrays
 * and linked lists) and Jaguar's Figure 8 list, Verbatim side by side with Java serialization,
 * Kryo and Fory in one run.
 *
 * <p>Order of a run: every codec's round trip is verified on every case (and on a shared, cyclic
 * graph) and the run stops with exit code 1 at the first mismatch; every workload is then run
 * briefly once, so that no library is timed on a JIT profile that a later case would invalidate,
 * and the run waits for the JIT's compile queue to drain; then each case is measured library by
 * library with {@link Harness}; last the tables, the targets and the notes are printed
 * ({@link WireReport}).
 *
 * <p>Each case gets fresh codec instances. A codec that once marshalled a large graph keeps a
 * large reference table that it clears on every later message: a Kryo instance that wrote one
 * 500-element list then pays about 2 us per 10-byte array for that clear, and Java serialization's
 * handle table behaves alike. Fresh instances per case measure each library at its best for that
 * message, which is the conservative comparison for Verbatim. (The JIT's profiles are still shared
 * by all cases: that is what the touching pass equalizes.)
 */
public final class WireBench {
    /** Columns, in table order. */
    public static final List<String> LIBRARIES = List.of("verbatim", "verbatim-materialize", "jos", "kryo", "fory");
    /** The peers, compared against {@code verbatim}. */
    public static final List<String> PEERS = List.of("jos", "kryo", "fory");

    private WireBench() {}

    /** The codecs of one run, in {@link #LIBRARIES} order. */
    public static Map<String, Codec> codecs() {
        Map<String, Codec> m = new LinkedHashMap<>();
        for (Codec c : List.of(new VerbatimCodec(), new VerbatimMaterializeCodec(),
                new JosCodec(), new KryoCodec(), new ForyCodec())) {
            m.put(c.name(), c);
        }
        return m;
    }

    /** Figures of one run: per case and library, the marshal and unmarshal results and the size. */
    public record Run(Harness.Settings settings, List<WireCase> cases,
                      Map<String, Map<String, Harness.Result>> marshal,
                      Map<String, Map<String, Harness.Result>> unmarshal,
                      Map<String, Map<String, Long>> size,
                      double seconds) {}

    /** Runs the suite and prints it; returns the process exit code. */
    public static int run(boolean quick, boolean json, PrintStream out, PrintStream err) throws Exception {
        long start = System.nanoTime();
        Harness harness = new Harness(quick ? Harness.Settings.quick() : Harness.Settings.full());
        List<WireCase> cases = WireCase.all();

        err.println("verbatim bench wire: verifying round trips ...");
        try {
            verify(cases);
        } catch (VerificationError e) {
            err.println("verbatim bench wire: ROUND TRIP FAILED: " + e.getMessage());
            return 1;
        }

        err.println("verbatim bench wire: touching every workload once (" + harness.settings().name() + " run) ...");
        long touchNanos = quick ? 15_000_000L : 100_000_000L;
        Map<String, Codec> touching = codecs();
        for (WireCase c : cases) {
            for (Codec codec : touching.values()) {
                codec.receive(c.root());
                if (!codec.name().equals("verbatim-materialize")) { // its marshal is verbatim's
                    harness.touch((n, bh) -> codec.marshalBatch(c.root(), n, bh), touchNanos);
                }
                harness.touch((n, bh) -> codec.unmarshalBatch(c.kind(), n, bh), touchNanos);
            }
        }

        long waited = System.nanoTime();
        boolean quiet = harness.awaitJitQuiet(200_000_000L, quick ? 3_000_000_000L : 20_000_000_000L);
        err.printf(Locale.ROOT, "verbatim bench wire: %s after %.1f s; measuring ...%n",
                quiet ? "JIT quiet" : "JIT still compiling", (System.nanoTime() - waited) / 1e9);

        Map<String, Map<String, Harness.Result>> marshal = new LinkedHashMap<>();
        Map<String, Map<String, Harness.Result>> unmarshal = new LinkedHashMap<>();
        Map<String, Map<String, Long>> sizes = new LinkedHashMap<>();
        for (WireCase c : cases) {
            err.print("  " + c.name() + ":");
            Map<String, Harness.Result> m = new LinkedHashMap<>();
            Map<String, Harness.Result> u = new LinkedHashMap<>();
            Map<String, Long> s = new LinkedHashMap<>();
            for (Codec codec : codecs().values()) { // fresh per case: see the class comment
                err.print(" " + codec.name());
                err.flush();
                long size = codec.receive(c.root());
                if (!codec.name().equals("verbatim-materialize")) {
                    s.put(codec.name(), size);
                    m.put(codec.name(), harness.measure(c.name() + "/marshal/" + codec.name(),
                            (n, bh) -> codec.marshalBatch(c.root(), n, bh)));
                }
                u.put(codec.name(), harness.measure(c.name() + "/unmarshal/" + codec.name(),
                        (n, bh) -> codec.unmarshalBatch(c.kind(), n, bh)));
            }
            err.println();
            marshal.put(c.name(), m);
            unmarshal.put(c.name(), u);
            sizes.put(c.name(), s);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        Run run = new Run(harness.settings(), cases, marshal, unmarshal, sizes, seconds);
        if (json) {
            WireReport.printJson(run, out);
        } else {
            WireReport.printTables(run, out);
        }
        return 0;
    }

    /** A failed start-up check. */
    static final class VerificationError extends Exception {
        private static final long serialVersionUID = 1L;

        VerificationError(String message) {
            super(message);
        }
    }

    /**
     * Checks every codec on every case: the message decodes to the original (read the way the
     * timed unmarshal reads it), repeatedly through the reused streams, the timed unmarshal reads
     * the original's fields, marshal is deterministic in size; and sharing and cycles survive.
     */
    static void verify(List<WireCase> cases) throws Exception {
        Map<String, Codec> codecs = codecs(); // one set for all cases: reuse across shapes is checked too
        for (WireCase c : cases) {
            long expected = Graphs.touch(c.root());
            for (Codec codec : codecs.values()) {
                String where = codec.name() + " on " + c.name();
                long size = codec.receive(c.root());
                for (int round = 0; round < 3; round++) {
                    check(where, codec.verifyReceived(c.root()));
                    check(where, Graphs.diff(c.root(), codec.decode()));
                    long got = codec.unmarshal(c.kind());
                    if (got != expected) {
                        throw new VerificationError(where + ": unmarshal read fields summing to " + got
                                + ", the original's sum to " + expected);
                    }
                    long again = codec.marshal(c.root());
                    if (again != size) {
                        throw new VerificationError(where + ": marshal wrote " + again + " bytes, earlier " + size);
                    }
                }
            }
        }
        for (Codec codec : codecs.values()) {
            codec.receive(Graphs.sharedRing());
            Object back = codec.decode();
            if (!(back instanceof Pair p) || !Graphs.isSharedRing(p)) {
                throw new VerificationError(codec.name() + " did not preserve sharing and cycles (a pair of"
                        + " references to one node of a three-node ring)");
            }
        }
    }

    private static void check(String where, String diff) throws VerificationError {
        if (diff != null) {
            throw new VerificationError(where + ": " + diff);
        }
    }

    /** For running the suite without the CLI: {@code [--quick] [--json]}. */
    public static void main(String[] args) throws Exception {
        List<String> a = new ArrayList<>(List.of(args));
        System.exit(run(a.remove("--quick"), a.remove("--json"), System.out, System.err));
    }
}
