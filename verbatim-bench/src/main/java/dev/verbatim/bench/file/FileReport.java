package dev.verbatim.bench.file;

import dev.verbatim.bench.harness.BatchHarness;
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
import java.util.function.DoubleFunction;

/**
 * Prints a {@link FileBench.Run}: Jaguar's Figure 9 with the C floor and the stored-graph figures, or one
 * JSON object per line; then the targets, evaluated on this run's figures, and notes. Ratios are
 * variant / verbatim, as in the wire suite: above 1 means Verbatim is faster.
 *
 * <p>JSON lines: one per case, {@code {"suite":"file","case":"scan-1MiB","unit":"ms","results":{variant:
 * median},"ratios":{variant: variant/verbatim},"spread":{...},"cpu":{...},"unstable":[...],"remarks":{...},
 * "mode":"quick"}}; a missing figure (no C compiler) is the string {@code "missing"}. Then one line per
 * target: {@code {"suite":"file","target":...,"measured":...,"need":...,"pass":...}} ({@code pass} null when
 * a figure is missing).
 */
final class FileReport {
    private FileReport() {}

    static List<Target> targets(FileBench.Run run) {
        List<Target> t = new ArrayList<>();
        // each size read the way the docs recommend for it: small files loaded, large ones mapped
        t.add(toC(run, "scan-1MiB", "verbatim-load", 1.3));
        t.add(toC(run, "scan-64MiB", "verbatim", 1.3));
        t.add(toC(run, "open-4KiB", "verbatim-load", 2));
        double big = run.find("array-64MiB/open").results().get("verbatim").value();
        double oneMiB = run.find("array-1MiB/open").results().get("verbatim").value();
        t.add(Target.atMost("array-64MiB/open / array-1MiB/open (verbatim)", big / oneMiB, 2, "<= 2.00x"));
        Map<String, FileBench.Figure> open = run.find("list-1M/open").results();
        Map<String, FileBench.Figure> walk = run.find("list-1M/walk").results();
        double jos = open.get("jos").value() + walk.get("jos").value();
        double v = open.get("verbatim").value() + walk.get("verbatim").value();
        t.add(Target.atLeast("list-1M (open + walk) jos / verbatim", jos / v, 20, ">= 20.0x"));
        return t;
    }

    private static Target toC(FileBench.Run run, String name, String variant, double need) {
        Map<String, FileBench.Figure> r = run.find(name).results();
        return Target.atMost(name + " " + variant + " / c-mmap", r.get(variant).value() / r.get("c-mmap").value(), need,
                String.format(Locale.ROOT, "<= %.2fx", need));
    }

    // ---- human form -----------------------------------------------------------------------

