package dev.verbatim.bench.file;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The C floor of the file scan: a small C program, written here and compiled with the machine's C compiler
 * ({@code cc -O2}), that opens the file, maps it with {@code mmap}, finds the largest int, unmaps and closes
 * it, and prints the time of each repetition (CLOCK_MONOTONIC). Absent a compiler, the figure is reported
 * missing.
 */
final class CMmapScan {
    /**
     * The program: {@code scan FILE REPS [first]}; prints {@code max M} (with {@code first}: the file's first int,
     * read after open + mmap, then munmap + close) and then one {@code ns T} line per repetition.
     */
    static final String SOURCE = """
            #define _POSIX_C_SOURCE 200809L
            #include <fcntl.h>
            #include <stdint.h>
            #include <stdio.h>
            #include <stdlib.h>
            #include <sys/mman.h>
            #include <sys/stat.h>
            #include <time.h>
            #include <unistd.h>

            static long long now_ns(void) {
                struct timespec t;
                clock_gettime(CLOCK_MONOTONIC, &t);
                return t.tv_sec * 1000000000LL + t.tv_nsec;
            }

            /* Open, map, scan for the maximum, unmap, close: the whole of one repetition. */
            static int32_t scan(const char *path) {
                int fd = open(path, O_RDONLY);
                if (fd < 0) { perror("open"); exit(2); }
                struct stat st;
                if (fstat(fd, &st) != 0) { perror("fstat"); exit(2); }
                size_t n = (size_t) st.st_size / sizeof(int32_t);
                const int32_t *p = mmap(NULL, (size_t) st.st_size, PROT_READ, MAP_SHARED, fd, 0);
                if (p == MAP_FAILED) { perror("mmap"); exit(2); }
                int32_t max = INT32_MIN;
                for (size_t i = 0; i < n; i++) {
                    if (p[i] > max) max = p[i];
                }
                munmap((void *) p, (size_t) st.st_size);
                close(fd);
                return max;
            }

            /* Open, map, read the first int, unmap, close: opening a small file to read one field. */
            static int32_t first(const char *path) {
                int fd = open(path, O_RDONLY);
                if (fd < 0) { perror("open"); exit(2); }
                struct stat st;
                if (fstat(fd, &st) != 0) { perror("fstat"); exit(2); }
                const volatile int32_t *p = mmap(NULL, (size_t) st.st_size, PROT_READ, MAP_SHARED, fd, 0);
                if (p == MAP_FAILED) { perror("mmap"); exit(2); }
                int32_t v = p[0];
                munmap((void *) p, (size_t) st.st_size);
                close(fd);
                return v;
            }

            int main(int argc, char **argv) {
                if (argc != 3 && argc != 4) { fprintf(stderr, "usage: scan FILE REPS [first]\\n"); return 2; }
                long reps = atol(argv[2]);
                int32_t (*op)(const char *) = argc == 4 && argv[3][0] == 'f' ? first : scan;
                int32_t max = 0;
                for (int i = 0; i < 3; i++) max = op(argv[1]); /* warm-up */
                printf("max %d\\n", (int) max);
                for (long r = 0; r < reps; r++) {
                    long long t0 = now_ns();
                    int32_t m = op(argv[1]);
                    long long t1 = now_ns();
                    if (m != max) { fprintf(stderr, "max changed\\n"); return 3; }
                    printf("ns %lld\\n", t1 - t0);
                }
                return 0;
            }
            """;

    private final Path binary;
    private final String compiler;

    private CMmapScan(Path binary, String compiler) {
        this.binary = binary;
        this.compiler = compiler;
    }

    /** Compiles the program in {@code dir}; null if there is no C compiler (or it fails, reported on {@code log}). */
    static CMmapScan compile(Path dir, java.io.PrintStream log) throws IOException, InterruptedException {
        Path src = dir.resolve("scan.c");
        Files.writeString(src, SOURCE, StandardCharsets.UTF_8);
        Path bin = dir.resolve("scan");
        for (String cc : List.of("cc", "gcc", "clang")) {
            Process p;
            try {
                p = new ProcessBuilder(cc, "-O2", "-o", bin.toString(), src.toString()).redirectErrorStream(true).start();
            } catch (IOException notThere) {
                continue;
            }
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                continue;
            }
            if (p.exitValue() == 0 && Files.isExecutable(bin)) {
                return new CMmapScan(bin, cc + " -O2 (" + version(cc) + ")");
            }
            log.println("verbatim bench file: " + cc + " failed: " + output.strip());
        }
        return null;
    }

    private static String version(String cc) {
        try {
            Process p = new ProcessBuilder(cc, "--version").redirectErrorStream(true).start();
            String first = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().findFirst().orElse("?");
            p.waitFor(10, TimeUnit.SECONDS);
            return first.strip();
        } catch (IOException | InterruptedException e) {
            return "version unknown";
        }
    }

    /** The compiler used, for the report. */
    String compiler() { return compiler; }

    /** The result of one run: the maximum found and the time of each repetition in ns. */
    record Result(int max, double[] nanos) {
        double median() {
            double[] s = nanos.clone();
            Arrays.sort(s);
            return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
        }

        double relativeSpread() {
            double[] s = nanos.clone();
            Arrays.sort(s);
            double m = median();
            return m == 0 ? 0 : (s[(3 * (s.length - 1)) / 4] - s[(s.length - 1) / 4]) / m;
        }
    }

    /** Runs the program on {@code file}, {@code reps} timed repetitions after three untimed ones. */
    Result run(Path file, int reps) throws IOException, InterruptedException {
        return run(file, reps, false);
    }

    /** As {@link #run(Path, int)}; {@code first}: open, map, read the first int, unmap and close instead of a scan. */
    Result run(Path file, int reps, boolean first) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(binary.toString(), file.toString(), Integer.toString(reps)));
        if (first) command.add("first");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("the C scan did not finish in 120 s");
        }
        if (p.exitValue() != 0) throw new IOException("the C scan failed (" + p.exitValue() + "): " + out.strip());
        int max = 0;
        List<Double> ns = new ArrayList<>();
        for (String line : out.split("\n")) {
            if (line.startsWith("max ")) max = Integer.parseInt(line.substring(4).strip());
            if (line.startsWith("ns ")) ns.add(Double.parseDouble(line.substring(3).strip()));
        }
        if (ns.size() != reps) throw new IOException("the C scan printed " + ns.size() + " timings, expected " + reps + ": " + out);
        return new Result(max, ns.stream().mapToDouble(Double::doubleValue).toArray());
    }
}
