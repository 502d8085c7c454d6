package dev.verbatim.bench.file;

import dev.verbatim.bench.fixtures.ListNode;
import dev.verbatim.bench.fixtures.ListNodeView;
import dev.verbatim.bench.harness.BatchHarness;
import dev.verbatim.bench.harness.SuiteArgs;
import dev.verbatim.bench.harness.Workload;
import dev.verbatim.wire.ArrayView;
import dev.verbatim.wire.file.WireFile;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The file suite: Jaguar's Figure 9 (scan a file of random ints for the maximum) with the C {@code mmap}
 * floor side by side, on 1 MiB and 64 MiB; then stored graphs: an {@code int[]} of 1 MiB and 64 MiB (open,
 * validate, read the first element) and a million-element linked list (open + validate, then a walk through
 * views) against Java serialization reading the same list from a file.
 *
 * <p>Order of a run: the files are written to a temporary directory (so they are in the page cache: every
 * figure is a warm-cache figure), the C program is compiled, every variant is run once and must find the
 * same maximum (or the same list sum), else the run stops with exit code 1; then each workload is measured
 * with {@link BatchHarness} (the C program times its own repetitions); last the tables or JSON lines and the
 * targets are printed ({@link FileReport}). The temporary directory is deleted at the end.
 *
 * <p>The unbuffered {@code DataInputStream} makes one {@code read} system call per int: on 64 MiB that is
 * 16 million calls per scan, so it is timed on a prefix of the file and scaled (reported as extrapolated).
 */
public final class FileBench {
    public static final List<String> SCAN_VARIANTS = List.of("dis", "dis-buffered", "mapped-bytebuffer", "verbatim", "verbatim-load",
            "c-mmap");
    static final int SMALL = 1 << 20;
    static final int LARGE = 64 << 20;
    static final int LIST = 1_000_000;
    /** The small file of {@code open-4KiB}: a stored int[] whose graph file is at most 4 KiB (one page). */
    static final int SMALL_FILE_INTS = 990;

    private FileBench() {}

    /**
     * Settings for the workloads that take a tenth of a second or more per operation (the
     * {@code DataInputStream} scans and Java serialization's read of the list): a batch is one operation,
     * there are fewer of them, and the warm-up is short (these loops are simple, or dominated by system calls).
     */
    static BatchHarness.Settings slow(boolean quick) {
        long ms = 1_000_000L;
        return quick ? new BatchHarness.Settings("quick", 0, 150 * ms, 10 * ms, 3, 2, 0.10, 0)
                : new BatchHarness.Settings("full", 300 * ms, 1500 * ms, 40 * ms, 7, 3, 0.10, 1);
    }

    /** One figure: a median in the case's unit, or missing; spread and CPU share as {@link BatchHarness.Result} has them. */
    record Figure(double value, double spread, double cpuShare, boolean stable, String remark) {
        static Figure of(BatchHarness.Result r, double nanosPerUnit, String remark) {
            return new Figure(r.median() / nanosPerUnit, r.relativeSpread(), r.cpuShare(), r.stable(), remark);
        }

        static Figure missing(String why) {
            return new Figure(Double.NaN, Double.NaN, Double.NaN, true, why);
        }

        boolean isMissing() { return Double.isNaN(value); }
    }

    /** One case: its name, unit and figures by variant, in column order. */
    record Case(String name, String unit, Map<String, Figure> results) {}

    /** The figures of one run. */
    record Run(BatchHarness.Settings settings, List<Case> cases, String compiler, double seconds) {
        Case find(String name) {
            return cases.stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow();
        }
    }

