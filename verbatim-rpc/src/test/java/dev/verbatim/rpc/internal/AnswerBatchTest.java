package dev.verbatim.rpc.internal;

import dev.verbatim.rpc.ExportOptions;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import static dev.verbatim.rpc.internal.RpcDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * The answers of calls that arrived together leave together (issue 18 §2, docs/rpc.md §5): a reader runs the
 * calls that have arrived already in one {@link Endpoint#poll}, holding each answer for the next, and writes
 * them at the end of the poll, in order, each once; an answer with no call behind it leaves alone as its poll
 * ends. Over a scripted connection that counts the writes a transport would make: no threads, no timing.
 */
class AnswerBatchTest {
    private static MemorySegment call(int target, long callId, int x) {
        MemorySegment m = MemorySegment.ofArray(new byte[HEADER + VALUE_HEADER + 8]);
        long method = RemoteInterface.of(Parts.Counter.class).methods[0].id;
        putHeader(m, head(CALL, 0, 1, target), callId, method, 5);
        CallEncoder.putPrimitive(m, HEADER, x);
        return m;
    }

    private static Endpoint serving(ScriptedConnection connection, List<Integer> ran) {
        return serving(connection, x -> {
            ran.add(x);
            return x + 1;
        });
    }

    private static Endpoint serving(ScriptedConnection connection, Parts.Counter counter) {
        Exports exports = new Exports();
        exports.export("counter", Parts.Counter.class, counter, ExportOptions.INLINE);
        Endpoint endpoint = new Endpoint(connection, exports, false, () -> { });
        connection.lookUp(endpoint, "counter", Parts.Counter.class);
        connection.writes.clear();
        connection.tellsArrivals = true;
        // this thread waits for a call of chain 5: the peer's calls in that chain run on it, inline, as the
        // dispatcher runs the calls it reads
        PendingCall waiting = new PendingCall(endpoint, 1, null, java.util.concurrent.TimeUnit.MINUTES.toNanos(1), 5,
                Thread.currentThread());
        endpoint.calls().add(waiting, true);
        return endpoint;
    }

    @Test
    void callsThatArrivedTogetherAreRunInOnePollAndTheirAnswersLeaveInOneWriteInOrder() {
        ScriptedConnection connection = new ScriptedConnection();
        List<Integer> ran = new ArrayList<>();
        Endpoint endpoint = serving(connection, ran);
        for (int i = 0; i < 5; i++) {
            connection.incoming.add(call(1, 10 + i, 100 + i));
        }
        endpoint.leader().lock().lock();
        try {
            assertEquals(5, endpoint.poll(16), "the calls that had arrived ran in one poll");
        } finally {
            endpoint.leader().unlockIfHeld();
        }
        assertEquals(List.of(100, 101, 102, 103, 104), ran, "in arrival order");
        assertEquals(List.of(5), connection.writes, "five answers, one write");
        assertEquals(0, connection.held, "nothing held once the poll returned");
        assertEquals(5, connection.sent.size(), "each call answered once");
        for (int i = 0; i < 5; i++) {
            MemorySegment r = connection.sent.get(i);
            assertEquals(REPLY, kind(r));
            assertEquals(10 + i, callId(r), "answer " + i + " in order");
            assertEquals(101 + i, r.get(ValueLayout.JAVA_LONG_UNALIGNED, REPLY_HEADER + VALUE_HEADER));
        }
        endpoint.closeWith("test over");
    }

    @Test
    void aBatchIsBoundedAndAnAnswerWithNoCallBehindItLeavesAlone() {
        ScriptedConnection connection = new ScriptedConnection();
        List<Integer> ran = new ArrayList<>();
        Endpoint endpoint = serving(connection, ran);
        connection.incoming.add(call(1, 1, 1));
        endpoint.leader().lock().lock();
        try {
            assertEquals(1, endpoint.poll(16));
            assertEquals(List.of(1), connection.writes, "a lone answer goes at once, alone");
            for (int i = 0; i < 40; i++) {
                connection.incoming.add(call(1, 100 + i, i));
            }
            int n = 0;
            for (int polls = 0; polls < 40 && n < 40; polls++) {
                n += endpoint.poll(64); // a batch ends at the bound: its caller polls again
                assertEquals(0, connection.held, "nothing held once a poll returned");
            }
            assertEquals(40, n);
            int total = 0;
            for (int w : connection.writes.subList(1, connection.writes.size())) {
                assertTrue(w <= HeldMessages.HOLD_MAX_MESSAGES + 1, "a write of " + w + " answers: above the bound");
                total += w;
            }
            assertEquals(40, total, "every answer written once");
            assertEquals(41, connection.sent.size());
        } finally {
            endpoint.leader().unlockIfHeld();
        }
        endpoint.closeWith("test over");
    }

    @Test
    void anAnswerHeldForABatchLeavesWhileALaterCallOfTheBatchBlocks() throws Exception {
        // the second call of a batch blocks until its caller's side has seen the first call's answer (a latch
        // counted down by the thread that got it, say): the answer must not wait for the batch's end
        ScriptedConnection connection = new ScriptedConnection();
        java.util.concurrent.atomic.AtomicLong waitedNanos = new java.util.concurrent.atomic.AtomicLong(-1);
        Endpoint endpoint = serving(connection, x -> {
            if (x == 2) {
                long start = System.nanoTime();
                long deadline = start + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
                while (connection.writes.isEmpty() && System.nanoTime() - deadline < 0) {
                    java.util.concurrent.locks.LockSupport.parkNanos(100_000);
                }
                if (!connection.writes.isEmpty()) {
                    waitedNanos.set(System.nanoTime() - start);
                }
            }
            return x + 1;
        });
        connection.incoming.add(call(1, 10, 1));
        connection.incoming.add(call(1, 11, 2));
        endpoint.leader().lock().lock();
        try {
            assertEquals(2, endpoint.poll(16), "both calls ran in one poll");
        } finally {
            endpoint.leader().unlockIfHeld();
        }
        assertTrue(waitedNanos.get() >= 0, "the first answer stayed held while the second call blocked (10 s)");
        assertEquals(List.of(1, 1), connection.writes, "the first answer alone, then the second");
        assertEquals(0, connection.held);
        endpoint.closeWith("test over");
    }
}
