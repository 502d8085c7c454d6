package dev.verbatim.rpc.internal;

import dev.verbatim.rpc.Node;
import dev.verbatim.rpc.Remote;
import dev.verbatim.rpc.RemoteException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A chain that bounces between two nodes with node-wide chains (a list scattered over two bases, walked
 * recursively: A calls B, B calls A back over its own connection, A calls B again...): from its second
 * return to a node on, each call of the chain is read by the thread waiting in it there, which reads the
 * connection the chain came back over as a guest (docs/rpc.md §4), and runs on it without a hand-over
 * between threads ({@link ChainDirectory#handOvers()}). Without the guest, the connection's dispatcher read
 * every return and handed it over (a wake-up per hop).
 *
 * <p>A guest reads while the chain is busy (it stops after {@link WaitPolicy#GUEST_SPIN_NANOS} with
 * nothing arriving): here it reads for the whole walk, so that what is counted does not depend on how
 * long this host leaves a process unscheduled. A dispatcher that reads the call just as the guest
 * starts (it was asleep in the transport holding the read lock) still hands it over: the test takes the
 * fewest hand-overs of a few walks, and asks for at most a few where every hop used to pay one.
 *
 * <p>The dispatcher of a connection a guest reads does not even glance at it; while the guest runs a call
 * (which may wait on anything) it reads that connection no more, and the dispatcher must read it again:
 * a call in no chain that the guest's call waits for still comes through (it timed out when the dispatcher
 * stepped aside for every guest, running or not).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ChainHopsTest {
    private static final AtomicInteger N = new AtomicInteger();
    private static final int BOUNCES = 60;
    private static final int WALKS = 10;

    public interface Bouncer extends Remote {
        /** Calls the other node's bouncer {@code left} times down the chain; how many bounces were made. */
        int bounce(int left);

        /** Opens this bouncer's gate (a call of no chain: the dispatcher of the connection it comes by runs it). */
        void open();
    }

    /** A node's bouncer: bounces to the other node's, over this node's own connection to it. */
    static class Ball implements Bouncer {
        volatile Bouncer other;
        final CountDownLatch gate = new CountDownLatch(1);

        @Override
        public int bounce(int left) {
            return left == 0 ? 0 : 1 + other.bounce(left - 1);
        }

        @Override
        public void open() {
            gate.countDown();
        }
    }

    /** The object layer's hook, doing nothing: a node with one matches chains across its connections. */
    private static final NodeExtension NO_OBJECTS = new NodeExtension() {
        @Override
        public boolean shares(Object value) {
            return false;
        }

        @Override
        public byte[] encode(Object value, Class<?> declared, Endpoint over) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Object decode(MemorySegment payload, Class<?> declared, Endpoint over) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void dropped(MemorySegment payload, Endpoint over) {
        }

        @Override
        public Target target(int id) {
            return null;
        }
    };

    private final List<Node> nodes = new ArrayList<>();

    private Node node(String transport) {
        String address = transport.equals("shm") ? "shm:hops-" + ProcessHandle.current().pid() + "-" + N.incrementAndGet()
                : "tcp://127.0.0.1:0";
        Node n = NodeAccess.nodes().listen(Node.DEFAULT_OPTIONS, NO_OBJECTS, address);
        nodes.add(n);
        return n;
    }

    /** Two nodes, each exporting a ball that bounces to the other's, and the connections between them. */
    private record Rally(Ball atA, Endpoint aToB, Endpoint bToA) {}

    private Rally rally(String transport) {
        Node a = node(transport);
        Node b = node(transport);
        Ball atA = new Ball();
        Ball atB = new Ball();
        a.export("ball", Bouncer.class, atA);
        b.export("ball", Bouncer.class, atB);
        atA.other = a.lookup(b.addresses().getFirst(), "ball", Bouncer.class);
        atB.other = b.lookup(a.addresses().getFirst(), "ball", Bouncer.class);
        return new Rally(atA, NodeAccess.nodes().connect(a, b.addresses().getFirst())[0],
                NodeAccess.nodes().connect(b, a.addresses().getFirst())[0]);
    }

    @AfterEach
    void close() {
        nodes.forEach(Node::close);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "tcp"})
    void fromItsSecondReturnOnAChainIsReadByTheThreadWaitingInIt(String transport) {
        Rally r = rally(transport);
        Ball atA = r.atA();
        Endpoint aToB = r.aToB();
        Endpoint bToA = r.bToA();
        ChainDirectory chainsOfA = aToB.chains();
        ChainDirectory chainsOfB = bToA.chains();
        assertNotSame(chainsOfA, chainsOfB);
        // the threads waiting in the chain wait over these: their guests read until the walk is over, however
        // long this host leaves a process unscheduled (with the default spin, a hop that takes longer than it is
        // handed over, as before)
        aToB.leader().policy().guestSpinNanos(TimeUnit.SECONDS.toNanos(30));
        bToA.leader().policy().guestSpinNanos(TimeUnit.SECONDS.toNanos(30));

        long fewest = Long.MAX_VALUE;
        for (int walk = 0; walk < WALKS; walk++) {
            long before = chainsOfA.handOvers() + chainsOfB.handOvers();
            assertEquals(BOUNCES, atA.other.bounce(BOUNCES - 1) + 1);
            fewest = Math.min(fewest, chainsOfA.handOvers() + chainsOfB.handOvers() - before);
        }
        // each node's first return may be handed over (the thread waiting there was reading only the
        // connection it called over); every later one is read by the waiting thread itself
        assertTrue(fewest <= 4, "the fewest hand-overs in a walk of " + BOUNCES + " hops: " + fewest);
    }

    /**
     * A chain around a ring of three nodes (A calls B, B calls C, C calls A, A calls B again...) is read by the
     * threads waiting in it too: each node's next return comes over the connection its previous call came by,
     * which its waiting thread reads as a guest, so only each node's first return is handed over.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "tcp"})
    void aChainAroundThreeNodesIsReadByTheThreadsWaitingInIt(String transport) {
        Node[] n = {node(transport), node(transport), node(transport)};
        Ball[] balls = {new Ball(), new Ball(), new Ball()};
        for (int i = 0; i < 3; i++) {
            n[i].export("ball", Bouncer.class, balls[i]);
        }
        ChainDirectory[] chains = new ChainDirectory[3];
        for (int i = 0; i < 3; i++) {
            Node next = n[(i + 1) % 3];
            balls[i].other = n[i].lookup(next.addresses().getFirst(), "ball", Bouncer.class);
            Endpoint e = NodeAccess.nodes().connect(n[i], next.addresses().getFirst())[0];
            e.leader().policy().guestSpinNanos(TimeUnit.SECONDS.toNanos(30));
            chains[i] = e.chains();
        }
        long fewest = Long.MAX_VALUE;
        for (int walk = 0; walk < WALKS; walk++) {
            long before = chains[0].handOvers() + chains[1].handOvers() + chains[2].handOvers();
            assertEquals(BOUNCES, balls[0].other.bounce(BOUNCES - 1) + 1);
            fewest = Math.min(fewest, chains[0].handOvers() + chains[1].handOvers() + chains[2].handOvers() - before);
        }
        assertTrue(fewest <= 6, "the fewest hand-overs in a walk of " + BOUNCES + " hops around three nodes: " + fewest);
    }

    /**
     * A thread waiting in the chain reads its own connection (the reply) and its guest connection (the
     * chain's next return) poll by poll, one each in turn: each hop of a walk is read as soon as it comes.
     * It used to lead its own connection in slices of 2 µs (128 polls and more) before it looked at the
     * guest's, which cost a walk over two bases about a slice per hop (7 µs per element where a null call
     * took 0.4-0.8 µs).
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "tcp"})
    void aThreadWaitingInAChainReadsItsTwoConnectionsPollByPoll(String transport) {
        Rally r = rally(transport);
        Ball atA = r.atA();
        Endpoint aToB = r.aToB();
        Endpoint bToA = r.bToA();
        aToB.leader().policy().guestSpinNanos(TimeUnit.SECONDS.toNanos(30));
        bToA.leader().policy().guestSpinNanos(TimeUnit.SECONDS.toNanos(30));

        for (int walk = 0; walk < WALKS; walk++) {
            assertEquals(BOUNCES, atA.other.bounce(BOUNCES - 1) + 1);
        }
        // both waited with a guest (the second node's thread from its first nested wait on), and neither made
        // more than one empty poll of its own connection before it polled the guest's
        int turnAtA = aToB.leader().longestTurn();
        int turnAtB = bToA.leader().longestTurn();
        assertTrue(turnAtA >= 1 && turnAtB >= 1, "a thread waited with a guest on both nodes: " + turnAtA + ", " + turnAtB);
        assertTrue(turnAtA <= 1 && turnAtB <= 1, "empty polls of its own connection in a row before the guest's: A "
                + turnAtA + ", B " + turnAtB);
    }

    /**
     * A chain nested deeper than a thread may wait ({@link CallContext#maxNesting}: 512 with the tests' -Xss4m) fails
     * with {@code TOO_DEEP} at the call that would go one level further, before it is sent; the failure climbs the
     * chain as itself, and both connections go on working. Without the limit, a walk 8x as deep ran the stack of a
     * waiting thread out: a {@link StackOverflowError} in the middle of sending left the connection's claim open (every
     * later message on it failed, and the peer saw the connection as gone) or in the middle of reading a call.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "tcp"})
    void aChainNestedDeeperThanAThreadMayWaitFailsTooDeepAndTheConnectionsGoOn(String transport) {
        Rally r = rally(transport);
        Bouncer b = r.atA().other;
        int max = CallContext.maxNesting();
        int bounces = 8 * 2 * max; // (each node's thread waits in every other one)
        RemoteException e = assertThrows(RemoteException.class, () -> b.bounce(bounces));
        assertEquals(RemoteException.Reason.TOO_DEEP, e.reason(), e.toString());
        // the test's thread hit the limit first (its 513th call); B's answer to the outermost call says only that
        assertEquals("TOO_DEEP: " + CallAnswers.TOO_DEEP, e.getMessage());
        for (int walk = 0; walk < 3; walk++) {
            assertEquals(BOUNCES, b.bounce(BOUNCES - 1) + 1);
        }
        // as deep as a thread may wait: the chain's first caller waits in the outermost call
        int deepest = 2 * max - 1;
        assertEquals(deepest + 1, b.bounce(deepest) + 1);
        assertEquals(RemoteException.Reason.TOO_DEEP, assertThrows(RemoteException.class, () -> b.bounce(deepest + 1)).reason());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shm", "tcp"})
    void aGuestThatRunsACallWhichWaitsLeavesItsConnectionToTheDispatcher(String transport) throws Exception {
        Node a = node(transport);
        Node b = node(transport);
        Bouncer[] bToA = new Bouncer[1];
        // A's bounce with 2 left (the chain's second return to A, so the thread running it waits in the chain as a
        // guest of the connection B calls A over) blocks until another thread's call over that same connection,
        // in no chain, opens its gate: only that connection's dispatcher can read it, as the guest runs a call
        Ball atA = new Ball() {
            @Override
            public int bounce(int left) {
                if (left == 2) {
                    Thread opener = Thread.ofPlatform().daemon().start(() -> bToA[0].open());
                    try {
                        if (!gate.await(20, TimeUnit.SECONDS)) {
                            throw new IllegalStateException("the gate's call was never read");
                        }
                        opener.join(TimeUnit.SECONDS.toMillis(20));
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                }
                return super.bounce(left);
            }
        };
        Ball atB = new Ball();
        a.export("ball", Bouncer.class, atA);
        b.export("ball", Bouncer.class, atB);
        atA.other = a.lookup(b.addresses().getFirst(), "ball", Bouncer.class);
        atB.other = b.lookup(a.addresses().getFirst(), "ball", Bouncer.class);
        bToA[0] = atB.other;

        assertEquals(8, atA.other.bounce(7) + 1); // A's bounces: 6, 4, 2 (the gate), 0
        assertEquals(0, atA.gate.getCount());
    }
}
