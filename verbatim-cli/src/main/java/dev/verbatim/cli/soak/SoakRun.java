package dev.verbatim.cli.soak;

import dev.verbatim.rpc.Node;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One run of {@code ./verbatim soak}: this process is the server (a {@link Node} on shm and tcp exporting
 * {@link SoakApi.Service}); {@code clients} child processes call it ({@link SoakClient}) while {@link SoakFaults}
 * injects a fault every 0.5-1.5 s and this process samples its own heap (after a GC), off-heap buffers, threads and
 * descriptors once a second. At the end the clients stop (their {@code END} counts, or the last counts of a killed
 * one, are added up), the server closes, and what is left in the run's shm directory is counted.
 */
final class SoakRun {
    /** One sample of the server. */
    record Sample(double seconds, long heapBytes, long offHeapBytes, int threads, int descriptors, int connections) {}

    /** What a run measured. */
    record Result(long answered, long askedTimeouts, long wrong, long lost, Map<String, Long> failed,
                  Map<SoakFaults.Fault, Integer> faults, int malformedMessages, int clientStarts, List<Sample> samples,
                  int warmIndex, List<String> leftovers, List<String> wrongSamples, double seconds) {}

    private final int seconds;
    private final int clientCount;
    private final int threads;
    private final long seed;
    private final List<Child> children = new ArrayList<>();
    private final List<String> finished = new ArrayList<>(); // the last counts line of every ended client
    private Path shmDir;
    private String shm;
    private String tcp;
    private int starts;

    /** A client process and the last counts line it printed. */
    private static final class Child {
        final Process process;
        final java.util.concurrent.CountDownLatch ready = new java.util.concurrent.CountDownLatch(1);
        volatile String last;

        Child(Process process) {
            this.process = process;
        }
    }

    SoakRun(int seconds, int clients, int threads, long seed) {
        this.seconds = seconds;
        this.clientCount = clients;
        this.threads = threads;
        this.seed = seed;
    }

