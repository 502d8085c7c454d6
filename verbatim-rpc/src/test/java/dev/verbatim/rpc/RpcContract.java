package dev.verbatim.rpc;

import dev.verbatim.rpc.Api.Book;
import dev.verbatim.rpc.Api.Calc;
import dev.verbatim.rpc.Api.CalcException;
import dev.verbatim.rpc.Api.CalcImpl;
import dev.verbatim.rpc.Api.Counter;
import dev.verbatim.rpc.Api.CounterImpl;
import dev.verbatim.rpc.Api.Order;
import dev.verbatim.transport.ConnectionOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** J-RPC's rules, run over each transport. */
@Timeout(60)
abstract class RpcContract {
    Node server;
    Node client;
    Calc calc;
    CalcImpl impl;

    abstract String address();

    /** The options of every node of the contract: {@link Node#DEFAULT_OPTIONS}, with TLS for the TLS run. */
    ConnectionOptions options() {
        return Node.DEFAULT_OPTIONS;
    }

    @BeforeEach
    void start() {
        server = Node.listen(options(), address());
        impl = new CalcImpl();
        server.export("calc", Calc.class, impl);
        client = Node.create(options(), 1);
        calc = client.lookup(server.addresses().getFirst(), "calc", Calc.class);
    }

    @AfterEach
    void stop() {
        client.close();
        server.close();
    }

    @Test
    void valuesAndRecordsGoByCopy() {
        calc.nothing();
        assertEquals(10, calc.add4(1, 2, 3, 4));
        assertEquals("héllo", calc.echo("héllo"));
        assertEquals(null, calc.echo(null));
        Order o = new Order(7, "AB", 3);
        Order t = calc.twice(o);
        assertEquals(new Order(7, "ABAB", 6), t);
        assertEquals(new Order(7, "AB", 3), o, "the caller's object is untouched");
    }

    @Test
    void graphsOfChangingSizeTravelWhole() {
        // A call claims space by the size the method's graphs took last time: growing past it, shrinking
        // below it and going beyond the one-pass limit must each still carry the whole graph.
        for (int n : new int[] {1, 2, 100, 90, 5_000, 40_000, 200_000, 3, 70_000, 1}) {
            String symbol = "x".repeat(n - 1) + (char) ('a' + n % 26);
            Order t = calc.twice(new Order(n, symbol, n));
            assertEquals(new Order(n, symbol + symbol, 2 * n), t, "a symbol of " + n + " chars");
        }
    }

    @Test
    void anAccessorInterfaceParameterIsAViewOfTheGraph() {
        List<Order> orders = new ArrayList<>();
        long expected = 0;
        for (int i = 0; i < 5000; i++) {
            orders.add(new Order(i, "S" + i, i % 17));
            expected += i % 17;
        }
        assertEquals(expected, calc.totalQuantity(view(new Book("XNYS", orders))));
    }

    /** A book as its accessor interface (what a sender holding records passes to a view parameter). */
    static Api.BookView view(Book book) {
        List<Api.OrderView> orders = book.orders().stream().<Api.OrderView>map(o -> new Api.OrderView() {
            public long id() { return o.id(); }
            public CharSequence symbol() { return o.symbol(); }
            public int quantity() { return o.quantity(); }
        }).toList();
        return new Api.BookView() {
            public CharSequence venue() { return book.venue(); }
            public List<Api.OrderView> orders() { return orders; }
        };
    }

    @Test
    void segmentsAndLargeArraysTravelWholeIncludingByOneSidedWrites() {
        for (int n : new int[] {0, 100, 8192, 300_000}) {
            byte[] b = new byte[n];
            long s = 0;
            for (int i = 0; i < n; i++) {
                b[i] = (byte) (i * 7);
                s += b[i];
            }
            assertEquals(s, calc.sum(MemorySegment.ofArray(b)), "sum of " + n);
            byte[] r = calc.reverse(b);
            for (int i = 0; i < n; i++) {
                if (r[i] != b[n - 1 - i]) {
                    throw new AssertionError("reverse of " + n + " differs at " + i);
                }
            }
        }
    }

