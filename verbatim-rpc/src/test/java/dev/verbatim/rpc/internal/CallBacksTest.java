package dev.verbatim.rpc.internal;

import dev.verbatim.rpc.Api;
import dev.verbatim.rpc.Node;
import dev.verbatim.rpc.Remote;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A server whose call calls back to its caller over the connection the call came by (J-RPC's callbacks, paper
 * 003's A→B→A) is not a client: once the call back is answered, no thread of the server leads the reading of that
 * connection, so its dispatcher must not step aside for callers (docs/rpc.md §4), or the client's next call waits
 * for the dispatcher's next glance (~0.1 ms, where the call back itself takes a few µs). Counted as the glances of
 * the server's dispatcher, not timed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CallBacksTest {
    private static final AtomicInteger N = new AtomicInteger();

    public interface Hub extends Remote {
        /** Calls {@code c} back once, over the connection this call came by. */
        int relay(Api.Counter c);

        /** How often the dispatcher of the connection this call came by glanced while stepping aside. */
        long glances();

        int ping();

        /**
         * Starts a server thread that calls {@code blocker} back and waits (so a caller of this side waits on the
         * connection), then joins an asynchronous call back to {@code p} over the connection this call came by.
         */
        int relayAsync(Api.AsyncProbe p, Api.Counter blocker);
    }

    static final class HubImpl implements Hub {
        @Override
        public int relay(Api.Counter c) {
            return c.add(1);
        }

        @Override
        public long glances() {
            return CallContext.current().arrivedOver.dispatcher().glances();
        }

        @Override
        public int ping() {
            return 1;
        }

        @Override
        public int relayAsync(Api.AsyncProbe p, Api.Counter blocker) {
            Thread.ofPlatform().start(() -> blocker.add(1));
            try {
                Thread.sleep(200); // (that thread's call is out: a caller of this side waits on the connection)
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return p.twiceLater(1).join();
        }
    }

    /** A call back that blocks until released (at most 20 s). */
    static final class Blocker implements Api.Counter {
        final CountDownLatch released = new CountDownLatch(1);

        @Override
        public int add(int x) {
            try {
                released.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return x;
        }
    }

    /** A call back that waits until the client's other thread got an answer to a call of its own (at most 10 s). */
    static final class WaitingCounter implements Api.Counter {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch pinged = new CountDownLatch(1);

        @Override
        public int add(int x) {
            entered.countDown();
            try {
                return pinged.await(10, TimeUnit.SECONDS) ? 1 : 0;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return -1;
            }
        }
    }

    private final List<Node> nodes = new ArrayList<>();

    @AfterEach
    void close() {
        nodes.forEach(Node::close);
    }

    /** A server over {@code transport} exporting a {@link HubImpl} (calls inline on its dispatcher), and a client's proxy of it. */
    private Hub hub(String transport) {
        String at = transport.equals("shm") ? "shm:callbacks-" + ProcessHandle.current().pid() + "-" + N.incrementAndGet()
                : "tcp://127.0.0.1:0";
        Node server = Node.listen(at);
        nodes.add(server);
        server.export("hub", Hub.class, new HubImpl());
        Node client = Node.create();
        nodes.add(client);
        return client.lookup(server.addresses().getFirst(), "hub", Hub.class, Duration.ofSeconds(30));
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aServerThatCalledBackDoesNotStepAsideForCallersItDoesNotHave(String transport) {
        Hub hub = hub(transport);
        Api.CounterImpl counter = new Api.CounterImpl();
        for (int i = 0; i < 20; i++) {
            hub.relay(counter); // (the first calls back learn the counter's binding)
        }
        int relays = 100;
        long before = hub.glances();
        for (int i = 0; i < relays; i++) {
            assertEquals(21 + i, hub.relay(counter));
        }
        long glances = hub.glances() - before;
        // stepping aside after each call back, the dispatcher glances at least once before the next relay is read
        assertTrue(glances < relays / 4, "the server's dispatcher glanced " + glances + " times in " + relays
                + " relays (once per relay: it stepped aside after each call back)");
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aDispatcherWaitingForItsCallBackLetsTheOtherCallsOfItsConnectionRun(String transport) throws Exception {
        // the server's dispatcher runs relay inline, and relay waits for its call back over the same connection: a call
        // of the client's other thread, read meanwhile, must run (on a new dispatcher) rather than wait in the queue of
        // the one that waits, or a call back that needs that call's answer (here: a latch; in general a lock) hangs
        Hub hub = hub(transport);
        WaitingCounter counter = new WaitingCounter();
        CompletableFuture<Integer> relay = CompletableFuture.supplyAsync(() -> hub.relay(counter), r -> Thread.ofPlatform().start(r));
        assertTrue(counter.entered.await(20, TimeUnit.SECONDS), "the call back came");
        assertEquals(1, hub.ping(), "the other thread's call, over the same connection");
        counter.pinged.countDown();
        assertEquals(1, relay.get(30, TimeUnit.SECONDS), "the call back saw the other call answered while it waited");
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aDispatcherJoiningAnAsynchronousCallBackLetsTheOtherCallsOfItsConnectionRun(String transport) throws Exception {
        // as above, the dispatcher's call waiting in a join on a future of a call back over its own connection, while
        // another thread of the server waits on that connection too (so the client's other call is queued, not run inline)
        Hub hub = hub(transport);
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch pinged = new CountDownLatch(1);
        Api.AsyncProbe probe = x -> {
            entered.countDown();
            CompletableFuture<Integer> f = new CompletableFuture<>();
            Thread.ofPlatform().start(() -> {
                try {
                    f.complete(pinged.await(10, TimeUnit.SECONDS) ? 2 * x : 0);
                } catch (InterruptedException e) {
                    f.complete(-1);
                }
            });
            return f;
        };
        Blocker blocker = new Blocker();
        try {
            CompletableFuture<Integer> relay = CompletableFuture.supplyAsync(() -> hub.relayAsync(probe, blocker),
                    r -> Thread.ofPlatform().start(r));
            assertTrue(entered.await(20, TimeUnit.SECONDS), "the asynchronous call back came");
            assertEquals(1, hub.ping(), "the other thread's call, over the same connection");
            pinged.countDown();
            assertEquals(2, relay.get(30, TimeUnit.SECONDS), "the call back's future completed after the other call's answer");
        } finally {
            blocker.released.countDown();
        }
    }
}
