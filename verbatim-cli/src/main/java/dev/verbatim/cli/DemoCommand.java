package dev.verbatim.cli;

import dev.verbatim.bench.rpc.RmiLatency;
import dev.verbatim.cli.demo.DemoApi.Book;
import dev.verbatim.cli.demo.DemoApi.BookView;
import dev.verbatim.cli.demo.DemoApi.Order;
import dev.verbatim.cli.demo.DemoApi.OrderView;
import dev.verbatim.cli.demo.DemoApi.Quote;
import dev.verbatim.cli.demo.DemoApi.QuoteListener;
import dev.verbatim.cli.demo.DemoApi.Quotes;
import dev.verbatim.cli.demo.DemoApi.QuotesV2;
import dev.verbatim.cli.demo.DemoApi.RejectedException;
import dev.verbatim.cli.demo.DemoApi.Side;
import dev.verbatim.cli.demo.DemoServer;
import dev.verbatim.cli.demo.objects.ObjectsDemo;
import dev.verbatim.rpc.Node;
import dev.verbatim.rpc.RemoteException;
import dev.verbatim.transport.ConnectionOptions;
import dev.verbatim.transport.ThrowawayPki;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code ./verbatim demo [--transport shm|tcp|tls] [--wire] [--objects]}: the main job. Starts a server process,
 * calls it from this one through a plain Java interface, and checks every step: a null call, a
 * record by copy, an accessor-interface view of a large graph, a remote interface by reference with
 * callbacks, an exception crossing, an interface upgrade under a bound client, then a latency table
 * (Verbatim shm, Verbatim tcp, and Java RMI on loopback through the rpc bench's {@link RmiLatency}). Exits non-zero if a step misbehaves.
 * {@code --transport tls} runs the steps over mutual TLS 1.3 on tcp, with a throwaway CA and
 * certificates it makes first ({@link ThrowawayPki}, keytool) and removes at the end.
 * {@code --wire} runs the wire-format tour instead, {@code --objects} the distributed-objects demo
 * ({@link ObjectsDemo}: three base processes).
 */
public final class DemoCommand {
    private DemoCommand() {}

    private static int failures;

    public static int run(String[] args, PrintStream out) throws Exception {
        List<String> rest = new ArrayList<>(Arrays.asList(args));
        if (rest.remove("--wire")) {
            return WireTour.run(rest.toArray(String[]::new), out);
        }
        if (rest.remove("--objects")) {
            return ObjectsDemo.run(out);
        }
        String transport = "shm";
        int t = rest.indexOf("--transport");
        if (t >= 0 && t + 1 < rest.size()) {
            transport = rest.get(t + 1);
        }
        if (!transport.equals("shm") && !transport.equals("tcp") && !transport.equals("tls")) {
            out.println("verbatim demo: --transport is shm, tcp or tls");
            return 2;
        }
        failures = 0;
        long start = System.nanoTime();
        out.println("Verbatim J-RPC demo: a server process and this client, over " + transport + "\n");
        boolean tls = transport.equals("tls");
        Path pki = tls ? Files.createTempDirectory("verbatim-demo-pki") : null;
        ConnectionOptions options = Node.DEFAULT_OPTIONS;
        if (tls) {
            long t0 = System.nanoTime();
            options = options.withTls(ThrowawayPki.create(pki).connector());
            out.printf("throwaway certificates (a CA, the server's and this client's, made with keytool in %.1f s): %s%n%n",
                    (System.nanoTime() - t0) / 1e9, pki);
        }
        String name = "demo-" + ProcessHandle.current().pid();
        Process server = startServer(name, pki);
        try (Node client = Node.create(options, 1)) {
            String[] ready = awaitReady(server, out);
            if (ready == null) {
                return 1;
            }
            String shm = ready[1];
            String tcp = ready[2];
            String address = transport.equals("shm") ? shm : tcp;
            tcpLabel = tls ? "Verbatim tcp + TLS (loopback)" : "Verbatim tcp (loopback)";
            out.println("server: pid " + server.pid() + ", listening at " + shm + " and " + tcp + "\n");
            steps(client, address, out);
            latency(client, shm, tcp, out);
        } catch (RuntimeException | Error e) {
            step(out, "the demo ran to its end", false, e.toString());
        } finally {
            server.getOutputStream().close(); // the server exits when its input closes
            if (!server.waitFor(10, TimeUnit.SECONDS)) {
                server.destroyForcibly();
                step(out, "the server exited cleanly", false, "it had to be killed");
            }
            if (pki != null) {
                deleteTree(pki);
            }
        }
        out.printf("%n%s in %.1f s%n", failures == 0 ? "all steps passed" : failures + " step(s) FAILED",
                (System.nanoTime() - start) / 1e9);
        return failures == 0 ? 0 : 1;
    }

    /** The server process; with {@code pki}, its tcp listener uses TLS with the certificates there. */
    private static Process startServer(String name, Path pki) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), DemoServer.class.getName(), "shm:" + name));
        if (pki != null) {
            cmd.add(pki.toString());
        }
        return new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    private static void deleteTree(Path dir) throws java.io.IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** How step 7 names the tcp row (with TLS or not). */
    private static String tcpLabel = "Verbatim tcp (loopback)";

    private static String[] awaitReady(Process server, PrintStream out) throws Exception {
        BufferedReader r = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<String> line = CompletableFuture.supplyAsync(() -> {
            try {
                return r.readLine();
            } catch (java.io.IOException e) {
                return null;
            }
        });
        String l;
        try {
            l = line.get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            l = null;
        }
        if (l == null || !l.startsWith("READY ")) {
            step(out, "the server started", false, "it said " + l);
            return null;
        }
        return l.split(" ");
    }

    /** How many times step 3 sends the book: once cold, then warm. */
    private static final int BOOK_CALLS = 100;

    private static void steps(Node client, String address, PrintStream out) throws Exception {
        Quotes quotes = client.lookup(address, "quotes", Quotes.class);
        quotes.ping();
        step(out, "1. lookup and a null call", true, "Quotes proxy bound to 'quotes' at " + address);

        Order order = new Order(42, "ACME", Side.BUY, 100, 101.5);
        Quote q = quotes.quote(order);
        step(out, "2. a record passed by copy, a record returned", q.symbol().equals("ACME") && q.bid() < q.ask(),
                order + " -> " + q);

        List<Order> orders = new ArrayList<>();
        long expected = 0;
        for (int i = 0; i < 40_000; i++) {
            Order o = new Order(i, i % 2 == 0 ? "ACME" : "INITECH", i % 3 == 0 ? Side.SELL : Side.BUY, 1 + i % 50, 100 + i % 9);
            orders.add(o);
            expected += o.quantity();
        }
        Book book = new Book("XNAS", orders);
        // the first call is cold (view, writer and validator code generated, then interpreted); the later
        // ones show what such a call costs once the JIT has compiled it
        long volume = 0;
        long first = 0;
        long fastest = Long.MAX_VALUE;
        boolean allRight = true;
        BookView view = asView(book);
        for (int i = 0; i < BOOK_CALLS; i++) {
            long t0 = System.nanoTime();
            volume = quotes.volume(view);
            long nanos = System.nanoTime() - t0;
            allRight &= volume == expected;
            first = i == 0 ? nanos : first;
            fastest = Math.min(fastest, nanos);
        }
        step(out, "3. a 40,000-order book (1.7 MB) as an accessor-interface view (read in place by the server)",
                allRight, String.format(java.util.Locale.ROOT, "volume %d; first call %,d µs (cold), fastest of %d: %,d µs",
                        volume, first / 1000, BOOK_CALLS, fastest / 1000));

        AtomicInteger received = new AtomicInteger();
        QuoteListener listener = quote -> received.incrementAndGet();
        int sent = quotes.subscribe(listener, 5);
        step(out, "4. a remote interface by reference: the server called back into this process",
                sent == 5 && received.get() == 5, received.get() + " quotes received through the listener");

        try {
            quotes.submit(new Order(7, "ACME", Side.SELL, 0, 99));
            step(out, "5. an exception crossing", false, "no exception");
        } catch (RejectedException e) {
            step(out, "5. an exception crossing", e.getMessage().contains("quantity must be positive"),
                    "RejectedException: " + e.getMessage());
        }

        quotes.upgrade();
        quotes.ping();
        QuotesV2 v2 = client.lookup(address, "quotes", QuotesV2.class);
        step(out, "6. an interface upgrade: the V1 proxy kept working, a refreshed V2 proxy sees the new method",
                v2.version().equals("2"), "QuotesV2.version() = " + v2.version());
    }

    /** The book, seen through the view interface (the server reads this structure in place). */
    private static BookView asView(Book book) {
        List<OrderView> views = new ArrayList<>(book.orders().size());
        for (Order o : book.orders()) {
            views.add(new OrderView() {
                public long id() { return o.id(); }
                public CharSequence symbol() { return o.symbol(); }
                public Side side() { return o.side(); }
                public int quantity() { return o.quantity(); }
                public double limit() { return o.limit(); }
            });
        }
        return new BookView() {
            public CharSequence venue() { return book.venue(); }
            public List<OrderView> orders() { return views; }
        };
    }

    private static void latency(Node client, String shm, String tcp, PrintStream out) throws Exception {
        Quotes overShm = client.lookup(shm, "quotes", Quotes.class);
        Quotes overTcp = client.lookup(tcp, "quotes", Quotes.class);
        long[] s = measure(overShm::ping, 20_000);
        long[] c = measure(overTcp::ping, 5_000);
        RmiLatency.Result rmi = RmiLatency.measure(3_000, 3_000); // its own server process, on loopback
        long[] r = {(long) rmi.p50Nanos(), (long) rmi.p99Nanos()};
        out.println("\n7. null-call round trip on this host (after warm-up; ns):");
        out.printf("   %-28s %10s %10s%n", "", "p50", "p99");
        out.printf("   %-28s %10d %10d%n", "Verbatim shm", s[0], s[1]);
        out.printf("   %-28s %10d %10d%n", tcpLabel, c[0], c[1]);
        out.printf("   %-28s %10d %10d%n", "Java RMI (loopback)", r[0], r[1]);
        out.printf("   Java RMI / Verbatim shm p50: %.0fx%n", (double) r[0] / s[0]);
        step(out, "7. latency measured over all three", s[0] > 0 && c[0] > 0 && r[0] > 0, "");
    }

    private static long[] measure(Runnable call, int n) {
        for (int i = 0; i < n; i++) {
            call.run(); // warm-up
        }
        long[] t = new long[n];
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            call.run();
            t[i] = System.nanoTime() - t0;
        }
        Arrays.sort(t);
        return new long[] {t[n / 2], t[(int) (n * 0.99)]};
    }

    private static void step(PrintStream out, String what, boolean ok, String detail) {
        if (!ok) {
            failures++;
        }
        out.println((ok ? "  ok    " : "  FAIL  ") + what + (detail.isEmpty() ? "" : "\n        " + detail));
    }
}