    @Test
    void anArrayAndASegmentAreTheSameParameter() {
        Api.CalcBytes bytes = client.lookup(server.addresses().getFirst(), "calc", Api.CalcBytes.class);
        for (int n : new int[] {0, 1, 100, 8191, 8192, 300_000}) {
            byte[] b = new byte[n];
            long s = 0;
            for (int i = 0; i < n; i++) {
                b[i] = (byte) (i * 13 + n);
                s += b[i];
            }
            assertEquals(s, bytes.sum(b), "an array of " + n + " read in place as a segment");
            assertEquals(Api.checksum(b), bytes.take(MemorySegment.ofArray(b)), "a segment of " + n + " taken as an array");
            MemorySegment off = java.lang.foreign.Arena.ofAuto().allocate(Math.max(1, n)).asSlice(0, n);
            off.copyFrom(MemorySegment.ofArray(b));
            byte[] r = bytes.reverse(off);
            assertEquals(n, r.length);
            for (int i = 0; i < n; i++) {
                if (r[i] != b[n - 1 - i]) {
                    throw new AssertionError("reverse of " + n + " differs at " + i);
                }
            }
        }
        RemoteException e = assertThrows(RemoteException.class,
                () -> client.lookup(server.addresses().getFirst(), "calc", Api.ArrayOrSegment.class));
        assertTrue(e.getMessage().contains("cannot be told apart"), e.getMessage());
        // an ArrayView.OfByte describes as byte[] too, but is read from a wire graph: refused on its own
        RemoteException v = assertThrows(RemoteException.class,
                () -> client.lookup(server.addresses().getFirst(), "calc", Api.ArrayViewArgument.class));
        assertEquals(RemoteException.Reason.ARGUMENT, v.reason());
        assertTrue(v.getMessage().contains("MemorySegment for bytes read in place"), v.getMessage());
    }

    @Test
    void remoteInterfacesGoByReferenceAndComeBackAsThemselves() throws Exception {
        CounterImpl mine = new CounterImpl();
        assertEquals(5, calc.callBack(mine, 5), "the server called back into this process 5 times");
        assertEquals(5, mine.value);
        assertSame(mine, calc.same(mine), "a reference returning to its exporter is the original object");
        Counter theirs = calc.counter();
        assertInstanceOf(Counter.class, theirs);
        assertEquals(1, theirs.add(1));
        assertEquals(3, theirs.add(2), "the proxy calls the one object on the server");
        assertEquals(1, server.exportedObjects(), "the server holds the counter it passed");
        Node.release(theirs);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (server.exportedObjects() != 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(0, server.exportedObjects(), "released references empty the exporter's table");
        assertThrows(RemoteException.class, () -> theirs.add(1));
    }

    @Test
    void twoPeersCallingEachOtherWithFullWindowsKeepGoing() throws Exception {
        // Both ends of one connection call the other at once with arguments that fill the small receive
        // windows (some by one-sided writes, some inline): a side waiting for window space must never keep
        // the other from draining its own (a short send timeout turns such a stall into a failure).
        ConnectionOptions small = options().withAreas(2, 64 * 1024).withSendTimeout(Duration.ofSeconds(4));
        int threads = 4; // 3 x 300 x 20 KB did not stall before the fix; this did, every time (4 s send timeout)
        int calls = 400;
        int size = 30_000;
        try (Node s = Node.listen(small, address()); Node c = Node.create(small, 1)) {
            CalcImpl i = new CalcImpl();
            s.export("calc", Calc.class, i);
            Calc far = c.lookup(s.addresses().getFirst(), "calc", Calc.class);
            Api.ExchangeImpl mine = new Api.ExchangeImpl();
            far.pound(mine, threads, calls, size);
            List<CompletableFuture<Void>> ours = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int seed = t;
                ours.add(CompletableFuture.runAsync(() -> {
                    for (int k = 0; k < calls; k++) {
                        byte[] b = new byte[k % 2 == 0 ? size : size / 4];
                        b[0] = (byte) (seed + k);
                        assertEquals(Api.checksum(b), far.take(b));
                    }
                }, r -> Thread.ofPlatform().daemon().start(r)));
            }
            for (CompletableFuture<Void> f : ours) {
                f.get(50, java.util.concurrent.TimeUnit.SECONDS);
            }
            assertEquals((long) threads * calls, far.pounded(50_000), "every call of the server's threads completed");
            assertEquals((long) threads * calls, mine.calls.get());
        }
    }

