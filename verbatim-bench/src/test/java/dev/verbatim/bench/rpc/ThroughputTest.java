package dev.verbatim.bench.rpc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A throughput turn ({@link Throughput}) with made-up calls, no processes: C callers really are in calls at
 * once (a latch that opens only when C are inside) and all exist before the first call, never more than C
 * asynchronous calls are in flight, every call has its own sequence number, the figure counts the window's
 * calls, and a wrong result fails the turn.
 * No timing in the assertions.
 */
@Timeout(60)
class ThroughputTest {
    static final RpcCase C16 = RpcCase.THROUGHPUT_16;

    @Test
    void sixteenThreadsAreInCallsAtOnceAndEveryCallHasItsOwnSequenceNumber() throws Exception {
        CountDownLatch allInside = new CountDownLatch(C16.callers());
        Set<Long> seqs = ConcurrentHashMap.newKeySet();
        AtomicLong made = new AtomicLong();
        RpcContender.Call call = seq -> {
            allInside.countDown();
            if (!allInside.await(20, TimeUnit.SECONDS)) { // opens only when 16 callers are inside at once
                throw new IllegalStateException("fewer than 16 callers at once");
            }
            assertTrue(seqs.add(seq), "sequence number " + seq + " twice");
            made.incrementAndGet();
            return 0;
        };
        AtomicLong seq = new AtomicLong(100);
        Throughput.Load load = Throughput.threads(call, C16, C16.callers(), 20, 50, seq);
        assertEquals(made.get(), seqs.size());
        assertEquals(100 + made.get(), seq.get(), "the shared sequence moved on by the calls made");
        assertTrue(load.calls() > 0 && load.calls() <= made.get(), load + " of " + made.get());
        assertEquals(load.calls(), load.h().count(), "a round trip recorded per counted call");
        assertTrue(load.nanos() > 0 && load.perSecond() > 0, load.toString());
    }

    @Test
    void aTurnWarmsUpUntilItMadeItsWarmUpCallsNotOnlyForItsTime() throws Exception {
        // a contender whose first case is a throughput one warms its paths up here: 1 ms of calls of ~50 µs is a
        // few dozen calls, and the turn must go on warming until 2,000 were made before its window opens
        RpcCase c1 = RpcCase.THROUGHPUT_1;
        Throughput.Warm warm = new Throughput.Warm(1, 2_000, 30_000);
        AtomicLong made = new AtomicLong();
        RpcContender.Call slow = seq -> {
            java.util.concurrent.locks.LockSupport.parkNanos(50_000);
            made.incrementAndGet();
            return 0;
        };
        Throughput.Load load = Throughput.threads(slow, c1, c1.callers(), warm, 20, new AtomicLong());
        assertTrue(made.get() - load.calls() >= warm.calls(), "made " + made.get() + ", " + load.calls() + " in the window");
        made.set(0);
        RpcContender.AsyncCall async = seq -> CompletableFuture.supplyAsync(() -> {
            java.util.concurrent.locks.LockSupport.parkNanos(50_000);
            made.incrementAndGet();
            return 0L;
        });
        load = Throughput.async(async, c1, c1.callers(), warm, 20, new AtomicLong());
        assertTrue(made.get() - load.calls() >= warm.calls(), "async: made " + made.get() + ", " + load.calls() + " in the window");
    }

    @Test
    void twoHundredFiftySixCallerThreadsAllExistBeforeTheFirstCall() throws Exception {
        // started one by one while the first ones already called, the last ones started seconds late on 2 CPUs
        RpcCase c256 = RpcCase.THROUGHPUT_256;
        AtomicInteger atFirstCall = new AtomicInteger(-1);
        RpcContender.Call call = seq -> {
            if (atFirstCall.get() < 0) {
                int callers = (int) Thread.getAllStackTraces().keySet().stream()
                        .filter(t -> t.getName().startsWith("caller-") && t.isAlive()).count();
                atFirstCall.compareAndSet(-1, callers);
            }
            return 0;
        };
        Throughput.threads(call, c256, c256.callers(), 20, 20, new AtomicLong());
        assertEquals(c256.callers(), atFirstCall.get(), "caller threads alive at the first call");
    }

    @Test
    void asyncCallsKeepSixteenInFlightAndNeverMore() throws Exception {
        ConcurrentLinkedQueue<CompletableFuture<Long>> pending = new ConcurrentLinkedQueue<>();
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        RpcContender.AsyncCall call = seq -> {
            CompletableFuture<Long> f = new CompletableFuture<>();
            most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            pending.add(f);
            return f;
        };
        AtomicInteger sawSixteen = new AtomicInteger();
        Thread server = Thread.ofPlatform().daemon().start(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                if (inFlight.get() == C16.callers()) {
                    sawSixteen.incrementAndGet(); // the caller is blocked on its 17th: answer them all
                }
                for (CompletableFuture<Long> f; (f = pending.poll()) != null; ) {
                    inFlight.decrementAndGet();
                    f.complete(0L);
                }
                Thread.onSpinWait();
            }
        });
        try {
            Throughput.Load load = Throughput.async(call, C16, C16.callers(), 20, 50, new AtomicLong());
            assertTrue(load.calls() > 0, load.toString());
            assertEquals(load.calls(), load.h().count());
        } finally {
            server.interrupt();
            server.join();
        }
        assertEquals(C16.callers(), most.get(), "the most calls in flight at once");
        assertTrue(sawSixteen.get() > 0, "never 16 in flight");
    }

    @Test
    void aWrongResultFailsTheTurn() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> Throughput.threads(seq -> seq == 50 ? 7 : 0, C16, C16.callers(), 20, 50, new AtomicLong()));
        assertTrue(e.getMessage().contains("returned 7, expected 0"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> Throughput.async(
                seq -> CompletableFuture.completedFuture(seq == 50 ? 7L : 0L), C16, C16.callers(), 20, 50, new AtomicLong()));
    }

    @Test
    void aFailedCallFailsTheTurn() {
        RuntimeException boom = new UnsupportedOperationException("boom");
        RuntimeException e = assertThrows(RuntimeException.class, () -> Throughput.async(
                seq -> seq == 10 ? CompletableFuture.failedFuture(boom) : CompletableFuture.completedFuture(0L),
                C16, C16.callers(), 20, 50, new AtomicLong()));
        assertEquals(boom, e);
    }

    @Test
    void theThroughputCasesMakeTheNullCallWithOneSixteenAndTwoHundredFiftySixCallers() {
        assertEquals(1, RpcCase.THROUGHPUT_1.callers());
        assertEquals(256, RpcCase.of("throughput-256").callers());
        for (RpcCase c : RpcCase.values()) {
            assertEquals(c.callers() > 0, c.isThroughput());
            assertEquals(c.isThroughput() ? RpcCase.NULL : c, c.call());
        }
        RpcCase.THROUGHPUT_16.check(5, 0);
    }
}