    /** Runs the suite and prints it; returns the process exit code. */
    public static int run(boolean quick, boolean json, PrintStream out, PrintStream err) throws Exception {
        long start = System.nanoTime();
        BatchHarness harness = new BatchHarness(quick ? BatchHarness.Settings.quick() : BatchHarness.Settings.full());
        BatchHarness slow = new BatchHarness(slow(quick));
        Path dir = Files.createTempDirectory("verbatim-bench-file-");
        try {
            err.println("verbatim bench file: writing the files to " + dir + " ...");
            ScanFiles small = ScanFiles.create(dir, "scan-1MiB", SMALL, 9);
            ScanFiles large = ScanFiles.create(dir, "scan-64MiB", LARGE, 64);
            ScanFiles page = ScanFiles.create(dir, "open-4KiB", SMALL_FILE_INTS * Integer.BYTES, 4);
            if (Files.size(page.graph()) > 4096) throw new IllegalStateException("the open-4KiB file has " + Files.size(page.graph()) + " bytes");
            err.printf(Locale.ROOT, "  scan files %.1f s%n", (System.nanoTime() - start) / 1e9);
            StoredList list = StoredList.create(dir, LIST);
            err.printf(Locale.ROOT, "  list files %.1f s%n", (System.nanoTime() - start) / 1e9);
            CMmapScan c = CMmapScan.compile(dir, err);
            int prefix = (quick ? 1 : 4) << 20; // bytes of the 64 MiB file the unbuffered DataInputStream reads

            err.printf(Locale.ROOT, "verbatim bench file: %.1f s; checking that every variant finds the same answers ...%n", (System.nanoTime() - start) / 1e9);
            String problem = verify(small, large, prefix / 4, list, c);
            if (problem == null) problem = verifyFirst(page, c);
            if (problem != null) {
                err.println("verbatim bench file: CHECK FAILED: " + problem);
                return 1;
            }

            err.printf(Locale.ROOT, "verbatim bench file: %.1f s; measuring (%s run) ...%n", (System.nanoTime() - start) / 1e9,
                    harness.settings().name());
            List<Case> cases = new ArrayList<>();
            cases.add(scan(harness, slow, "scan-1MiB", small, small.ints(), c, quick ? 100 : 300, err));
            cases.add(scan(harness, slow, "scan-64MiB", large, prefix / 4, c, quick ? 10 : 30, err));
            cases.add(open(harness, "array-1MiB/open", small.graph()));
            cases.add(open(harness, "array-64MiB/open", large.graph()));
            cases.add(openSmall(harness, page, c, quick ? 2_000 : 20_000));
            cases.addAll(list(harness, slow, list, err));
            Run run = new Run(harness.settings(), cases, c == null ? null : c.compiler(), (System.nanoTime() - start) / 1e9);
            return new SuiteArgs(quick, json, null).finish("file", o -> FileReport.printJson(run, o),
                    o -> FileReport.printTables(run, o), null, false, out, err);
        } finally {
            deleteTree(dir);
        }
    }

    /** Every variant once: the same maximum, the same first element, the same list sum; null if all agree. */
    private static String verify(ScanFiles small, ScanFiles large, int prefixInts, StoredList list, CMmapScan c) throws Exception {
        for (ScanFiles f : List.of(small, large)) {
            Map<String, Integer> found = new LinkedHashMap<>();
            if (f == small) found.put("dis", Scans.dis(f.raw(), f.ints()));
            found.put("dis-buffered", Scans.disBuffered(f.raw(), f.ints()));
            found.put("mapped-bytebuffer", Scans.mappedByteBuffer(f.raw()));
            found.put("verbatim", Scans.verbatim(f.graph()));
            found.put("verbatim-load", Scans.verbatimLoad(f.graph()));
            if (c != null) found.put("c-mmap", c.run(f.raw(), 1).max());
            for (Map.Entry<String, Integer> e : found.entrySet()) {
                if (e.getValue() != f.max()) return e.getKey() + " found " + e.getValue() + " in " + f.raw().getFileName() + ", the maximum is " + f.max();
            }
        }
        int prefixMax = Integer.MIN_VALUE;
        try (WireFile w = WireFile.open(large.graph())) {
            ArrayView.OfInt a = w.view(ArrayView.OfInt.class);
            for (int i = 0; i < prefixInts; i++) prefixMax = Math.max(prefixMax, a.get(i));
            if (Scans.openFirst(large.graph()) != a.get(0)) return "open-first read the wrong element";
        }
        if (Scans.dis(large.raw(), prefixInts) != prefixMax) return "dis found the wrong maximum of the 64 MiB file's prefix";
        try (WireFile w = WireFile.open(list.verbatim)) {
            if (StoredList.walk(w.view(ListNodeView.class)) != list.sum) return "the Verbatim list walk found the wrong sum";
            if (w.message().objectCount() != list.n) return "the Verbatim list has " + w.message().objectCount() + " objects";
        }
        long jos = StoredList.onDeepStack(() -> StoredList.walk(list.readJos()));
        if (jos != list.sum) return "the Java serialization list walk found the wrong sum";
        return null;
    }