    static Book book(String venue, int orders, int quantity) {
        List<Order> list = new ArrayList<>();
        for (int i = 0; i < orders; i++) {
            list.add(new Order(i, venue + i, quantity + i % 3));
        }
        return new Book(venue, list);
    }

    static long total(Book b) {
        return b.orders().stream().mapToLong(Order::quantity).sum();
    }

    static long sum(byte[] b) {
        long s = 0;
        for (byte x : b) {
            s += x;
        }
        return s;
    }

    @Test
    void aKeptViewOrSegmentOutlivesItsCallWhileLaterCallsReuseTheMemory() {
        long before = Node.keptBytes();
        Book kept = book("KEPT", 300, 7);
        int k = calc.keepBook(view(kept));
        byte[] large = new byte[50_000]; // a region written ahead of the call
        byte[] small = new byte[100];
        for (int i = 0; i < large.length; i++) {
            large[i] = (byte) (i * 13);
        }
        for (int i = 0; i < small.length; i++) {
            small[i] = (byte) (i + 1);
        }
        int kl = calc.keepSegment(MemorySegment.ofArray(large));
        int ks = calc.keepSegment(MemorySegment.ofArray(small));
        assertTrue(Node.keptBytes() - before >= large.length + small.length, "the kept copies are counted");
        Book other = book("OTHR", 300, 1000);
        byte[] noise = new byte[50_000];
        java.util.Arrays.fill(noise, (byte) 99);
        for (int i = 0; i < 400; i++) { // traffic that reuses every receive area many times over
            assertEquals(total(other), calc.totalQuantity(view(other)));
            assertEquals(sum(noise), calc.sum(MemorySegment.ofArray(noise)));
        }
        assertEquals(total(kept), calc.keptTotal(k), "the kept view reads its own call's book");
        assertEquals(sum(large), calc.keptSum(kl));
        assertEquals(sum(small), calc.keptSum(ks));
        assertEquals("java.lang.IllegalStateException", calc.closeKept(k), "a closed view throws, never reads other bytes");
        assertEquals("java.lang.IllegalStateException", calc.closeKept(kl));
        assertEquals("java.lang.IllegalStateException", calc.closeKept(ks));
        assertThrows(IllegalStateException.class, () -> impl.kept.get(k).get());
        assertEquals(before, Node.keptBytes(), "closing freed every kept copy");
        assertEquals("IllegalArgumentException;IllegalArgumentException;IllegalArgumentException;",
                calc.keepWrong(new Order(1, "A", 1), view(kept)), "only the view or segment argument itself can be kept");
        assertThrows(IllegalArgumentException.class, () -> Node.keep(view(kept)), "nor anything outside a call");
    }

    @Test
    void keepingMoreThanTheReceiveWindowHoldsNeverStallsTheConnection() throws Exception {
        // 2 x 64 KiB of receive memory, a 2 s send timeout; 40 kept books of ~9 KB each hold none of it
        ConnectionOptions small = options().withAreas(2, 64 * 1024).withSendTimeout(Duration.ofSeconds(2));
        long before = Node.keptBytes();
        try (Node s = Node.listen(small, address()); Node c = Node.create(small, 1)) {
            CalcImpl i = new CalcImpl();
            s.export("calc", Calc.class, i);
            Calc far = c.lookup(s.addresses().getFirst(), "calc", Calc.class);
            List<Book> books = new ArrayList<>();
            for (int n = 0; n < 40; n++) {
                Book b = book("B" + n, 400, n);
                books.add(b);
                assertEquals(n, far.keepBook(view(b)));
                assertEquals(10, far.add4(1, 2, 3, 4));
            }
            assertTrue(Node.keptBytes() - before > 2 * 64 * 1024, "more is kept than the window holds: "
                    + (Node.keptBytes() - before));
            assertEquals(40, far.keepLater(view(book("LATE", 10, 5))).get(10, java.util.concurrent.TimeUnit.SECONDS),
                    "an asynchronous method keeps its view from another thread");
            for (int n = 0; n < 40; n++) {
                assertEquals(total(books.get(n)), far.keptTotal(n), "kept book " + n);
            }
            assertEquals(total(book("LATE", 10, 5)), far.keptTotal(40));
            // dropped unclosed: the garbage collector frees them
            i.kept.clear();
            i.keptValues.clear();
            long deadline = System.nanoTime() + 20_000_000_000L;
            while (Node.keptBytes() != before && System.nanoTime() < deadline) {
                System.gc();
                Thread.sleep(20);
            }
            assertEquals(before, Node.keptBytes(), "the garbage collector freed the kept copies nobody closed");
        }
    }

