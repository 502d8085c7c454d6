package dev.verbatim.rpc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Spinners give their CPU away between empty looks (docs/rpc.md §4, {@code WaitPolicy.pause}): in a process
 * confined to one CPU ({@code taskset -c 0}), a server and a client node over loopback tcp, 16 asynchronous calls
 * in flight. A reader that spun with a busy-wait hint kept the only CPU for its time slice while the threads that
 * would answer or start the next calls waited, polling the socket 25-66 times per call; one that yields lets them
 * run and finds something nearly every time it looks. Counted, not timed: the process's {@code read} system
 * calls ({@code /proc/self/io}, {@code syscr}) per call, client and server together.
 */
@Timeout(120)
class OneCpuSpinTest {
    /** The calls counted, after as many to warm up. */
    private static final int CALLS = 20_000;
    private static final int IN_FLIGHT = 16;

    /** The null call, synchronous on the server, asynchronous on the client (the same method on the wire). */
    public interface Null extends Remote {
        void nothing();
    }

    /** The client's view. */
    public interface AsyncNull extends Remote {
        CompletableFuture<Void> nothing();
    }

    @Test
    void readersOnOneCpuMakeFewEmptyReadsPerCall() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/taskset")) && Files.isReadable(Path.of("/proc/self/io")),
                "needs taskset and /proc/self/io (Linux)");
        Process child = onCpu0(List.of());
        try {
            String line = RpcProcessTest.line(child, "READS ");
            double perCall = Double.parseDouble(line.substring("READS ".length()));
            System.out.println("one CPU, " + IN_FLIGHT + " asynchronous calls in flight: " + perCall + " reads per call");
            assertTrue(perCall < 8, perCall + " reads per call on one CPU: spinners keep the CPU from the threads they wait for");
            assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the child ended");
            assertEquals(0, child.exitValue());
        } finally {
            RpcProcessTest.kill(child);
        }
    }

    /**
     * Two spinners that wait for each other on one CPU (shm, a synchronous caller and the server's dispatcher; the
     * process sees two CPUs, {@code -XX:ActiveProcessorCount=2}, as when the scheduler puts both ends of a
     * connection on one core of a busy host): a spinner that only busy-waits keeps the CPU for its whole time slice
     * while the thread it waits for cannot run, so each call cost a slice of spinning each way (1.21 ms of CPU a
     * call). The transport's wait after RPC's own spin now yields once it is 5 µs old and a yield shows the CPU
     * shared ({@code SpinPause}): ~0.3 ms a call. Measured as the process's CPU time per call (its threads'
     * schedstat), which other processes on the host do not change: the bound (700 µs) sits between the two
     * behaviours, under the slice of spinning each way, not at a figure of either.
     */
    @Test
    void shmSpinnersThatShareOneCpuHandItOverInsteadOfSpinningASliceEachWay() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/taskset")) && Files.isReadable(Path.of("/proc/self/schedstat")),
                "needs taskset and /proc/self/task/T/schedstat (Linux)");
        Process child = onCpu0(List.of("-XX:ActiveProcessorCount=2"), "shm");
        try {
            String line = RpcProcessTest.line(child, "CPU ");
            double perCall = Double.parseDouble(line.substring("CPU ".length()));
            System.out.println("one CPU, shm, one synchronous caller: " + perCall + " ns of CPU per call");
            assertTrue(perCall < 700_000, perCall + " ns of CPU per call on one CPU: the spinners spin out their time"
                    + " slices while the thread each waits for cannot run");
            assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the child ended");
            assertEquals(0, child.exitValue());
        } finally {
            RpcProcessTest.kill(child);
        }
    }

    /** This class's {@link #main} in a JVM confined to CPU 0 ({@code taskset -c 0}), with {@code flags} and {@code args}. */
    private static Process onCpu0(List<String> flags, String... args) throws java.io.IOException {
        List<String> command = new java.util.ArrayList<>(List.of("/usr/bin/taskset", "-c", "0",
                ProcessHandle.current().info().command().orElse("java"), "--enable-native-access=ALL-UNNAMED", "-Xmx256m"));
        command.addAll(flags);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), OneCpuSpinTest.class.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    /** This process's threads' time on a CPU (ns): the first field of each {@code /proc/self/task/T/schedstat}. */
    private static long cpuNanos() {
        long sum = 0;
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path t : tasks.toList()) {
                try {
                    sum += Long.parseLong(Files.readString(t.resolve("schedstat")).trim().split(" ")[0]);
                } catch (java.io.IOException ended) {
                    // a thread that ended meanwhile
                }
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return sum;
    }

    private static long reads() throws Exception {
        for (String l : Files.readAllLines(Path.of("/proc/self/io"))) {
            if (l.startsWith("syscr:")) {
                return Long.parseLong(l.substring(6).trim());
            }
        }
        throw new IllegalStateException("no syscr in /proc/self/io");
    }

    /** The child: both nodes in one process on one CPU; prints the reads per call. */
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("shm")) {
            shm();
            return;
        }
        try (Node server = Node.listen("tcp://127.0.0.1:0"); Node client = Node.create()) {
            server.export("null", Null.class, () -> { });
            AsyncNull n = client.lookup(server.addresses().getFirst(), "null", AsyncNull.class);
            run(n, CALLS); // warm-up
            long r0 = reads();
            run(n, CALLS);
            long r1 = reads();
            System.out.println("READS " + (double) (r1 - r0) / CALLS);
            System.out.flush();
        }
        System.exit(0);
    }

    /** The child of the shm case: both nodes in one process; prints the process's CPU time per synchronous call. */
    private static void shm() {
        try (Node server = Node.listen("shm:one-cpu-" + ProcessHandle.current().pid()); Node client = Node.create()) {
            server.export("null", Null.class, () -> { });
            Null n = client.lookup(server.addresses().getFirst(), "null", Null.class);
            int calls = 2_000;
            for (int i = 0; i < calls; i++) { // warm-up
                n.nothing();
            }
            long cpu = cpuNanos();
            for (int i = 0; i < calls; i++) {
                n.nothing();
            }
            System.out.println("CPU " + (double) (cpuNanos() - cpu) / calls);
            System.out.flush();
        }
        System.exit(0);
    }

    /** {@code calls} calls with {@link #IN_FLIGHT} in flight, all completed when it returns. */
    private static void run(AsyncNull n, int calls) throws Exception {
        Semaphore permits = new Semaphore(IN_FLIGHT);
        AtomicInteger failed = new AtomicInteger();
        for (int i = 0; i < calls; i++) {
            if (!permits.tryAcquire(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("no reply within 30 s");
            }
            n.nothing().whenComplete((v, e) -> {
                if (e != null) {
                    failed.incrementAndGet();
                }
                permits.release();
            });
        }
        if (!permits.tryAcquire(IN_FLIGHT, 30, TimeUnit.SECONDS) || failed.get() != 0) {
            throw new IllegalStateException("calls failed or did not come back: " + failed.get());
        }
    }
}