    Result run() throws Exception {
        long start = System.nanoTime();
        shmDir = Files.createTempDirectory("verbatim-soak-", PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwx------")));
        System.setProperty("verbatim.shm.dir", shmDir.toString());
        List<Sample> samples = new ArrayList<>();
        SoakFaults faults;
        int warm;
        try (Node server = Node.listen("shm:soak-" + ProcessHandle.current().pid(), "tcp://127.0.0.1:0")) {
          try {
            server.export(SoakApi.NAME, SoakApi.Service.class, new SoakApi.ServiceImpl());
            shm = server.addresses().get(0);
            tcp = server.addresses().get(1);
            samples.add(sample(server, 0)); // the baseline: no client yet
            for (int i = 0; i < clientCount; i++) children.add(startClient());
            for (Child c : children) {
                if (!c.ready.await(60, TimeUnit.SECONDS)) throw new IllegalStateException("a soak client did not connect in 60 s");
            }
            faults = new SoakFaults(shm, tcp, clients(), seed);
            long begin = System.nanoTime(); // the clock starts once every client is connected
            long end = begin + TimeUnit.SECONDS.toNanos(seconds);
            long nextSample = begin;
            long nextFault = begin + 1_000_000_000L;
            java.util.SplittableRandom r = new java.util.SplittableRandom(seed);
            warm = -1;
            while (System.nanoTime() < end) {
                long now = System.nanoTime();
                if (now >= nextSample) {
                    samples.add(sample(server, (now - start) / 1e9));
                    if (warm < 0 && now - begin >= (end - begin) / 4) warm = samples.size() - 1;
                    nextSample += 1_000_000_000L;
                }
                if (now >= nextFault && end - now > 3_000_000_000L) {
                    faults.injectOne();
                    nextFault = now + 500_000_000L + r.nextLong(1_000_000_000L);
                }
                Thread.sleep(20);
            }
            faults.close();
            stopClients();
            for (int i = 0; i < 100 && server.connections() > 0; i++) Thread.sleep(50); // dead peers are noticed
            // the library's process-wide threads outlive their last connection by a second on purpose (the pool's
            // idle dispatcher threads, the tcp readiness selector, the held-answers watcher): the last sample is
            // taken once they are gone, or after 5 s (then what is left is growth)
            Sample baseline = samples.getFirst(), last = sample(server, (System.nanoTime() - start) / 1e9);
            for (int i = 0; i < 50 && (last.threads() > baseline.threads() || last.descriptors() > baseline.descriptors()); i++) {
                Thread.sleep(100);
                last = sample(server, (System.nanoTime() - start) / 1e9);
            }
            samples.add(last);
          } finally {
            for (Child c : children) c.process.destroyForcibly(); // nothing outlives a run, whatever failed
          }
        }
        List<String> left;
        try (Stream<Path> files = Files.list(shmDir)) {
            left = files.map(p -> p.getFileName().toString()).sorted().toList();
        }
        deleteTree(shmDir);
        return total(faults, samples, Math.max(warm, 0), left, (System.nanoTime() - start) / 1e9);
    }

    private Process launch() throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-Xss4m", "-Xmx256m", "-XX:+UseSerialGC",
                "-Dverbatim.shm.dir=" + shmDir, "-cp", System.getProperty("java.class.path"), SoakClient.class.getName(),
                shm, tcp, Integer.toString(threads), Long.toString(seed + starts)));
        return new ProcessBuilder(cmd).redirectError(System.getenv("VERBATIM_SOAK_CLIENT_ERR") != null
                ? ProcessBuilder.Redirect.appendTo(new java.io.File(System.getenv("VERBATIM_SOAK_CLIENT_ERR")))
                : ProcessBuilder.Redirect.DISCARD).start();
    }

    private Child startClient() throws IOException {
        starts++;
        Child c = new Child(launch());
        Thread.ofPlatform().daemon().name("soak-client-out").start(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(c.process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    if (line.startsWith("COUNTS") || line.startsWith("END")) c.last = line;
                    if (line.equals("READY")) c.ready.countDown();
                }
            } catch (IOException ignored) {
                // the process died: its last line stands
            }
        });
        return c;
    }

    private SoakFaults.Clients clients() {
        return new SoakFaults.Clients() {
            @Override
            public void killAndRestart(int index) throws IOException {
                Child old = children.get(index);
                old.process.destroyForcibly(); // SIGKILL
                try {
                    old.process.waitFor(5, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                retire(old);
                children.set(index, startClient());
            }

            @Override
            public void drop(int index) {
                send(children.get(index), "drop");
            }

            @Override
            public int count() {
                return children.size();
            }
        };
    }

    private void retire(Child c) {
        try {
            Thread.sleep(50); // the reader thread takes the last line the process printed
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (c.last != null) finished.add(c.last);
    }

    private static void send(Child c, String command) {
        try {
            OutputStream in = c.process.getOutputStream();
            in.write((command + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        } catch (IOException ignored) {
            // a client that just died
        }
    }

    private void stopClients() throws InterruptedException {
        for (Child c : children) send(c, "stop");
        for (Child c : children) {
            if (!c.process.waitFor(SoakClient.LOST_AFTER.toSeconds() + 10, TimeUnit.SECONDS)) c.process.destroyForcibly();
            c.process.waitFor(5, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + 2_000_000_000L;
            while ((c.last == null || !c.last.startsWith("END")) && System.nanoTime() < deadline) Thread.sleep(10);
            retire(c);
        }
    }

    private static Sample sample(Node server, double at) throws IOException {
        System.gc();
        Runtime rt = Runtime.getRuntime();
        long offHeap = 0;
        for (BufferPoolMXBean b : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) offHeap += b.getMemoryUsed();
        int fds;
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            fds = (int) s.count();
        }
        return new Sample(at, rt.totalMemory() - rt.freeMemory(), offHeap, Thread.activeCount(), fds, server.connections());
    }

    private Result total(SoakFaults faults, List<Sample> samples, int warm, List<String> left, double secs) {
        long answered = 0, asked = 0, wrong = 0, lost = 0;
        Map<String, Long> failed = new TreeMap<>();
        List<String> wrongSamples = new ArrayList<>();
        for (String line : finished) {
            for (String field : line.split(" \\| ")[0].split(" ")) {
                int eq = field.indexOf('=');
                if (eq < 0) continue;
                String k = field.substring(0, eq);
                long v = Long.parseLong(field.substring(eq + 1));
                switch (k) {
                    case "answered" -> answered += v;
                    case "asked-timeouts" -> asked += v;
                    case "wrong" -> wrong += v;
                    case "lost" -> lost += v;
                    default -> failed.merge(k.substring("failed.".length()), v, Long::sum);
                }
            }
            String[] parts = line.split(" \\| wrong: ");
            for (int i = 1; i < parts.length && wrongSamples.size() < 5; i++) wrongSamples.add(parts[i]);
        }
        return new Result(answered, asked, wrong, lost, failed, faults.counts(), faults.malformedMessages(), starts,
                samples, warm, left, wrongSamples, secs);
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }
}
