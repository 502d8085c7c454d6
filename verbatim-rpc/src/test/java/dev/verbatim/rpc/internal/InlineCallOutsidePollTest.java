package dev.verbatim.rpc.internal;

import dev.verbatim.rpc.ExportOptions;
import dev.verbatim.transport.DeliveryHandler;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.verbatim.rpc.internal.RpcDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * A call read by a poll and run inline runs once the poll returned, never inside the transport's
 * callback (docs/rpc.md §4): the handler answers {@code STOP} after it, and {@link Endpoint#poll} runs it
 * before it returns. Over a scripted connection: no threads, no timing.
 */
class InlineCallOutsidePollTest {
    private static final long CHAIN = 77;

    /** A CALL of {@code Counter.add(x)} to export {@code target} in chain {@link #CHAIN}. */
    private static MemorySegment call(int target, long callId, int x) {
        MemorySegment m = MemorySegment.ofArray(new byte[HEADER + VALUE_HEADER + 8]);
        long method = RemoteInterface.of(Parts.Counter.class).methods[0].id;
        putHeader(m, head(CALL, 0, 1, target), callId, method, CHAIN);
        CallEncoder.putPrimitive(m, HEADER, x);
        return m;
    }

    @Test
    void aPollStopsAfterACallToRunInlineAndTheCallRunsOnceThePollReturnedInOrder() {
        ScriptedConnection connection = new ScriptedConnection();
        List<Integer> ran = new ArrayList<>();
        List<Boolean> ranInCallback = new ArrayList<>();
        Exports exports = new Exports();
        exports.export("counter", Parts.Counter.class, (Parts.Counter) x -> {
            ran.add(x);
            ranInCallback.add(connection.inCallback);
            return x + 1;
        }, ExportOptions.INLINE);
        Endpoint endpoint = new Endpoint(connection, exports, false, () -> { });
        connection.lookUp(endpoint, "counter", Parts.Counter.class); // the peer may call export #1 from now on
        // this thread waits for a call of chain CHAIN: the peer's calls in that chain run on it, inline
        PendingCall waiting = new PendingCall(endpoint, 1, null, TimeUnit.MINUTES.toNanos(1), CHAIN, Thread.currentThread());
        endpoint.calls().add(waiting, true);
        connection.incoming.add(call(1, 10, 5));
        connection.incoming.add(call(1, 11, 6));

        endpoint.leader().lock().lock();
        try {
            assertEquals(1, endpoint.poll(16), "the poll stopped after the call to run inline");
            assertEquals(List.of(DeliveryHandler.Action.STOP), connection.actions);
            assertEquals(List.of(5), ran, "the call ran before the poll returned");
            assertEquals(List.of(false), ranInCallback, "outside the transport's callback");
            assertTrue(endpoint.leader().holds(), "nobody else took the read lock: this thread took it back");

            assertEquals(1, endpoint.poll(16));
            assertEquals(List.of(5, 6), ran, "the next call ran on the next poll, in order");
            assertEquals(List.of(false, false), ranInCallback);
        } finally {
            endpoint.leader().unlockIfHeld();
        }
        assertEquals(2, connection.sent.size(), "each call answered");
        assertEquals(10, callId(connection.sent.get(0)));
        assertEquals(6, connection.sent.get(0).get(ValueLayout.JAVA_LONG_UNALIGNED, REPLY_HEADER + VALUE_HEADER));
        assertEquals(11, callId(connection.sent.get(1)));
        assertEquals(7, connection.sent.get(1).get(ValueLayout.JAVA_LONG_UNALIGNED, REPLY_HEADER + VALUE_HEADER));
        endpoint.closeWith("test over");
    }
}
