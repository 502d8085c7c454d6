package dev.verbatim.rpc.internal;

import dev.verbatim.transport.Connection;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.*;

/** A node's chains across its connections (docs/rpc.md §4): a chain's prefix names the endpoint whose caller started it. */
class ChainDirectoryTest {
    private static Endpoint endpoint() {
        Connection c = (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                (p, m, a) -> switch (m.getReturnType().getName()) {
                    case "java.lang.String" -> "scripted";
                    case "boolean" -> true;
                    case "int" -> 1 << 20;
                    case "long" -> 0L;
                    case "dev.verbatim.transport.ConnectionOptions" -> dev.verbatim.transport.ConnectionOptions.DEFAULT;
                    default -> null;
                });
        return new Endpoint(c, new Exports(), false, () -> { });
    }

    private static PendingCall nestedWait(Endpoint e, long chain) {
        return new PendingCall(e, 7, null, TimeUnit.MINUTES.toNanos(1), chain, Thread.currentThread());
    }

    private static PendingCall waitingIn(Endpoint e, long chain) {
        PendingCall p = new PendingCall(e, 5, null, TimeUnit.MINUTES.toNanos(1), chain, Thread.currentThread());
        e.calls().add(p, true);
        return p;
    }

    @Test
    void aCallArrivingOverAnotherConnectionFindsTheCallerWaitingInItsChain() {
        ChainDirectory d = new ChainDirectory();
        Endpoint started = endpoint();
        Endpoint arrived = endpoint();
        long salt = d.register(started);
        d.register(arrived);
        long chain = salt ^ 5; // what a top-level call of id 5 on `started` carries
        PendingCall p = waitingIn(started, chain);
        assertSame(p, d.waitingIn(chain, arrived));
        assertNull(d.waitingIn(chain, started), "the arriving endpoint looked at its own callers already");
        assertNull(d.waitingIn(chain ^ 1, arrived), "another chain of the same endpoint: nobody waits in it");
        p.complete(null);
        assertNull(d.waitingIn(chain, arrived), "a caller whose call is done waits no more");
    }

