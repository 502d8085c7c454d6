package dev.verbatim.bench.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The CPU time the JIT compilers of some child processes have taken so far, read from Linux's
 * {@code /proc/PID/task/TID/schedstat} (nanoseconds on a CPU) of the threads HotSpot names
 * {@code C1 CompilerThread#} and {@code C2 CompilerThread#} (15 characters of it in {@code comm}).
 *
 * <p>Why a suite looks: on a 2-CPU host a compilation that starts during a turn takes one CPU from the two threads a
 * call between two processes keeps spinning, and those two then take turns on the other CPU: a hop of the objects
 * suite's walk went from ~1 µs to ~60 µs for as long as the compiler ran (two base processes pinned to one CPU with
 * {@code taskset}: 590-650 µs per 10-element walk, the figure of the slow turns; pinned to two, 6 µs), and one C2
 * compilation can run for hundreds of milliseconds. A turn's warm-up therefore goes on until the compilers are quiet
 * ({@link #quiet}), as it goes on until the code is warm.
 *
 * <p>Elsewhere (no {@code /proc}), every reading is -1 and nothing waits for it. Stateless.
 */
public final class JitTime {
    private JitTime() {}

    /** Whether this host has Linux's per-thread {@code /proc} (looked at once). */
    private static final boolean PROC = Files.isDirectory(Path.of("/proc/self/task"));

    /**
     * The compiler threads' CPU time of {@code processes} so far, in nanoseconds; -1 where it cannot be read (not
     * Linux). A process that is gone counts 0.
     */
    public static long nanos(List<ChildProcess> processes) {
        if (!PROC) {
            return -1;
        }
        long sum = 0;
        for (ChildProcess p : processes) {
            if (p != null) {
                sum += nanos(p.process().pid());
            }
        }
        return sum;
    }

    /** The compiler threads' CPU time of process {@code pid} (0 if it is gone). */
    static long nanos(long pid) {
        long sum = 0;
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path t : (Iterable<Path>) tasks::iterator) {
                sum += compilerNanos(t);
            }
        } catch (IOException | java.io.UncheckedIOException e) {
            return sum; // (gone meanwhile)
        }
        return sum;
    }

    private static long compilerNanos(Path task) {
        try {
            String comm = Files.readString(task.resolve("comm")).trim();
            if (!comm.startsWith("C1 CompilerThre") && !comm.startsWith("C2 CompilerThre")) {
                return 0;
            }
            String s = Files.readString(task.resolve("schedstat")).trim();
            int sp = s.indexOf(' ');
            return Long.parseLong(sp < 0 ? s : s.substring(0, sp));
        } catch (IOException | RuntimeException e) {
            return 0; // (the thread ended meanwhile, or a kernel without schedstat)
        }
    }

    /**
     * Whether the compilers took less than {@code maxNanos} between two readings ({@code before}, {@code after} from
     * {@link #nanos}); true where they cannot be read.
     */
    public static boolean quiet(long before, long after, long maxNanos) {
        return before < 0 || after < 0 || after - before < maxNanos;
    }
}