    static void printTables(FileBench.Run run, PrintStream out) {
        BatchHarness.Settings s = run.settings();
        out.println("Verbatim file benchmark: Jaguar Figure 9 (file scan) with the C mmap floor; stored graphs");
        out.printf(Locale.ROOT, "%s; %s run: median of %d batches of ~%d ms after warm-up (%d-%d ms); C: %s%n", Host.jvm(), s.name(), s.batches(), s.batchNanos() / 1_000_000,
                s.minWarmupNanos() / 1_000_000, s.maxWarmupNanos() / 1_000_000, run.compiler() == null ? "missing" : run.compiler());
        out.println("Every variant found the same maximum (and the same list sum) before timing. Files in the page cache.");
        out.println();
        out.println("Figure 9. Scan a file of random ints for the maximum: open + read + close (ms per scan)");
        out.printf(Locale.ROOT, "  %-18s %10s %10s %10s %10s %10s%n", "variant", "1 MiB", "64 MiB", "MB/s 1MiB", "x c 1MiB", "x c 64MiB");
        FileBench.Case a = run.find("scan-1MiB");
        FileBench.Case b = run.find("scan-64MiB");
        for (String v : FileBench.SCAN_VARIANTS) {
            FileBench.Figure fa = a.results().get(v);
            FileBench.Figure fb = b.results().get(v);
            double ca = a.results().get("c-mmap").value();
            double cb = b.results().get("c-mmap").value();
            out.printf(Locale.ROOT, "  %-18s %10s %10s %10s %10s %10s%n", v, fmt(fa) + mark(fa), fmt(fb) + mark(fb),
                    fa.isMissing() ? "-" : String.format(Locale.ROOT, "%.0f", (FileBench.SMALL / 1e6) / (fa.value() / 1e3)),
                    ReportText.ratio(fa.value() / ca), ReportText.ratio(fb.value() / cb));
        }
        for (FileBench.Case c : List.of(a, b)) {
            c.results().forEach((v, f) -> {
                if (f.remark() != null) out.println("  " + c.name() + " " + v + ": " + f.remark());
            });
        }
        out.println();
        out.println("Stored graphs");
        out.printf(Locale.ROOT, "  %-18s %-10s %10s %10s %8s%n", "case", "unit", "verbatim", "jos", "jos/v");
        for (String name : List.of("array-1MiB/open", "array-64MiB/open", "list-1M/open", "list-1M/walk")) {
            FileBench.Case c = run.find(name);
            FileBench.Figure v = c.results().get("verbatim");
            FileBench.Figure j = c.results().get("jos");
            out.printf(Locale.ROOT, "  %-18s %-10s %10s %10s %8s%n", name, c.unit(), fmt(v) + mark(v),
                    j == null ? "" : fmt(j) + mark(j), j == null ? "" : ReportText.ratio(j.value() / v.value()));
        }
        FileBench.Case small = run.find("open-4KiB");
        out.println();
        out.println("Open a small file: open + validate + read one element + close (µs), a 4 KiB graph file");
        out.printf(Locale.ROOT, "  %-18s %10s %10s%n", "variant", "µs", "x c");
        small.results().forEach((v, f) -> out.printf(Locale.ROOT, "  %-18s %10s %10s%n", v, fmt(f) + mark(f),
                ReportText.ratio(f.value() / small.results().get("c-mmap").value())));
        out.println();
        Target.print(out, targets(run), 48, ReportText::ratio, Target.Missing.FIGURE);
        out.println();
        busyNote(run, out);
        ReportText.closing(out, List.of(), notes(), run.seconds());
    }

    private static void busyNote(FileBench.Run run, PrintStream out) {
        List<String> unstable = new ArrayList<>();
        List<String> busy = new ArrayList<>();
        for (FileBench.Case c : run.cases()) {
            c.results().forEach((v, f) -> {
                if (!f.stable()) unstable.add(c.name() + "/" + v);
                if (f.cpuShare() < BatchHarness.BUSY_SHARE) busy.add(c.name() + "/" + v);
            });
        }
        if (!unstable.isEmpty()) out.println("* warm-up hit its time bound before the batches agreed: " + String.join(", ", unstable));
        if (!busy.isEmpty()) {
            out.printf(Locale.ROOT, "! the measuring thread had less than %.0f%% of a CPU (busy machine, GC, or waiting on I/O): %s%n",
                    BatchHarness.BUSY_SHARE * 100, String.join(", ", busy));
        }
        if (!unstable.isEmpty() || !busy.isEmpty()) out.println();
    }

