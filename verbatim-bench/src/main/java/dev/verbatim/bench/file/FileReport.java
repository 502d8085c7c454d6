package dev.verbatim.bench.file;

import dev.verbatim.bench.Harness;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

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

    /** One target of the file suite, evaluated on one run; {@code pass} is null when a figure is missing. */
    record Target(String what, double measured, String need, Boolean pass) {}

    static List<Target> targets(FileBench.Run run) {
        List<Target> t = new ArrayList<>();
        for (String scan : List.of("scan-1MiB", "scan-64MiB")) {
            Map<String, FileBench.Figure> r = run.find(scan).results();
            double ratio = r.get("verbatim").value() / r.get("c-mmap").value();
            t.add(new Target(scan + " verbatim / c-mmap", ratio, "<= 1.30x", Double.isNaN(ratio) ? null : ratio <= 1.3));
        }
        double big = run.find("array-64MiB/open").results().get("verbatim").value();
        double small = run.find("array-1MiB/open").results().get("verbatim").value();
        t.add(new Target("array-64MiB/open / array-1MiB/open (verbatim)", big / small, "<= 2.00x", big / small <= 2));
        Map<String, FileBench.Figure> open = run.find("list-1M/open").results();
        Map<String, FileBench.Figure> walk = run.find("list-1M/walk").results();
        double jos = open.get("jos").value() + walk.get("jos").value();
        double v = open.get("verbatim").value() + walk.get("verbatim").value();
        t.add(new Target("list-1M (open + walk) jos / verbatim", jos / v, ">= 20.0x", jos / v >= 20));
        return t;
    }

    // ---- human form -----------------------------------------------------------------------

    static void printTables(FileBench.Run run, PrintStream out) {
        Harness.Settings s = run.settings();
        out.println("Verbatim file benchmark: Jaguar Figure 9 (file scan) with the C mmap floor; stored graphs");
        out.printf(Locale.ROOT, "JVM %s (%s), %s, %d CPUs; %s run: median of %d batches of ~%d ms after warm-up (%d-%d ms);"
                        + " C: %s%n",
                System.getProperty("java.vm.version"), System.getProperty("java.vm.name"), System.getProperty("os.arch"),
                Runtime.getRuntime().availableProcessors(), s.name(), s.batches(), s.batchNanos() / 1_000_000,
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
                    ratio(fa.value() / ca), ratio(fb.value() / cb));
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
                    j == null ? "" : fmt(j) + mark(j), j == null ? "" : ratio(j.value() / v.value()));
        }
        out.println();
        out.println("Targets (evaluated on this run)");
        for (Target t : targets(run)) {
            out.printf(Locale.ROOT, "  %-4s  %-48s %8s  (need %s)%n", t.pass() == null ? "N/A" : t.pass() ? "PASS" : "MISS",
                    t.what(), Double.isNaN(t.measured()) ? "missing" : ratio(t.measured()), t.need());
        }
        out.println();
        busyNote(run, out);
        out.println("Notes");
        for (String n : notes()) out.println("  - " + n);
        out.printf(Locale.ROOT, "%nfinished in %.1f s%n", run.seconds());
    }

    private static void busyNote(FileBench.Run run, PrintStream out) {
        List<String> unstable = new ArrayList<>();
        List<String> busy = new ArrayList<>();
        for (FileBench.Case c : run.cases()) {
            c.results().forEach((v, f) -> {
                if (!f.stable()) unstable.add(c.name() + "/" + v);
                if (f.cpuShare() < Harness.BUSY_SHARE) busy.add(c.name() + "/" + v);
            });
        }
        if (!unstable.isEmpty()) out.println("* warm-up hit its time bound before the batches agreed: " + String.join(", ", unstable));
        if (!busy.isEmpty()) {
            out.printf(Locale.ROOT, "! the measuring thread had less than %.0f%% of a CPU (busy machine, GC, or waiting on I/O): %s%n",
                    Harness.BUSY_SHARE * 100, String.join(", ", busy));
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
                "Same JVM for all Java variants, measured one after another; single figures, see the JSON spread.");
    }

    // ---- JSON -----------------------------------------------------------------------------

    static void printJson(FileBench.Run run, PrintStream out) {
        for (FileBench.Case c : run.cases()) {
            FileBench.Figure v = c.results().get("verbatim");
            StringJoiner results = new StringJoiner(",", "{", "}");
            StringJoiner ratios = new StringJoiner(",", "{", "}");
            StringJoiner spread = new StringJoiner(",", "{", "}");
            StringJoiner cpu = new StringJoiner(",", "{", "}");
            StringJoiner unstable = new StringJoiner(",", "[", "]");
            StringJoiner remarks = new StringJoiner(",", "{", "}");
            c.results().forEach((lib, f) -> {
                results.add(quote(lib) + ":" + (f.isMissing() ? quote("missing") : num(f.value())));
                if (!lib.equals("verbatim") && !f.isMissing()) ratios.add(quote(lib) + ":" + num(f.value() / v.value()));
                if (!Double.isNaN(f.spread())) spread.add(quote(lib) + ":" + String.format(Locale.ROOT, "%.4f", f.spread()));
                if (!Double.isNaN(f.cpuShare())) cpu.add(quote(lib) + ":" + String.format(Locale.ROOT, "%.3f", f.cpuShare()));
                if (!f.stable()) unstable.add(quote(lib));
                if (f.remark() != null) remarks.add(quote(lib) + ":" + quote(f.remark()));
            });
            out.println("{\"suite\":\"file\",\"case\":" + quote(c.name()) + ",\"unit\":" + quote(c.unit()) + ",\"results\":" + results
                    + ",\"ratios\":" + ratios + ",\"spread\":" + spread + ",\"cpu\":" + cpu + ",\"unstable\":" + unstable
                    + ",\"remarks\":" + remarks + ",\"mode\":" + quote(run.settings().name()) + "}");
        }
        for (Target t : targets(run)) {
            out.println("{\"suite\":\"file\",\"target\":" + quote(t.what()) + ",\"measured\":"
                    + (Double.isNaN(t.measured()) ? "null" : String.format(Locale.ROOT, "%.3f", t.measured()))
                    + ",\"need\":" + quote(t.need()) + ",\"pass\":" + t.pass() + "}");
        }
    }

    private static String num(double x) {
        return String.format(Locale.ROOT, "%.4f", x);
    }

    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    // ---- formatting -----------------------------------------------------------------------

    private static String mark(FileBench.Figure f) {
        return (f.stable() ? "" : "*") + (f.cpuShare() < Harness.BUSY_SHARE ? "!" : "");
    }

    private static String fmt(FileBench.Figure f) {
        if (f.isMissing()) return "missing";
        double x = f.value();
        if (x >= 100) return String.format(Locale.ROOT, "%.0f", x);
        if (x >= 10) return String.format(Locale.ROOT, "%.1f", x);
        if (x >= 1) return String.format(Locale.ROOT, "%.2f", x);
        return String.format(Locale.ROOT, "%.3f", x);
    }

    private static String ratio(double r) {
        if (Double.isNaN(r)) return "-";
        if (r >= 100) return String.format(Locale.ROOT, "%.0fx", r);
        if (r >= 10) return String.format(Locale.ROOT, "%.1fx", r);
        return String.format(Locale.ROOT, "%.2fx", r);
    }
}
