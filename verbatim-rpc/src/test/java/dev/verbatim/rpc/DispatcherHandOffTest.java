package dev.verbatim.rpc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A server's dispatcher that runs a call which waits for a reply over another connection does not leave its
 * own connection unread (docs/rpc.md §4): the calls that come meanwhile run (on a new dispatcher thread),
 * and the old thread ends once its call is over.
 */
@Timeout(60)
class DispatcherHandOffTest {
    private static final AtomicInteger N = new AtomicInteger();

    /** B's service: one call that waits on C, one that answers at once. */
    public interface Front extends Remote {
        int slow();

        int quick();
    }

    /** C's service: answers once released. */
    public interface Back extends Remote {
        int hold();
    }

    private final List<Node> nodes = new ArrayList<>();

    private Node listen(String transport) {
        String address = transport.equals("shm") ? "shm:handoff-" + ProcessHandle.current().pid() + "-" + N.incrementAndGet()
                : "tcp://127.0.0.1:0";
        Node n = Node.listen(address);
        nodes.add(n);
        return n;
    }

    @AfterEach
    void close() {
        nodes.forEach(Node::close);
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aCallArrivingWhileTheDispatcherWaitsOnAnotherConnectionRunsBeforeThatWaitEnds(String transport) throws Exception {
        Node c = listen(transport);
        Node b = listen(transport);
        Node a = Node.create(Node.DEFAULT_OPTIONS, 1); // one connection from a to b: both calls share it
        nodes.add(a);
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        c.export("back", Back.class, () -> {
            holding.countDown();
            try {
                return release.await(30, TimeUnit.SECONDS) ? 7 : -1;
            } catch (InterruptedException e) {
                return -2;
            }
        });
        Back back = b.lookup(c.addresses().getFirst(), "back", Back.class);
        b.export("front", Front.class, new Front() {
            @Override
            public int slow() {
                return back.hold();
            }

            @Override
            public int quick() {
                return 1;
            }
        });
        Front front = a.lookup(b.addresses().getFirst(), "front", Front.class, Duration.ofSeconds(15));

        CompletableFuture<Integer> slow = CompletableFuture.supplyAsync(front::slow);
        assertTrue(holding.await(20, TimeUnit.SECONDS), "b's dispatcher is inside slow(), waiting for c");
        // only an answer to quick() releases c: with b's connection from a unread while its dispatcher
        // waits for c, quick() would wait for slow(), which waits for quick()
        assertEquals(1, front.quick());
        release.countDown();
        assertEquals(7, slow.get(20, TimeUnit.SECONDS));
        assertEquals(1, front.quick(), "the connection is still served after the hand-off");

        String accepted = b.addresses().getFirst();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (dispatchers(accepted) > 1 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        // (the new run may itself have ended since, the connection being idle: then none)
        assertTrue(dispatchers(accepted) <= 1, "the run that handed its role off ended after its call");
    }

    /** Threads running a dispatcher run of b's accepted connections (a run names its pool thread after the endpoint). */
    private static long dispatchers(String name) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("verbatim-rpc ") && t.getName().contains("(accepted")
                        && t.getName().contains(name))
                .count();
    }
}