    static List<String> notes() {
        return List.of(
                "Each scan opens the file, reads every int and closes it, as in Jaguar's Figure 9: the mapped variants"
                        + " pay mmap, page faults and munmap every time (mapped-bytebuffer is unmapped by the GC, later).",
                "verbatim: WireFile.open (read the 32-byte header, map, validate the one-object message: the int[] is not"
                        + " scanned), ArrayView.OfInt.get(i) on every element (bounds-checked reads of the mapping), close (unmap).",
                "c-mmap: open, mmap, a plain loop, munmap, close; compiled with -O2 from source written by this suite; it"
                        + " times its own repetitions (CLOCK_MONOTONIC), median reported.",
                "dis reads big-endian: each int is byte-swapped back (the file is little-endian); the unbuffered one makes"
                        + " one read system call per int.",
                "array-*/open: open + validate + view + read element 0 + close. list-1M/open: open + validate 1,000,000"
                        + " objects + close, per object. list-1M/walk: follow next() through views from the head, per object.",
                "jos: ObjectInputStream over a 64 KiB BufferedInputStream of the file, readObject of the list head (it"
                        + " recurses once per element: run on a thread with a " + (StoredList.DEEP_STACK_BYTES >> 30)
                        + " GiB stack); walk = the heap list. The target compares open + walk on both sides.",
                "verbatim-load: WireFile.load (one read into native staging memory, one copy into a heap long[], validate;"
                        + " close only marks the file closed: nothing to unmap or revoke). The docs recommend load for small"
                        + " files and open for large ones; the targets judge each size that way.",
                "open-4KiB: a 4 KiB graph file (a stored int[] of " + FileBench.SMALL_FILE_INTS + ") opened, validated, its"
                        + " first element read, closed. verbatim: WireFile.open (map; close revokes the mapping's shared arena,"
                        + " a handshake with every JVM thread, then munmap); verbatim-load: WireFile.load; c-mmap: open, fstat,"
                        + " mmap, read the first int, munmap, close.",
                "Same JVM for all Java variants, measured one after another; single figures, see the JSON spread.");
    }

    // ---- JSON -----------------------------------------------------------------------------

    static void printJson(FileBench.Run run, PrintStream out) {
        DoubleFunction<String> figure = x -> Double.isNaN(x) ? Json.quote("missing") : Json.decimals(4).apply(x);
        for (FileBench.Case c : run.cases()) {
            FileBench.Figure v = c.results().get("verbatim");
            Map<String, Double> results = new LinkedHashMap<>();
            Map<String, Double> ratios = new LinkedHashMap<>();
            Map<String, Double> spread = new LinkedHashMap<>();
            Map<String, Double> cpu = new LinkedHashMap<>();
            List<String> unstable = new ArrayList<>();
            Map<String, String> remarks = new LinkedHashMap<>();
            c.results().forEach((lib, f) -> {
                results.put(lib, f.value());
                if (!lib.equals("verbatim") && !f.isMissing()) ratios.put(lib, f.value() / v.value());
                if (!Double.isNaN(f.spread())) spread.put(lib, f.spread());
                if (!Double.isNaN(f.cpuShare())) cpu.put(lib, f.cpuShare());
                if (!f.stable()) unstable.add(lib);
                if (f.remark() != null) remarks.put(lib, f.remark());
            });
            out.println(Json.line("file").string("case", c.name()).string("unit", c.unit()).numbers("results", results, figure)
                    .numbers("ratios", ratios, Json.decimals(4)).numbers("spread", spread, Json.decimals(4))
                    .numbers("cpu", cpu, Json.decimals(3)).array("unstable", unstable).strings("remarks", remarks)
                    .string("mode", run.settings().name()));
        }
        for (Target t : targets(run)) {
            out.println(t.jsonLine("file"));
        }
    }

    // ---- formatting -----------------------------------------------------------------------

    private static String mark(FileBench.Figure f) {
        return (f.stable() ? "" : "*") + (f.cpuShare() < BatchHarness.BUSY_SHARE ? "!" : "");
    }

    private static String fmt(FileBench.Figure f) {
        if (f.isMissing()) return "missing";
        double x = f.value();
        if (x >= 100) return String.format(Locale.ROOT, "%.0f", x);
        if (x >= 10) return String.format(Locale.ROOT, "%.1f", x);
        if (x >= 1) return String.format(Locale.ROOT, "%.2f", x);
        return String.format(Locale.ROOT, "%.3f", x);
    }
}
