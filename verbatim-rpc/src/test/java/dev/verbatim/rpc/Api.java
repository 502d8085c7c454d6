package dev.verbatim.rpc;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** The interfaces and types the RPC tests (and their child processes) use. */
public final class Api {
    private Api() {}

    public record Order(long id, String symbol, int quantity) {}

    public record Book(String venue, List<Order> orders) {}

    public interface OrderView {
        long id();

        CharSequence symbol();

        int quantity();
    }

    public interface BookView {
        CharSequence venue();

        List<OrderView> orders();
    }

    public static class CalcException extends Exception {
        private static final long serialVersionUID = 1L;

        public CalcException(String message) {
            super(message);
        }
    }

    /** A callback passed by reference. */
    public interface Counter extends Remote {
        int add(int x);
    }

    /** A callback reporting the thread it runs on. */
    public interface Probe extends Remote {
        long threadId();
    }

    /** A callback taking large arguments (traffic in both directions of one connection). */
    public interface Exchange extends Remote {
        long take(byte[] bytes);
    }

    /** An exchange that sums what it takes. */
    public static class ExchangeImpl implements Exchange {
        public final java.util.concurrent.atomic.AtomicLong calls = new java.util.concurrent.atomic.AtomicLong();

        public ExchangeImpl() {
        }

        @Override
        public long take(byte[] bytes) {
            calls.incrementAndGet();
            return checksum(bytes);
        }
    }

    /** What {@link Exchange#take} and {@link Calc#take} answer. */
    public static long checksum(byte[] bytes) {
        long s = bytes.length;
        for (int i = 0; i < bytes.length; i += 97) {
            s = s * 31 + bytes[i];
        }
        return s;
    }

    /** A callback with an asynchronous method. */
    public interface AsyncProbe extends Remote {
        CompletableFuture<Integer> twiceLater(int x);
    }

    public interface Calc {
        void nothing();

        /** A future the server never completes (unless cancelled). */
        CompletableFuture<Integer> never();

        /** The name of the server thread running this call (its dispatcher's names its connection). */
        String where();

        /** Calls {@code p} asynchronously and blocks on the future (on the thread running this call). */
        int joinOnCallBack(AsyncProbe p, int x);

        /** Calls {@code p} back from within this call (a nested call of the caller's chain). */
        long threadOfCallBack(Probe p);

        /** Calls {@code p} from another server thread (an unrelated call) while this call waits for it. */
        long threadOfUnrelatedCall(Probe p);

        /** Sleeps, then returns a new counter by reference. */
        Counter slowCounter(long millis);

        /** The total quantity of a book, computed later on another thread from the view. */
        CompletableFuture<Long> totalLater(BookView book, long millis);

        int add4(int a, int b, int c, int d);

        /** {@link Api#checksum} of the bytes. */
        long take(byte[] bytes);

        /** Keeps the book past the call ({@link Node#keep}); its index among the kept. */
        int keepBook(BookView book);

        /** Keeps the segment past the call; its index among the kept. */
        int keepSegment(MemorySegment bytes);

        /** Keeps the book from another thread, before the future completes; its total, read after the future completed. */
        CompletableFuture<Integer> keepLater(BookView book);

        /** The total quantity of a kept book, read now. */
        long keptTotal(int index);

        /** The sum of a kept segment's bytes, read now. */
        long keptSum(int index);

        /** Closes a kept argument, then reads its old view: what that threw ("none" if nothing). */
        String closeKept(int index);

        /** Tries to keep what cannot be kept (a record by copy, a view of a child): what that threw. */
        String keepWrong(Order order, BookView book);

        /** Starts {@code threads} server threads, each calling {@code back.take} {@code calls} times with {@code size} bytes. */
        void pound(Exchange back, int threads, int calls, int size);

        /** Waits for the threads {@link #pound} started: the calls they completed; throws what one of them failed with. */
        long pounded(long waitMillis);

        String echo(String s);

        Order twice(Order o);

        long totalQuantity(BookView book);

        long sum(MemorySegment bytes);

        byte[] reverse(byte[] bytes);

        int callBack(Counter c, int times);

        Counter same(Counter c);

        Counter counter();

        void fail(String message) throws CalcException;

        int boom(String message);

        CompletableFuture<Integer> later(int x);

        void sleep(long millis);

        void open(String path) throws java.io.IOException;
    }

