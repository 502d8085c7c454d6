package dev.verbatim.rpc.internal;

import dev.verbatim.rpc.ExportOptions;
import dev.verbatim.rpc.Node;
import dev.verbatim.transport.Connection;
import dev.verbatim.transport.Listener;
import dev.verbatim.transport.Transport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The read lock changing hands during an inline call (docs/rpc.md §4): a thread that runs an incoming
 * call inline gives the read lock away for the call's duration; if another thread took it meanwhile,
 * the first stops reading when the call ends and the new holder reads on. The client's connection is a
 * {@link ReadCheckingConnection}: every read comes from the holder of the read lock, two threads never
 * read at once, and no poll callback returns into the transport after the lock went to another thread.
 *
 * <p>Each round: T1 (the test thread) calls {@code callBack}; the server calls back into the client in
 * T1's chain, which T1 reads and runs inline (giving the lock away). While the callback runs, T2 calls
 * {@code echo} and becomes the reader; the callback returns only once T2 reads, and the server answers
 * {@code echo} only once T1, its callback over, waits as a follower (parked), so T2 still holds the lock
 * when T1 tries to take it back. Rounds in which another thread read the callback (handed to T1's inbox)
 * do not exercise the hand-over and are only counted.
 */
class ReadLockHandOverTest {
    private static final AtomicInteger N = new AtomicInteger();
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final int ROUNDS = 2000;
    private static final long BUDGET_NANOS = TimeUnit.SECONDS.toNanos(20);

    /** One round's threads and signals. */
    private static final class Round {
        final Thread t1 = Thread.currentThread();
        final Thread t2;
        /** How many calls T1 had read before the round: more in the callback, and T1 read it. */
        final int t1CallsRead;
        final CountDownLatch t2Go = new CountDownLatch(1);
        final CountDownLatch t2Reads = new CountDownLatch(1);
        volatile boolean readByCaller;
        volatile boolean callbackOver;
        volatile int t2Result = -1;

        Round(Thread t2, int t1CallsRead) {
            this.t2 = t2;
            this.t1CallsRead = t1CallsRead;
        }

        /** T1's callback is over and T1 parked, waiting for its answer as a follower (it lost the read lock). */
        boolean t1Follows() {
            Thread.State s = t1.getState();
            return callbackOver && (s == Thread.State.TIMED_WAITING || s == Thread.State.WAITING);
        }
    }

    private volatile Round round;
    private volatile ReadCheckingConnection clientConnection;
    private final List<String> failures = new CopyOnWriteArrayList<>();

    private static boolean await(CountDownLatch l) {
        try {
            return l.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aThreadThatLostTheReadLockDuringAnInlineCallStopsReadingAndEveryCallGetsItsOwnAnswer() throws Exception {
        String address = "shm:rpc-handover-" + ProcessHandle.current().pid() + "-" + N.incrementAndGet();
        Exports serverExports = new Exports();
        serverExports.export("service", Parts.Service.class, new Parts.Service() {
            @Override
            public int callBack(Parts.Callback cb, int x) {
                return cb.run(x) + 1;
            }

            @Override
            public int echo(int x) {
                Round r = round;
                long until = System.nanoTime() + WAIT.toNanos();
                while (r.readByCaller && !r.t1Follows() && clientConnection.violations().isEmpty()) {
                    if (System.nanoTime() - until > 0) {
                        failures.add("echo: T1 never waited as a follower after its callback");
                        break;
                    }
                    LockSupport.parkNanos(50_000);
                }
                return x;
            }
        }, ExportOptions.VIRTUAL_THREADS); // echo runs while callBack waits for its callback

        Endpoint server = null;
        Endpoint client = null;
        try (Listener listener = Transport.listen(address, Node.DEFAULT_OPTIONS)) {
            CompletableFuture<Connection> accepted = CompletableFuture.supplyAsync(() -> listener.accept(WAIT));
            ReadCheckingConnection checked = new ReadCheckingConnection(Transport.connect(address, Node.DEFAULT_OPTIONS));
            clientConnection = checked;
            server = new Endpoint(accepted.get(WAIT.toSeconds(), TimeUnit.SECONDS), serverExports, true, () -> { });
            client = new Endpoint(checked, new Exports(), false, () -> { });
            checked.watch(client.leader().lock());
            checked.onRead = t -> {
                Round r = round;
                if (r != null && t == r.t2) {
                    r.t2Reads.countDown();
                }
            };
            Endpoint c = client;
            Parts.Callback callback = x -> {
                Round r = round;
                r.readByCaller = Thread.currentThread() == r.t1 && checked.callsRead() > r.t1CallsRead;
                if (c.leader().holds()) {
                    failures.add("a thread running a call inline still holds the read lock");
                }
                r.t2Go.countDown();
                if (r.readByCaller && !await(r.t2Reads)) {
                    failures.add("T2 never became the reader");
                }
                r.callbackOver = true;
                return 2 * x;
            };
            Parts.Service service = (Parts.Service) client.lookup("service", RemoteInterface.of(Parts.Service.class),
                    Duration.ofSeconds(30), new Endpoint[] {client});

            int rounds = 0;
            int handedOver = 0;
            long start = System.nanoTime();
            while (rounds < ROUNDS && System.nanoTime() - start < BUDGET_NANOS && failures.isEmpty()
                    && checked.violations().isEmpty()) {
                int x = rounds;
                Round[] self = new Round[1];
                Thread t2 = Thread.ofPlatform().name("T2-" + x).unstarted(() -> {
                    Round r = self[0];
                    if (await(r.t2Go)) {
                        r.t2Result = service.echo(x + 1000);
                    }
                });
                Round r = new Round(t2, checked.callsRead());
                self[0] = r;
                round = r;
                t2.start();
                assertEquals(2 * x + 1, service.callBack(callback, x), "T1 gets the answer to its own call");
                t2.join(WAIT.toMillis());
                assertFalse(t2.isAlive(), "T2's call ended");
                assertEquals(x + 1000, r.t2Result, "T2 gets the answer to its own call");
                if (r.readByCaller) {
                    handedOver++;
                }
                rounds++;
            }
            assertEquals(List.of(), checked.violations(), "reads of the client's connection");
            assertEquals(List.of(), failures);
            assertTrue(client.isOpen() && server.isOpen(), "no protocol failure closed the connection");
            assertTrue(handedOver > 0, "in no round did T1 read and run the callback itself (of " + rounds + ")");
            System.out.println("read lock hand-over: " + handedOver + " of " + rounds + " rounds: T1 read the callback and gave the lock away");
        } finally {
            if (client != null) {
                client.close();
            }
            if (server != null) {
                server.close();
            }
        }
    }
}
