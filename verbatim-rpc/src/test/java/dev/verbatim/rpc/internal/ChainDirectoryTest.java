package dev.verbatim.rpc.internal;

import dev.verbatim.transport.Connection;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

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
}