    /**
     * Some of {@link Calc}'s methods with arrays and segments swapped: a client passing an array where the
     * export reads a segment in place ({@link Calc#sum}), and a segment where it takes a copy
     * ({@link Calc#take}, {@link Calc#reverse}).
     */
    public interface CalcBytes {
        long sum(byte[] bytes);

        long take(MemorySegment bytes);

        byte[] reverse(MemorySegment bytes);
    }

    /** An array view on its own (it is a field of a view): refused, with what to declare instead. */
    @SuppressWarnings("exports")
    public interface ArrayViewArgument {
        long sum(dev.verbatim.wire.ArrayView.OfByte bytes);
    }

    /** Two methods one name apart from being the same on the wire: cannot be a remote interface. */
    public interface ArrayOrSegment {
        long sum(byte[] bytes);

        long sum(MemorySegment bytes);
    }

    /** Version 2: one more method; version 1 clients keep working. */
    public interface Calc2 extends Calc {
        int version();
    }

    public static class CalcImpl implements Calc2 {
        public volatile int version = 2;
        /** The counter the last {@link #same} call received. */
        public volatile Counter lastSame;

        @Override
        public long threadOfCallBack(Probe p) {
            return p.threadId();
        }

        @Override
        public long threadOfUnrelatedCall(Probe p) {
            long[] r = {-1};
            Thread t = Thread.ofPlatform().start(() -> r[0] = p.threadId());
            try {
                t.join(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return r[0];
        }

        /** What {@link #never} returned last. */
        public volatile CompletableFuture<Integer> neverFuture;
        /** How many {@link #sleep}s were interrupted. */
        public final java.util.concurrent.atomic.AtomicInteger interrupted = new java.util.concurrent.atomic.AtomicInteger();

        @Override
        public CompletableFuture<Integer> never() {
            neverFuture = new CompletableFuture<>();
            return neverFuture;
        }

        @Override
        public String where() {
            return Thread.currentThread().getName();
        }

        @Override
        public int joinOnCallBack(AsyncProbe p, int x) {
            return p.twiceLater(x).join();
        }

        @Override
        public Counter slowCounter(long millis) {
            sleep(millis);
            return new CounterImpl();
        }

        /** What {@link #totalLater} waits for before it reads its view. */
        public volatile CompletableFuture<Void> gate = CompletableFuture.completedFuture(null);

        @Override
        public CompletableFuture<Long> totalLater(BookView book, long millis) {
            return gate.thenApplyAsync(v -> {
                sleep(millis);
                return totalQuantity(book);
            });
        }

        public CalcImpl() {
        }

        /** Arguments kept by {@link #keepBook}, {@link #keepSegment} and {@link #keepLater}, and their values. */
        public final java.util.List<Kept<?>> kept = new java.util.concurrent.CopyOnWriteArrayList<>();
        public final java.util.List<Object> keptValues = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public int keepBook(BookView book) {
            Kept<BookView> k = Node.keep(book);
            kept.add(k);
            keptValues.add(k.get());
            return kept.size() - 1;
        }

        @Override
        public int keepSegment(MemorySegment bytes) {
            Kept<MemorySegment> k = Node.keep(bytes);
            kept.add(k);
            keptValues.add(k.get());
            return kept.size() - 1;
        }

        @Override
        public CompletableFuture<Integer> keepLater(BookView book) {
            return CompletableFuture.supplyAsync(() -> keepBook(book));
        }

        @Override
        public long keptTotal(int index) {
            return totalQuantity((BookView) keptValues.get(index));
        }

        @Override
        public long keptSum(int index) {
            return sum((MemorySegment) keptValues.get(index));
        }

        @Override
        public String closeKept(int index) {
            kept.get(index).close();
            try {
                keptTotalOrSum(keptValues.get(index));
                return "none";
            } catch (RuntimeException e) {
                return e.getClass().getName();
            }
        }

        private long keptTotalOrSum(Object v) {
            return v instanceof MemorySegment m ? sum(m) : totalQuantity((BookView) v);
        }

        @Override
        public String keepWrong(Order order, BookView book) {
            StringBuilder b = new StringBuilder();
            for (Object o : new Object[] {order, book.orders(), book.orders().get(0)}) {
                try {
                    Node.keep(o);
                    b.append("kept;");
                } catch (IllegalArgumentException e) {
                    b.append("IllegalArgumentException;");
                }
            }
            return b.toString();
        }

        private final java.util.List<Thread> pounders = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final java.util.concurrent.atomic.AtomicLong poundedCalls = new java.util.concurrent.atomic.AtomicLong();
        private final java.util.concurrent.atomic.AtomicReference<Throwable> poundFailure = new java.util.concurrent.atomic.AtomicReference<>();

        @Override
        public long take(byte[] bytes) {
            return checksum(bytes);
        }

        @Override
        public void pound(Exchange back, int threads, int calls, int size) {
            for (int t = 0; t < threads; t++) {
                int seed = t;
                pounders.add(Thread.ofPlatform().daemon().name("pounder-" + t).start(() -> {
                    try {
                        for (int i = 0; i < calls; i++) {
                            byte[] b = new byte[i % 2 == 0 ? size : size / 4];
                            b[0] = (byte) (seed + i);
                            if (back.take(b) != checksum(b)) {
                                throw new IllegalStateException("a wrong answer to call " + i);
                            }
                            poundedCalls.incrementAndGet();
                        }
                    } catch (Throwable e) {
                        poundFailure.compareAndSet(null, e);
                    }
                }));
            }
        }

        @Override
        public long pounded(long waitMillis) {
            long until = System.currentTimeMillis() + waitMillis;
            for (Thread t : pounders) {
                try {
                    t.join(Math.max(1, until - System.currentTimeMillis()));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            Throwable f = poundFailure.get();
            if (f != null) {
                throw new IllegalStateException("a server thread's call failed: " + f, f);
            }
            return poundedCalls.get();
        }

        @Override
        public void nothing() {
        }

        @Override
        public int add4(int a, int b, int c, int d) {
            return a + b + c + d;
        }

        @Override
        public String echo(String s) {
            return s;
        }

        @Override
        public Order twice(Order o) {
            return new Order(o.id(), o.symbol() + o.symbol(), o.quantity() * 2);
        }

        @Override
        public long totalQuantity(BookView book) {
            long t = 0;
            for (OrderView o : book.orders()) {
                t += o.quantity();
            }
            return t;
        }

        @Override
        public long sum(MemorySegment bytes) {
            long s = 0;
            for (long i = 0; i < bytes.byteSize(); i++) {
                s += bytes.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i);
            }
            return s;
        }

        @Override
        public byte[] reverse(byte[] bytes) {
            byte[] r = new byte[bytes.length];
            for (int i = 0; i < bytes.length; i++) {
                r[i] = bytes[bytes.length - 1 - i];
            }
            return r;
        }

        @Override
        public int callBack(Counter c, int times) {
            int last = 0;
            for (int i = 0; i < times; i++) {
                last = c.add(1);
            }
            return last;
        }

        @Override
        public Counter same(Counter c) {
            lastSame = c;
            return c;
        }

        @Override
        public Counter counter() {
            return new CounterImpl();
        }

        @Override
        public void fail(String message) throws CalcException {
            throw new CalcException(message);
        }

        @Override
        public int boom(String message) {
            throw new IllegalStateException(message, new ArithmeticException("root cause"));
        }

        @Override
        public CompletableFuture<Integer> later(int x) {
            return CompletableFuture.supplyAsync(() -> x * 10);
        }

        @Override
        public void sleep(long millis) {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                interrupted.incrementAndGet();
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void open(String path) throws java.io.IOException {
            throw new java.io.FileNotFoundException(path + " (no such file)");
        }

        @Override
        public int version() {
            return version;
        }
    }

    public static class CounterImpl implements Counter {
        int value;

        public CounterImpl() {
        }

        @Override
        public synchronized int add(int x) {
            value += x;
            return value;
        }
    }

    /** Set by a test: the threads on which {@link Fragile}'s constructor throws an {@link Error} for the value 13. */
    public static volatile java.util.function.Predicate<Thread> fragileRefusesOn = t -> false;

    /** A record whose constructor throws an {@link Error} when told to: an error in the machinery reading a call. */
    public record Fragile(int value) {
        public Fragile {
            if (value == 13 && fragileRefusesOn.test(Thread.currentThread())) {
                throw new AssertionError("a fragile record refused " + value);
            }
        }
    }

    /** Takes a record by copy (its constructor runs where the call arrives). */
    public interface FragileSink extends Remote {
        int take(Fragile f);
    }

    /** Calls a sink back with a record, from inside the call (a nested call the waiting caller reads and runs). */
    public interface FragileCaller {
        int callBack(FragileSink sink, int value);

        int take(Fragile f);
    }
}