    @Test
    void exceptionsCrossWithMessageAndCauseFromAnExportThatSendsDetails() {
        server.export("detailed", Calc.class, new CalcImpl(), ExportOptions.INLINE.withErrorDetails(true));
        Calc detailed = client.lookup(server.addresses().getFirst(), "detailed", Calc.class);
        CalcException e = assertThrows(CalcException.class, () -> detailed.fail("no funds"));
        assertEquals("no funds", e.getMessage());
        IllegalStateException ise = assertThrows(IllegalStateException.class, () -> detailed.boom("bad state"));
        assertEquals("bad state", ise.getMessage());
        assertInstanceOf(ArithmeticException.class, ise.getCause());
        assertEquals("root cause", ise.getCause().getMessage());
    }

    @Test
    void byDefaultAnUndeclaredExceptionKeepsItsMessageAndCauseOnTheServer() {
        CalcException e = assertThrows(CalcException.class, () -> calc.fail("no funds"));
        assertEquals("no funds", e.getMessage(), "a declared exception says what the caller's contract needs");
        IllegalStateException ise = assertThrows(IllegalStateException.class, () -> calc.boom("bad state"));
        assertFalse(ise.getMessage().contains("bad state"), ise.getMessage());
        assertNull(ise.getCause(), "no cause, no class name of the implementation");
    }

    @Test
    void asyncCallsTimeoutsAndManyThreads() throws Exception {
        assertEquals(70, calc.later(7).get());
        Calc quick = Node.withTimeout(calc, Duration.ofMillis(200));
        RemoteException t = assertThrows(RemoteException.class, () -> quick.sleep(2000));
        assertEquals(RemoteException.Reason.TIMEOUT, t.reason());
        assertEquals(10, calc.add4(1, 2, 3, 4), "the connection works after a timeout");
        List<CompletableFuture<Void>> threads = new ArrayList<>();
        for (int k = 0; k < 4; k++) {
            int base = k * 1000;
            threads.add(CompletableFuture.runAsync(() -> {
                for (int i = 0; i < 500; i++) {
                    assertEquals(base + i + 6, calc.add4(base + i, 1, 2, 3), "no crossed replies");
                }
            }));
        }
        for (CompletableFuture<Void> f : threads) {
            f.get();
        }
    }

