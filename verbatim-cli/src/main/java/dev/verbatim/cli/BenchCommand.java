package dev.verbatim.cli;

import dev.verbatim.bench.file.FileBench;
import dev.verbatim.bench.wire.WireBench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/** {@code verbatim bench SUITE [--quick] [--json]}: runs one benchmark suite of verbatim-bench. */
final class BenchCommand {
    private BenchCommand() {}

    static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        List<String> rest = new ArrayList<>(List.of(args));
        boolean quick = rest.remove("--quick");
        boolean json = rest.remove("--json");
        if (rest.size() != 1) {
            usage(err, rest.isEmpty() ? "which suite?" : "unexpected arguments: " + rest);
            return 2;
        }
        return switch (rest.getFirst()) {
            case "wire" -> WireBench.run(quick, json, out, err);
            case "file" -> FileBench.run(quick, json, out, err);
            default -> {
                usage(err, "unknown suite '" + rest.getFirst() + "'");
                yield 2;
            }
        };
    }

    private static void usage(PrintStream err, String problem) {
        err.println("verbatim bench: " + problem);
        err.println("usage: ./verbatim bench SUITE [--quick] [--json]");
        err.println("  suites: wire   J-RPC Tables 3-4 and Jaguar Figure 8: Verbatim, Java serialization, Kryo, Fory");
        err.println("          file   Jaguar Figure 9 file scan with DataInputStream, MappedByteBuffer and C mmap; stored arrays and lists");
        err.println("  --quick  the same cases, shorter warm-up and fewer batches (well under a minute)");
        err.println("  --json   one JSON object per line instead of tables");
    }
}