    /** The small file read three ways (load, open, C) must give the same first element / first word. */
    private static String verifyFirst(ScanFiles page, CMmapScan c) throws Exception {
        int first = Scans.loadFirst(page.graph());
        if (Scans.openFirst(page.graph()) != first) return "open and load read different first elements of " + page.graph();
        if (c != null) {
            int word;
            try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(page.graph())) {
                java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(4).order(java.nio.ByteOrder.LITTLE_ENDIAN);
                ch.read(b, 0);
                word = b.getInt(0);
            }
            if (c.run(page.graph(), 1, true).max() != word) return "the C open-4KiB read the wrong first word";
        }
        return null;
    }

    /**
     * {@code open-4KiB} (issue 18): open a 4 KiB graph file, validate it, read one element, close. {@code verbatim}:
     * {@link WireFile#open}, which maps it and so pays the JDK's revocation of a shared arena at close;
     * {@code verbatim-load}: {@link WireFile#load}, the way to open a small file (one read, nothing to revoke);
     * {@code c-mmap}: open, mmap, read a word, munmap, close.
     */
    private static Case openSmall(BatchHarness h, ScanFiles page, CMmapScan c, int cReps) throws Exception {
        Map<String, Figure> m = new LinkedHashMap<>();
        m.put("verbatim", Figure.of(h.measure("open-4KiB/verbatim", (n, bh) -> {
            for (int i = 0; i < n; i++) bh.consume(Scans.openFirst(page.graph()));
        }), 1e3, null));
        m.put("verbatim-load", Figure.of(h.measure("open-4KiB/verbatim-load", (n, bh) -> {
            for (int i = 0; i < n; i++) bh.consume(Scans.loadFirst(page.graph()));
        }), 1e3, null));
        if (c == null) {
            m.put("c-mmap", Figure.missing("no C compiler (cc, gcc, clang) on this machine"));
        } else {
            CMmapScan.Result r = c.run(page.graph(), cReps, true);
            m.put("c-mmap", new Figure(r.median() / 1e3, r.relativeSpread(), Double.NaN, true, null));
        }
        return new Case("open-4KiB", "µs", m);
    }

    private static Case scan(BatchHarness h, BatchHarness slow, String name, ScanFiles f, int disInts, CMmapScan c, int cReps, PrintStream err)
            throws Exception {
        err.print("  " + name + ":");
        Map<String, Figure> m = new LinkedHashMap<>();
        double scale = f.ints() / (double) disInts;
        m.put("dis", Figure.of(measure(slow, name + "/dis", err, (n, bh) -> {
            for (int i = 0; i < n; i++) bh.consume(Scans.dis(f.raw(), disInts));
        }), 1e6 / scale, disInts == f.ints() ? null : String.format(Locale.ROOT,
                "extrapolated from the first %d MiB (x%.0f)", disInts * 4L >> 20, scale)));
        m.put("dis-buffered", Figure.of(measure(f.ints() > SMALL / 4 ? slow : h, name + "/dis-buffered", err, (n, bh) -> {
            for (int i = 0; i < n; i++) bh.consume(Scans.disBuffered(f.raw(), f.ints()));
        }), 1e6, null));
        m.put("mapped-bytebuffer", Figure.of(measure(h, name + "/mapped-bytebuffer", err, (n, bh) -> {
            for (int i = 0; i < n; i++) bh.consume(Scans.mappedByteBuffer(f.raw()));
        }), 1e6, null));
        m.put("verbatim", Figure.of(measure(h, name + "/verbatim", err, (n, bh) -> {
            for (int i = 0; i < n; i++) bh.consume(Scans.verbatim(f.graph()));
        }), 1e6, null));
        m.put("verbatim-load", Figure.of(measure(h, name + "/verbatim-load", err, (n, bh) -> {
            for (int i = 0; i < n; i++) bh.consume(Scans.verbatimLoad(f.graph()));
        }), 1e6, null));
        if (c == null) {
            m.put("c-mmap", Figure.missing("no C compiler (cc, gcc, clang) on this machine"));
        } else {
            err.print(" c-mmap");
            CMmapScan.Result r = c.run(f.raw(), cReps);
            m.put("c-mmap", new Figure(r.median() / 1e6, r.relativeSpread(), Double.NaN, true, null));
        }
        err.println();
        return new Case(name, "ms", m);
    }

    private static Case open(BatchHarness h, String name, Path graph) throws Exception {
        BatchHarness.Result r = h.measure(name + "/verbatim", (n, bh) -> {
            for (int i = 0; i < n; i++) bh.consume(Scans.openFirst(graph));
        });
        return new Case(name, "µs", Map.of("verbatim", Figure.of(r, 1e3, null)));
    }

    private static List<Case> list(BatchHarness h, BatchHarness slow, StoredList list, PrintStream err) throws Exception {
        err.print("  list-1M:");
        Map<String, Figure> open = new LinkedHashMap<>();
        Map<String, Figure> walk = new LinkedHashMap<>();
        open.put("verbatim", Figure.of(measure(h, "list-1M/open/verbatim", err, (n, bh) -> {
            for (int i = 0; i < n; i++) {
                try (WireFile f = WireFile.open(list.verbatim)) {
                    bh.consume(f.message().objectCount());
                }
            }
        }), list.n, null));
        try (WireFile f = WireFile.open(list.verbatim)) {
            walk.put("verbatim", Figure.of(measure(h, "list-1M/walk/verbatim", err, (n, bh) -> {
                for (int i = 0; i < n; i++) bh.consume(StoredList.walk(f.view(ListNodeView.class)));
            }), list.n, null));
        }
        err.print(" jos (on a " + (StoredList.DEEP_STACK_BYTES >> 30) + " GiB stack)");
        err.flush();
        BatchHarness.Result josOpen = StoredList.onDeepStack(() -> slow.measure("list-1M/open/jos", (n, bh) -> {
            for (int i = 0; i < n; i++) bh.consume(list.readJos());
        }));
        open.put("jos", Figure.of(josOpen, list.n, null));
        ListNode head = StoredList.onDeepStack(list::readJos);
        walk.put("jos", Figure.of(measure(h, "list-1M/walk/jos", err, (n, bh) -> {
            for (int i = 0; i < n; i++) bh.consume(StoredList.walk(head));
        }), list.n, null));
        err.println();
        return List.of(new Case("list-1M/open", "ns/object", open), new Case("list-1M/walk", "ns/object", walk));
    }

    private static BatchHarness.Result measure(BatchHarness h, String name, PrintStream err, Workload w) throws Exception {
        err.print(" " + name.substring(name.lastIndexOf('/') + 1));
        err.flush();
        return h.measure(name, w);
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }

    /** For running the suite without the CLI: {@code [--quick] [--json]}. */
    public static void main(String[] args) throws Exception {
        SuiteArgs a = SuiteArgs.parse(args);
        System.exit(run(a.quick(), a.json(), System.out, System.err));
    }
}
