package dev.verbatim.cli;

import java.io.PrintStream;
import java.util.Arrays;

/** The {@code verbatim} command. Each sub-command is a small class; this one only dispatches. */
public final class Main {
    private Main() {}

    public static void main(String[] args) throws Exception {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs one command and returns its exit code (0 ok, 1 failure, 2 usage error). */
    public static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        if (args.length == 0) {
            usage(out);
            return 0;
        }
        String[] rest = Arrays.copyOfRange(args, 1, args.length);
        return switch (args[0]) {
            case "help", "-h", "--help" -> { usage(out); yield 0; }
            case "bench" -> BenchCommand.run(rest, out, err);
            case "demo" -> DemoCommand.run(rest, out);
            case "fuzz" -> FuzzCommand.run(rest, out, err);
            case "file" -> FileCommand.run(rest, out, err);
            case "soak" -> dev.verbatim.cli.soak.SoakCommand.run(rest, out, err);
            default -> {
                err.println("verbatim: unknown command '" + args[0] + "'");
                usage(err);
                yield 2;
            }
        };
    }

    static void usage(PrintStream out) {
        out.println("""
                usage: ./verbatim COMMAND [ARGS]

                  help                     this text
                  test                     build and run the whole test suite (Maven)
                  demo [--transport tcp|tls]
                                           the J-RPC demo: a server process called through a plain interface
                                           (shm by default; tls makes throwaway certificates for itself)
                  demo --wire              a tour of the wire format
                  demo --objects           distributed objects: three base processes, a list across them, a
                                           forwarded reference, identity, cloneOn, a synchronized chain, a base killed
                  bench wire [--quick] [--json]
                                           the J-RPC Tables 3-4 with Java serialization, Kryo and Fory
                  bench transport [--quick] [--json] [--plot PATH]
                                           Javia Tables 1-2: round trips and bandwidth, shm floor, Aeron IPC, NIO TCP
                  bench file [--quick] [--json]
                                           Jaguar Figure 9 (file scan) with C mmap; stored arrays and lists
                  bench rpc [--quick] [--json] [--plot PATH]
                                           J-RPC Table 2 and Figure 7: calls vs the floor, Java RMI, gRPC, Aeron IPC
                  bench objects [--quick] [--json] [--plot PATH]
                                           distributed objects: null call vs plain RPC and Java RMI, a forwarded
                                           reference, paper 003's distributed list over 1-4 base processes
                  file inspect PATH        a stored graph file or log: header, types and fingerprints, objects
                  file verify PATH         validate a stored file, checksums included (exit 1 with the reason)
                  file repair PATH         cut a log back to its last record whose checksum holds (after a power loss)
                  soak [--seconds N] [--clients K] [--threads T] [--json]
                                           a server and client processes making mixed calls over shm and tcp while
                                           clients are killed, connections dropped and malformed messages sent;
                                           lost and wrong calls must be 0, server memory/threads/descriptors flat
                  fuzz [--seconds N] [--iterations N] [--seed S] [--threads T] [--heap] [--replay I] [--out DIR]
                                           the validator fuzz campaign (the test suite runs 200,000 messages of it)
                """);
    }
}
