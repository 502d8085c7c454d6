package dev.verbatim.bench.rpc;

import dev.verbatim.bench.harness.ChildProcess;
import dev.verbatim.bench.harness.RunPki;
import dev.verbatim.bench.harness.ScratchDir;
import dev.verbatim.bench.harness.Turns;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;

/**
 * Starting and stopping the processes of a {@code bench rpc} run, the part of a quick run that no turn
 * measures (of ~97 s on a quiet host, ~30 s went into starting 17 contenders' 34 JVMs and ~4 s into making
 * the run's CA before them). Nothing is measured while they start or stop, so the starts overlap: the CA is
 * made on a thread of its own while the first contenders start ({@link RunPki#forRun}: a few seconds of
 * {@code keytool} processes that only the TLS contenders need), {@value #STARTERS} starters start one
 * contender each (a JVM's start is mostly one thread, and a contender's client starts after its server), the
 * TLS contenders, the longest to start (key stores, handshakes in code the JIT has not compiled yet), as soon
 * as the CA is there ({@link StartOrder}), and other processes of the run (the scale case's, {@link ScaleIdle})
 * with them. A start that fails marks its contender failed; the others go on. At the end every contender is
 * stopped at once ({@link #stopAll}) and waited for.
 */
final class RpcProcesses {
    private RpcProcesses() {}

    /** How many contenders start at once (a JVM's start is mostly one thread: two overlap on this 2-CPU host). */
    static final int STARTERS = 2;
    static final Duration READY_TIMEOUT = Duration.ofSeconds(30);
    /** How long a stopped child gets to exit after its DONE. */
    static final Duration EXIT_TIMEOUT = Duration.ofSeconds(10);

    /**
     * The order in which the starters take what is to start: the TLS contenders as soon as the run's CA is
     * made, the other starts (scale) and the other contenders in their order meanwhile, and the TLS ones
     * last when nothing else is left (their start then waits for the CA). Thread-safe.
     */
    static final class StartOrder {
        private final Deque<Runnable> others = new ArrayDeque<>();
        private final Deque<Runnable> tls = new ArrayDeque<>();
        private final Future<?> ca;

        /** {@code more} first, then {@code others}; {@code tls} once {@code ca} is done. */
        StartOrder(List<Runnable> more, List<Runnable> others, List<Runnable> tls, Future<?> ca) {
            this.others.addAll(more);
            this.others.addAll(others);
            this.tls.addAll(tls);
            this.ca = ca;
        }

        /** The next start to make, or null when every start has been taken. */
        synchronized Runnable next() {
            if (!tls.isEmpty() && (ca.isDone() || others.isEmpty())) {
                return tls.poll();
            }
            return others.poll();
        }
    }

    /**
     * Starts every contender of {@code all} (server, then client; a spinning server paused at once) and runs
     * {@code more}, {@value #STARTERS} at a time, in the {@link StartOrder}; the TLS contenders get the CA that
     * {@code pki} makes, on a thread of its own from the start. A contender that fails to start is marked
     * failed. Returns when every start is done or failed. With {@code trace}, each start's time and CPU on
     * {@code err}.
     */
    static void startAll(List<LiveContender> all, List<Runnable> more, Supplier<RunPki> pki, Path base, long deadlineMillis,
                         boolean trace, PrintStream err) {
        long t0 = System.nanoTime();
        CompletableFuture<RunPki> ca = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("rpc-run-ca").start(() -> {
            try {
                ca.complete(pki.get());
            } catch (Throwable t) {
                ca.completeExceptionally(t);
            }
            if (trace) {
                err.printf(Locale.ROOT, "  run's CA made in %d ms%n", (System.nanoTime() - t0) / 1_000_000);
            }
        });
        List<Runnable> others = new ArrayList<>();
        List<Runnable> tls = new ArrayList<>();
        for (LiveContender l : all) {
            (l.tls() ? tls : others).add(() -> start(l, ca, base, deadlineMillis, trace, err));
        }
        StartOrder order = new StartOrder(more, others, tls, ca);
        try (ExecutorService starters = Executors.newFixedThreadPool(STARTERS)) {
            List<Future<?>> lanes = new ArrayList<>();
            for (int i = 0; i < STARTERS; i++) {
                lanes.add(starters.submit(() -> {
                    for (Runnable r; (r = order.next()) != null; ) {
                        r.run();
                    }
                }));
            }
            for (Future<?> f : lanes) {
                try {
                    f.get();
                } catch (ExecutionException e) {
                    throw new IllegalStateException(e.getCause()); // start catches what a contender throws
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while the contenders started", e);
                }
            }
        }
    }

    /** Starts one contender (its server, then its client) and pauses a spinning server; marks it failed if it cannot. */
    private static void start(LiveContender l, Future<RunPki> ca, Path base, long deadlineMillis, boolean trace, PrintStream err) {
        err.printf(Locale.ROOT, "verbatim bench rpc: %s: starting ...%n", l.id);
        try {
            l.dir = ScratchDir.sessionDir(base, l.id);
            Map<String, String> common = RpcBench.common(l.dir, deadlineMillis);
            if (l.tls()) {
                caOf(ca).addTo(l.c, common);
            }
            long t0 = System.nanoTime();
            l.start(l.c, RpcPeer.class, "server", "client", common, READY_TIMEOUT);
            if (trace) {
                err.printf(Locale.ROOT, "  %-13s started in %5d ms (cpu: server %5d ms, client %5d ms)%n", l.id,
                        (System.nanoTime() - t0) / 1_000_000, Turns.cpuNanos(List.of(l.first)) / 1_000_000,
                        Turns.cpuNanos(List.of(l.second)) / 1_000_000);
            }
            l.pause();
        } catch (Exception e) {
            l.fail(e, err);
        }
    }

    private static RunPki caOf(Future<RunPki> ca) throws InterruptedException {
        try {
            return ca.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("the run's CA: " + e.getCause(), e.getCause());
        }
    }

    /**
     * Stops every live contender of {@code all} at once (its client first: a server's echo loop ends when its
     * client closed; then its server) and waits for each process to say DONE and exit (its class list, when it
     * writes one, is complete then: {@link dev.verbatim.bench.harness.ClassArchive}). A contender that does not
     * stop cleanly is marked failed.
     */
    static void stopAll(List<LiveContender> all, PrintStream err) {
        List<LiveContender> live = all.stream().filter(LiveContender::ok).toList();
        for (LiveContender l : live) {
            try {
                l.resume();
                l.second.send("STOP"); // the client closes, which ends an echo loop's serve()
            } catch (Exception e) {
                l.fail(e, err);
            }
        }
        for (LiveContender l : live) {
            if (l.ok()) {
                try {
                    l.second.awaitLine("DONE", Duration.ofSeconds(10));
                    l.first.send("STOP");
                } catch (Exception e) {
                    l.fail(e, err);
                }
            }
        }
        for (LiveContender l : live) {
            if (l.ok()) {
                try {
                    l.first.awaitLine("DONE", Duration.ofSeconds(10)); // the server closed cleanly
                } catch (Exception e) {
                    l.fail(e, err);
                }
            }
        }
        long end = System.nanoTime() + EXIT_TIMEOUT.toNanos();
        for (LiveContender l : all) {
            for (ChildProcess p : new ChildProcess[] {l.second, l.first}) {
                try {
                    if (p != null && !p.awaitExit(Duration.ofNanos(Math.max(1, end - System.nanoTime())))) {
                        err.println("verbatim bench rpc: " + p.label() + " did not exit within " + EXIT_TIMEOUT.toSeconds() + " s");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}