    @Test
    void anEndpointThatClosedNamesNoChainAndEveryOpenEndpointHasItsOwnPrefix() {
        ChainDirectory d = new ChainDirectory();
        Endpoint started = endpoint();
        long salt = d.register(started);
        waitingIn(started, salt ^ 5);
        d.unregister(started, salt);
        assertNull(d.waitingIn(salt ^ 5, endpoint()));
        Set<Long> prefixes = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            assertTrue(prefixes.add(d.register(endpoint()) >>> (64 - ChainDirectory.PREFIX_BITS)), "a prefix is unique in a node");
        }
    }

    @Test
    void aNestedWaitIsTheChainsInnermostUntilItLeavesAndTheChainIsForgottenWhenItsLastWaitLeaves() {
        ChainDirectory d = new ChainDirectory();
        Endpoint e = endpoint();
        long chain = 0x1234_5678_9abc_def0L;
        PendingCall outer = nestedWait(e, chain);
        ChainDirectory.Waits w = d.enter(outer, null);
        assertSame(outer, d.innermost(chain));
        PendingCall inner = nestedWait(e, chain);
        assertSame(w, d.enter(inner, w), "the thread's next nested wait goes in the chain's waits it knows");
        assertSame(inner, d.innermost(chain));
        assertNull(d.innermost(chain ^ 1), "another chain has no wait here");
        inner.complete(null);
        d.leave(inner, w);
        assertSame(outer, d.innermost(chain), "the wait it hid is the innermost again");
        outer.complete(null);
        d.leave(outer, w);
        assertNull(d.innermost(chain));
        assertEquals(0, d.waitingChains(), "a chain none waits in any more is forgotten");
        PendingCall again = nestedWait(e, chain);
        ChainDirectory.Waits w2 = d.enter(again, w);
        assertNotSame(w, w2, "waits taken out of the directory are never entered again");
        assertSame(again, d.innermost(chain));
        again.complete(null);
        d.leave(again, w2);
        assertEquals(0, d.waitingChains());
    }

    /**
     * A thread's hint (the chain's waits it entered last) is its node's: a thread waiting in a chain at one node of a
     * JVM that calls through another node of it enters its wait in that node's directory, where the chain's calls
     * coming back to that node look for it.
     */
    @Test
    void aWaitIsEnteredInItsOwnNodesDirectoryWhateverTheThreadEnteredLast() {
        ChainDirectory a = new ChainDirectory();
        ChainDirectory b = new ChainDirectory();
        Endpoint e = endpoint();
        long chain = 77;
        PendingCall atA = nestedWait(e, chain);
        ChainDirectory.Waits wa = a.enter(atA, null);
        PendingCall atB = nestedWait(e, chain);
        ChainDirectory.Waits wb = b.enter(atB, wa);
        assertNotSame(wa, wb);
        assertSame(atB, b.innermost(chain), "found at b, where it waits");
        assertSame(atA, a.innermost(chain), "a's wait is a's innermost still");
        atB.complete(null);
        b.leave(atB, wb);
        atA.complete(null);
        a.leave(atA, wa);
        assertEquals(0, a.waitingChains() + b.waitingChains());
    }

    /**
     * A wait that left without its call completing (its send failed) while a wait entered after it was still there
     * (a chain that forked) is never the chain's innermost again: nothing would run what is handed to it.
     */
    @Test
    void aWaitThatLeftIsNeverTheInnermostAgainEvenIfItsCallNeverCompleted() {
        ChainDirectory d = new ChainDirectory();
        Endpoint e = endpoint();
        long chain = 78;
        PendingCall p = nestedWait(e, chain);
        ChainDirectory.Waits w = d.enter(p, null);
        PendingCall q = nestedWait(e, chain);
        d.enter(q, w);
        d.leave(p, w); // not the innermost: q hides it; never completed (forgotten when its send failed)
        assertSame(q, d.innermost(chain));
        q.complete(null);
        d.leave(q, w);
        assertNull(d.innermost(chain), "p left: the chain has no wait here");
        assertEquals(0, d.waitingChains(), "and is forgotten");
    }

    @Test
    void aWaitEnteredWhileTheChainsLastWaitLeavesIsNeverLost() throws Exception {
        // two threads of one chain (a chain that forked: a caller timed out while its chain went on) enter and leave
        // at once: one entering as the other takes the chain out of the directory must find its waits there
        ChainDirectory d = new ChainDirectory();
        Endpoint e = endpoint();
        long chain = 42;
        int rounds = 200_000;
        AtomicReference<String> lost = new AtomicReference<>();
        CountDownLatch start = new CountDownLatch(1);
        Runnable loop = () -> {
            try {
                start.await();
            } catch (InterruptedException x) {
                return;
            }
            ChainDirectory.Waits known = null;
            for (int i = 0; i < rounds && lost.get() == null; i++) {
                PendingCall p = nestedWait(e, chain);
                ChainDirectory.Waits w = d.enter(p, known);
                if (d.waitsOf(chain) != w) {
                    lost.set("round " + i + ": a wait was entered in waits the directory no longer has");
                }
                p.complete(null); // (a wait leaves once its call is done)
                d.leave(p, w);
                known = w;
            }
        };
        Thread a = Thread.ofPlatform().start(loop);
        Thread b = Thread.ofPlatform().start(loop);
        start.countDown();
        a.join(TimeUnit.SECONDS.toMillis(60));
        b.join(TimeUnit.SECONDS.toMillis(60));
        assertFalse(a.isAlive() || b.isAlive(), "the threads finished");
        assertNull(lost.get(), lost.get());
        assertNull(d.innermost(chain));
        assertEquals(0, d.waitingChains(), "every wait left: the chain is forgotten (no waits leak)");
    }
}
