package dev.verbatim.cli.soak;

import dev.verbatim.cli.soak.SoakApi.Batch;
import dev.verbatim.cli.soak.SoakApi.BatchView;
import dev.verbatim.cli.soak.SoakApi.Counter;
import dev.verbatim.cli.soak.SoakApi.Item;
import dev.verbatim.cli.soak.SoakApi.ItemView;
import dev.verbatim.cli.soak.SoakApi.Kind;
import dev.verbatim.cli.soak.SoakApi.Service;
import dev.verbatim.rpc.Node;
import dev.verbatim.rpc.RemoteException;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * One client process of {@code ./verbatim soak}: {@code threads} threads call the server's {@link Service} over shm
 * (even threads) and tcp (odd ones) with a mix of every kind of call, check every answer, and count: answered,
 * failed by {@link RemoteException.Reason}, timed out as asked (a {@code sleep} longer than the proxy's timeout),
 * <b>wrong</b> (an answer that is not the right one, or an exception that is not a typed one) and <b>lost</b> (a call
 * that neither returned nor failed within {@link #LOST_AFTER}: a proxy times out after {@link #TIMEOUT}). Once a
 * second it prints its counts as one {@code COUNTS} line; on {@code drop} (standard input) it closes its node, as a
 * dropped connection would, and makes a new one; on {@code stop}, or end of input, it prints {@code END} and exits.
 *
 * <p>{@code args}: shm address, tcp address, threads, seed.
 */
public final class SoakClient {
    /** Every proxy's call timeout. */
    static final Duration TIMEOUT = Duration.ofSeconds(3);
    /** A call that has not ended after this long is lost (its timeout plus a generous grace). */
    static final Duration LOST_AFTER = Duration.ofSeconds(8);

    private final String shm;
    private final String tcp;
    private final AtomicReference<Proxies> proxies = new AtomicReference<>();
    private final LongAdder answered = new LongAdder();
    private final LongAdder timedOutAsAsked = new LongAdder();
    private final LongAdder wrong = new LongAdder();
    private final AtomicLong lost = new AtomicLong();
    private final Map<String, LongAdder> failed = new ConcurrentHashMap<>();
    private final List<String> wrongSamples = new ArrayList<>();
    private final java.util.Set<String> failSamples = ConcurrentHashMap.newKeySet();
    private volatile boolean running = true;

    /** The node and the proxies of one connection generation. */
    private record Proxies(Node node, Service overShm, Service overTcp, Service shortShm, Service shortTcp) {
        static Proxies connect(String shm, String tcp) {
            Node node = Node.create();
            try {
                Service s = Node.withTimeout(node.lookup(shm, SoakApi.NAME, Service.class), TIMEOUT);
                Service t = Node.withTimeout(node.lookup(tcp, SoakApi.NAME, Service.class), TIMEOUT);
                return new Proxies(node, s, t, Node.withTimeout(s, Duration.ofMillis(100)),
                        Node.withTimeout(t, Duration.ofMillis(100)));
            } catch (RuntimeException e) {
                node.close();
                throw e;
            }
        }
    }

    private SoakClient(String shm, String tcp) {
        this.shm = shm;
        this.tcp = tcp;
    }

    public static void main(String[] args) throws Exception {
        SoakClient c = new SoakClient(args[0], args[1]);
        int threads = Integer.parseInt(args[2]);
        long seed = Long.parseLong(args[3]);
        c.proxies.set(c.connectRetrying());
        System.out.println("READY");
        System.out.flush();
        long[] started = new long[threads]; // 0: not in a call; else System.nanoTime() at its start
        boolean[] counted = new boolean[threads];
        List<Thread> callers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            SplittableRandom random = new SplittableRandom(seed * 1_000_003 + t);
            callers.add(Thread.ofPlatform().name("soak-caller-" + t).daemon().start(() -> c.callLoop(id, random, started)));
        }
        Thread.ofPlatform().name("soak-watch").daemon().start(() -> c.watch(started, counted));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null && !line.equals("stop"); ) {
            if (line.equals("drop")) c.drop();
        }
        c.running = false;
        for (Thread t : callers) t.join(LOST_AFTER.toMillis() + 2_000);
        c.print("END");
        c.proxies.get().node().close();
        System.out.flush();
        Runtime.getRuntime().halt(0); // not System.exit: a stuck caller must not keep the process
    }

    private Proxies connectRetrying() throws InterruptedException {
        RuntimeException last = null;
        for (int i = 0; i < 50; i++) {
            try {
                return Proxies.connect(shm, tcp);
            } catch (RuntimeException e) {
                last = e;
                Thread.sleep(100);
            }
        }
        throw last;
    }

    /**
     * Connects a new node, hands it to the callers, and closes the old one: its calls in flight fail with a typed
     * reason, as when a connection drops.
     */
    private void drop() throws InterruptedException {
        Proxies fresh = connectRetrying();
        proxies.getAndSet(fresh).node().close();
    }

    private void callLoop(int id, SplittableRandom random, long[] started) {
        long seq = 0;
        while (running) {
            Proxies p = proxies.get();
            boolean overShm = (id & 1) == 0;
            Service s = overShm ? p.overShm() : p.overTcp();
            int op = random.nextInt(100);
            seq++;
            synchronized (started) {
                started[id] = System.nanoTime();
            }
            try {
                String bad = call(op, s, overShm ? p.shortShm() : p.shortTcp(), p.node(), seq, random);
                if (bad == null) {
                    answered.increment();
                } else {
                    wrong(bad);
                }
            } catch (RemoteException e) {
                failed(e, op);
            } catch (java.util.concurrent.ExecutionException e) {
                if (e.getCause() instanceof RemoteException re) {
                    failed(re, op); // an asynchronous call's typed failure
                } else {
                    wrong("op " + op + " failed with " + e.getCause());
                }
            } catch (TimedOutAsAsked e) {
                timedOutAsAsked.increment();
            } catch (Throwable e) {
                wrong("op " + op + " threw " + e);
            } finally {
                synchronized (started) {
                    started[id] = 0;
                }
            }
        }
    }

    private void failed(RemoteException e, int op) {
        failed.computeIfAbsent(e.reason().name(), k -> new LongAdder()).increment();
        if (failSamples.size() < 6 && failSamples.add(e.reason() + " op " + op + ": " + e.getMessage())) {
            System.err.println("soak client: " + e.reason() + " op " + op + ": " + e);
        }
        if (e.reason() != RemoteException.Reason.TIMEOUT) pause(20); // as a program would before it retries
    }

    private static final class TimedOutAsAsked extends Exception {
        private static final long serialVersionUID = 1L;

        TimedOutAsAsked() {
            super(null, null, false, false);
        }
    }

    /** Makes one call of kind {@code op}; null if its answer is right, else what was wrong. */
    private static String call(int op, Service s, Service quick, Node node, long seq, SplittableRandom random)
            throws Exception {
        if (op < 30) {
            s.ping();
            return null;
        } else if (op < 50) {
            Item item = new Item(seq, "item-" + seq, (seq & 1) == 0 ? Kind.SMALL : Kind.LARGE, seq * 0.5,
                    List.of("a" + seq, "b", "c"));
            Item back = s.echo(item);
            return item.equals(back) ? null : "echo " + item + " came back as " + back;
        } else if (op < 62) {
            List<Item> items = new ArrayList<>();
            for (int i = 0; i < 10; i++) items.add(new Item(seq * 10 + i, "n" + i, Kind.SMALL, i, List.of()));
            Batch b = new Batch(seq, items);
            long t = s.total(asView(b));
            return t == SoakApi.expectedTotal(b) ? null : "total " + t + ", expected " + SoakApi.expectedTotal(b);
        } else if (op < 74) {
            int[] v = random.ints(2048).toArray();
            long expected = 0;
            for (int x : v) expected += x;
            long got = s.sum(v);
            return got == expected ? null : "sum " + got + ", expected " + expected;
        } else if (op < 77) {
            byte[] bytes = new byte[1 << 20];
            random.nextBytes(bytes);
            long got = s.crc(bytes);
            return got == SoakApi.crc(bytes) ? null : "crc of 1 MiB wrong";
        } else if (op < 85) {
            long[] tally = {0};
            Counter counter = x -> tally[0] += x;
            int n = 1 + random.nextInt(5);
            long last = s.callBack(counter, n);
            return last == (long) n * (n + 1) / 2 && tally[0] == last ? null : "callback answered " + last + ", tally " + tally[0];
        } else if (op < 97) {
            long x = random.nextLong(1 << 30);
            long got = s.square(x).get(LOST_AFTER.toMillis(), TimeUnit.MILLISECONDS);
            return got == x * x ? null : "square " + got + ", expected " + x * x;
        } else {
            try {
                quick.sleep(400); // the proxy times out after 100 ms
            } catch (RemoteException e) {
                if (e.reason() == RemoteException.Reason.TIMEOUT) throw new TimedOutAsAsked();
                throw e;
            }
            return "a 400 ms call returned through a proxy that times out after 100 ms";
        }
    }

    private static BatchView asView(Batch b) {
        List<ItemView> views = new ArrayList<>();
        for (Item i : b.items()) {
            views.add(new ItemView() {
                public long id() { return i.id(); }
                public CharSequence name() { return i.name(); }
                public double weight() { return i.weight(); }
            });
        }
        return new BatchView() {
            public long id() { return b.id(); }
            public List<ItemView> items() { return views; }
        };
    }

    private void wrong(String what) {
        wrong.increment();
        synchronized (wrongSamples) {
            if (wrongSamples.size() < 5) wrongSamples.add(what);
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Counts a call as lost once it has run longer than {@link #LOST_AFTER}; prints the counts once a second. */
    private void watch(long[] started, boolean[] counted) {
        while (true) {
            pause(1_000);
            long now = System.nanoTime();
            synchronized (started) {
                for (int i = 0; i < started.length; i++) {
                    if (started[i] == 0) {
                        counted[i] = false;
                    } else if (!counted[i] && now - started[i] > LOST_AFTER.toNanos()) {
                        counted[i] = true;
                        lost.incrementAndGet();
                    }
                }
            }
            print("COUNTS");
        }
    }

    private synchronized void print(String tag) {
        Map<String, Long> f = new TreeMap<>();
        failed.forEach((k, v) -> f.put(k, v.sum()));
        StringBuilder b = new StringBuilder(tag).append(" answered=").append(answered.sum())
                .append(" asked-timeouts=").append(timedOutAsAsked.sum()).append(" wrong=").append(wrong.sum())
                .append(" lost=").append(lost.get());
        f.forEach((k, v) -> b.append(" failed.").append(k).append('=').append(v));
        synchronized (wrongSamples) {
            for (String w : wrongSamples) b.append(" | wrong: ").append(w.replace('\n', ' '));
        }
        System.out.println(b);
        System.out.flush();
    }
}