    /**
     * Many callers at once on one proxy (issue 18 §2): more threads than CPUs (followers park rather than spin,
     * calls and replies leave several to a write) and asynchronous calls in flight beside them; every answer
     * is the one to its own call, none lost, none twice.
     */
    @Test
    void manyThreadsAndAsyncCallsInFlightEachGetTheirOwnAnswer() throws Exception {
        int threadCount = 24;
        int perThread = 300;
        List<Thread> threads = new ArrayList<>();
        java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicInteger answered = new java.util.concurrent.atomic.AtomicInteger();
        for (int k = 0; k < threadCount; k++) {
            int base = k * 100_000;
            threads.add(Thread.ofPlatform().daemon().start(() -> {
                try {
                    for (int i = 0; i < perThread; i++) {
                        int got = calc.add4(base + i, 1, 2, 3);
                        if (got != base + i + 6) {
                            throw new AssertionError("a crossed reply: " + got + " for " + (base + i));
                        }
                        answered.incrementAndGet();
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            }));
        }
        int inFlight = 500;
        List<CompletableFuture<Integer>> futures = new ArrayList<>();
        for (int i = 0; i < inFlight; i++) {
            futures.add(calc.later(i));
        }
        int[] seen = new int[inFlight];
        for (int i = 0; i < inFlight; i++) {
            int got = futures.get(i).get(30, java.util.concurrent.TimeUnit.SECONDS);
            assertEquals(i * 10, got, "the future of call " + i + " has another call's answer");
            seen[i]++;
        }
        for (Thread t : threads) {
            t.join(30_000);
            assertFalse(t.isAlive(), "a caller did not finish within 30 s");
        }
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        assertEquals(threadCount * perThread, answered.get(), "every synchronous call answered once");
        for (int n : seen) {
            assertEquals(1, n);
        }
    }

    @Test
    void versioningByInterfaceInheritance() {
        RemoteException old = assertThrows(RemoteException.class,
                () -> client.lookup(server.addresses().getFirst(), "calc", Api.Calc2.class));
        assertEquals(RemoteException.Reason.INCOMPATIBLE, old.reason(), "V1 is exported: a V2 client cannot bind");
        assertTrue(old.getMessage().contains("version()int"), "the message names the missing method: " + old.getMessage());
        server.rebind("calc", Api.Calc2.class, impl); // upgrade the interface under the name
        assertEquals(10, calc.add4(1, 2, 3, 4), "the V1 proxy keeps working without rebinding");
        Api.Calc2 v2 = client.lookup(server.addresses().getFirst(), "calc", Api.Calc2.class);
        assertEquals(2, v2.version());
        CalcImpl replacement = new CalcImpl();
        replacement.version = 3;
        server.rebind("calc", replacement);
        assertEquals(3, v2.version(), "a rebind swaps the implementation under bound clients");
        assertEquals(10, calc.add4(1, 2, 3, 4), "the V1 proxy keeps working");
        RemoteException e = assertThrows(RemoteException.class,
                () -> client.lookup(server.addresses().getFirst(), "calc", Incompatible.class));
        assertEquals(RemoteException.Reason.INCOMPATIBLE, e.reason());
        assertEquals(RemoteException.Reason.NOT_FOUND, assertThrows(RemoteException.class,
                () -> client.lookup(server.addresses().getFirst(), "nothing", Calc.class)).reason());
    }

    public interface Incompatible {
        int add4(int a, int b, int c, long d);
    }

    @Test
    void aSubclassOfADeclaredExceptionArrivesAsTheDeclaredType() {
        java.io.IOException e = assertThrows(java.io.IOException.class, () -> calc.open("/nope"));
        assertTrue(e.getMessage().contains("java.io.FileNotFoundException") && e.getMessage().contains("/nope"),
                e.getMessage());
    }

    @Test
    void anInterruptedCallerStopsWaiting() throws Exception {
        CompletableFuture<RemoteException.Reason> outcome = new CompletableFuture<>();
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                calc.sleep(3000);
                outcome.complete(null);
            } catch (RemoteException e) {
                outcome.complete(e.reason());
            }
        });
        Thread.sleep(300);
        t.interrupt();
        assertEquals(RemoteException.Reason.CANCELLED, outcome.get(10, java.util.concurrent.TimeUnit.SECONDS));
        t.join(5000);
    }

    @Test
    void aTimeoutCopyKeepsTheObjectItCalls() throws Exception {
        Counter quick = Node.withTimeout(calc.counter(), Duration.ofSeconds(5)); // the original proxy is garbage at once
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(50);
        }
        assertEquals(1, quick.add(1), "the object lives while a copy of its proxy does");
        assertEquals(1, server.exportedObjects());
    }

    @Test
    void aProxyTheGarbageCollectorDropsReleasesItsObject() throws Exception {
        Counter counter = calc.counter();
        assertEquals(1, counter.add(1));
        assertEquals(1, server.exportedObjects());
        // kept reachable until here: a collection between the call and the count would release it early
        Reference.reachabilityFence(counter);
        counter = null;
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (server.exportedObjects() != 0 && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(50);
        }
        assertEquals(0, server.exportedObjects(), "the cleaner of the dropped proxy released the server's object");
        CounterImpl mine = new CounterImpl();
        assertEquals(1, calc.callBack(mine, 1));
        deadline = System.nanoTime() + 20_000_000_000L;
        while (client.exportedObjects() != 0 && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(50);
        }
        assertEquals(0, client.exportedObjects(), "the server dropped its proxy of our counter: we forgot it too");
    }

    @Test
    void aProxyImplementsOnlyItsInterface() {
        assertTrue(calc instanceof Calc);
        assertTrue(!(calc instanceof Api.Calc2), "exactly the interface looked up");
        assertNotSame(impl, calc);
    }

    @Test
    void unexportedNamesFailClearly() {
        server.unexport("calc");
        RemoteException e = assertThrows(RemoteException.class, calc::nothing);
        assertEquals(RemoteException.Reason.NOT_FOUND, e.reason());
        CounterImpl mine = new CounterImpl();
        assertEquals(RemoteException.Reason.NOT_FOUND, assertThrows(RemoteException.class, () -> calc.callBack(mine, 1)).reason());
        assertEquals(0, client.exportedObjects(), "the references of a rejected call were given back");
    }

    @Test
    void closingTheServerFailsCallsInsteadOfHanging() throws ExecutionException, InterruptedException {
        server.close();
        RemoteException e = assertThrows(RemoteException.class, () -> calc.add4(1, 2, 3, 4));
        assertTrue(e.reason() == RemoteException.Reason.CONNECTION || e.reason() == RemoteException.Reason.NOT_SENT,
                e.getMessage());
    }

    @Test
    void aNestedCallRunsOnTheWaitingCallersThreadEvenWhenAnotherThreadReads() throws Exception {
        Object lock = new Object();
        Api.Probe probe = () -> {
            synchronized (lock) { // held by the caller: a local call would re-enter it, so must this one
                return Thread.currentThread().threadId();
            }
        };
        // another thread of this process waits in a long call (run on a virtual thread at the server, so
        // the server's dispatcher stays free): it leads the reading, so it reads the nested call below
        server.export("slow", Calc.class, impl, ExportOptions.VIRTUAL_THREADS);
        Calc slow = client.lookup(server.addresses().getFirst(), "slow", Calc.class);
        CompletableFuture<Void> reader = CompletableFuture.runAsync(() -> slow.sleep(1500));
        Thread.sleep(300);
        long caller;
        long ran;
        synchronized (lock) {
            caller = Thread.currentThread().threadId();
            ran = calc.threadOfCallBack(probe);
        }
        assertEquals(caller, ran, "the callback of this thread's call ran on this thread (J-RPC's delegate threads)");
        reader.get(10, java.util.concurrent.TimeUnit.SECONDS);
    }

    @Test
    void anUnrelatedCallNeverRunsOnAWaitingCaller() {
        Api.Probe probe = () -> Thread.currentThread().threadId();
        for (int i = 0; i < 3; i++) {
            long ran = calc.threadOfUnrelatedCall(probe); // this thread waits, and reads, while the call comes
            assertTrue(ran != -1, "the unrelated call ran");
            assertTrue(ran != Thread.currentThread().threadId(), "an unrelated call did not run on the waiting caller");
        }
    }

    @Test
    void aNamedExportsProxyPassedBackIsTheOriginal() {
        CounterImpl original = new CounterImpl();
        server.export("counter", Counter.class, original);
        Counter proxy = client.lookup(server.addresses().getFirst(), "counter", Counter.class);
        calc.same(proxy);
        assertSame(original, impl.lastSame, "the exporter received its own object, not a proxy of a proxy");
        assertEquals(0, client.exportedObjects(), "nothing of the client's was exported for it");
    }

    @Test
    void aLateReplyGivesBackTheReferencesItCarried() throws Exception {
        Calc quick = Node.withTimeout(calc, Duration.ofMillis(100));
        assertEquals(RemoteException.Reason.TIMEOUT,
                assertThrows(RemoteException.class, () -> quick.slowCounter(400)).reason());
        long deadline = System.nanoTime() + 10_000_000_000L;
        boolean passed = false;
        while (System.nanoTime() < deadline) {
            calc.nothing(); // reads the late reply
            if (passed && server.exportedObjects() == 0) {
                break;
            }
            passed |= server.exportedObjects() > 0 || System.nanoTime() > deadline - 9_000_000_000L;
            Thread.sleep(20);
        }
        assertEquals(0, server.exportedObjects(), "the counter in the dropped reply was released");
    }

    @Test
    void anAsynchronousMethodReadsItsViewUntilItsFutureCompletes() throws Exception {
        List<Order> orders = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            orders.add(new Order(i, "S" + i, i + 1));
        }
        long expected = 200 * 201 / 2;
        impl.gate = new CompletableFuture<>();
        CompletableFuture<Long> later = calc.totalLater(view(new Book("XNAS", orders)), 0);
        List<Order> other = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            other.add(new Order(i, "T" + i, 1000));
        }
        for (int i = 0; i < 2000; i++) { // traffic that would reuse the call's receive area were it given back
            calc.totalQuantity(view(new Book("OTHR", other)));
        }
        impl.gate.complete(null); // only now does the method read its view
        assertEquals(expected, later.get(20, java.util.concurrent.TimeUnit.SECONDS));
    }

    @Test
    void aCallMayBlockOnAnAsynchronousCallOfItsOwn() {
        Api.AsyncProbe probe = x -> CompletableFuture.completedFuture(2 * x);
        for (int i = 0; i < 20; i++) {
            assertEquals(2 * i, calc.joinOnCallBack(probe, i),
                    "the server's dispatcher, blocked on the future, read the reply itself");
        }
    }

    @Test
    void aProxyCanSpreadItsThreadsOverSeveralConnections() throws Exception {
        assertThrows(IllegalArgumentException.class, () -> Node.create(options(), 0));
        try (Node many = Node.create(options(), 3)) {
            Calc c = many.lookup(server.addresses().getFirst(), "calc", Calc.class);
            assertEquals(3, many.connections(), "three connections to the one address");
            java.util.Set<String> servedBy = java.util.concurrent.ConcurrentHashMap.newKeySet();
            List<CompletableFuture<Void>> threads = new ArrayList<>();
            for (int k = 0; k < 9; k++) {
                int base = k * 1000;
                threads.add(CompletableFuture.runAsync(() -> {
                    for (int i = 0; i < 200; i++) {
                        assertEquals(base + i + 6, c.add4(base + i, 1, 2, 3), "no crossed replies");
                    }
                    servedBy.add(c.where());
                    CounterImpl mine = new CounterImpl();
                    assertEquals(3, c.callBack(mine, 3), "callbacks come back over the caller's connection");
                }, r -> Thread.ofPlatform().start(r)));
            }
            for (CompletableFuture<Void> f : threads) {
                f.get(30, java.util.concurrent.TimeUnit.SECONDS);
            }
            assertTrue(servedBy.size() >= 2, "the calls went over several connections: " + servedBy);
            assertEquals(3, many.lookup(server.addresses().getFirst(), "calc", Calc.class) != null ? many.connections() : -1,
                    "a second lookup shares the connections");
        }
    }

    @Test
    void anAsynchronousCallTimesOutInTimeAfterTheConnectionWasIdle() throws Exception {
        CompletableFuture<Integer> first = calc.later(1); // the client's dispatcher runs from now on
        first.get(10, java.util.concurrent.TimeUnit.SECONDS);
        Thread.sleep(1500); // idle: both dispatchers sleep long in the transport
        Calc quick = Node.withTimeout(calc, Duration.ofMillis(200));
        long t0 = System.nanoTime();
        CompletableFuture<Integer> f = quick.never(); // only the dispatcher times it out: it must be woken for it
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> f.get(8, java.util.concurrent.TimeUnit.SECONDS), "the call timed out, within 8 s at least");
        assertEquals(RemoteException.Reason.TIMEOUT, assertInstanceOf(RemoteException.class, e.getCause()).reason());
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms < 3000, "a 200 ms timeout fired after " + ms + " ms");
    }

    @Test
    void cancellingOrTimingOutReachesTheServer() throws Exception {
        server.export("slow", Calc.class, impl, ExportOptions.VIRTUAL_THREADS);
        Calc slow = Node.withTimeout(client.lookup(server.addresses().getFirst(), "slow", Calc.class), Duration.ofMillis(300));
        assertEquals(RemoteException.Reason.TIMEOUT, assertThrows(RemoteException.class, () -> slow.sleep(60_000)).reason());
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (impl.interrupted.get() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(1, impl.interrupted.get(), "the timed-out call's virtual thread was interrupted at the server");
        CompletableFuture<Integer> f = calc.never();
        deadline = System.nanoTime() + 10_000_000_000L;
        while (impl.neverFuture == null && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertTrue(f.cancel(true));
        RemoteException e = assertThrows(RemoteException.class, () -> {
            try {
                f.join();
            } catch (java.util.concurrent.CompletionException c) {
                throw c.getCause();
            }
        });
        assertEquals(RemoteException.Reason.CANCELLED, e.reason());
        while (!impl.neverFuture.isCancelled() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertTrue(impl.neverFuture.isCancelled(), "the server's future was cancelled");
        assertEquals(10, calc.add4(1, 2, 3, 4), "the connection goes on");
        assertEquals(10, slow.add4(1, 2, 3, 4), "and so does the virtual-thread export");
    }
}
