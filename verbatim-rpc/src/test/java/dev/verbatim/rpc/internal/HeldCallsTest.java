package dev.verbatim.rpc.internal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static dev.verbatim.rpc.internal.RpcDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Asynchronous calls started back to back leave together (issue 18 §2, docs/rpc.md §5): a call started while
 * earlier calls are in flight waits in the send buffer for the next one its caller starts, and leaves with it;
 * the dispatcher writes them once the caller stops, and none waits longer than the watcher's bound. Over a
 * scripted connection that counts the writes a transport would make. The test holds the read lock while it
 * starts calls, so the dispatcher (which writes held calls from its reading loop) cannot write them meanwhile.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HeldCallsTest {
    private static final int CALLS = 10;

    private static Endpoint client(ScriptedConnection connection) {
        connection.takeWaits = true;
        return new Endpoint(connection, new Exports(), false, () -> { });
    }

    @SuppressWarnings("unchecked")
    private static CompletableFuture<Object> start(Endpoint endpoint, Binding b, int x) throws Throwable {
        RemoteInterface.MethodInfo mi = b.remote.methods[0];
        return (CompletableFuture<Object>) endpoint.call(b, mi, new Object[]{x});
    }

    private static Binding binding(Endpoint endpoint) {
        return new Binding(endpoint, RemoteInterface.of(Parts.AsyncCounter.class), 1, false, Duration.ofMinutes(1), null);
    }

    private static void awaitNothingHeld(ScriptedConnection connection) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (connection.held != 0 && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(100_000);
        }
    }

    @Test
    void asynchronousCallsStartedBackToBackLeaveInFewerWritesThanCalls() throws Throwable {
        ScriptedConnection connection = new ScriptedConnection();
        Endpoint endpoint = client(connection);
        Binding b = binding(endpoint);
        List<CompletableFuture<Object>> futures = new ArrayList<>();
        endpoint.leader().lock().lock(); // the dispatcher cannot look meanwhile
        try {
            for (int i = 0; i < CALLS; i++) {
                futures.add(start(endpoint, b, i));
            }
            assertEquals(1, connection.writes.getFirst(), "the first call, with nothing in flight, left at once, alone");
        } finally {
            endpoint.leader().unlockIfHeld();
        }
        awaitNothingHeld(connection); // the dispatcher writes what its caller no longer adds to
        assertEquals(0, connection.held, "the held calls were written once their caller stopped (20 s)");
        int total = 0;
        synchronized (connection.writes) {
            for (int w : connection.writes) {
                total += w;
            }
            assertTrue(connection.writes.size() < CALLS, CALLS + " calls in " + connection.writes + " writes: not batched");
        }
        assertEquals(CALLS, total, "every call written once");
        assertEquals(CALLS, connection.sent.size());
        for (int i = 0; i < CALLS; i++) {
            assertEquals(CALL, kind(connection.sent.get(i)), "call " + i + " in order");
        }
        futures.forEach(f -> assertFalse(f.isDone()));
        endpoint.closeWith("test over");
    }

    @Test
    void aHeldCallLeavesWithinTheBoundWhenNothingElseWritesIt() throws Throwable {
        // the dispatcher cannot look (the test holds the read lock) and the caller starts nothing more: the
        // watcher (HeldAnswers) writes the held call after its bound. A look at the writes later than the bound after
        // the second call proves nothing (the watcher may have written it meanwhile, on a loaded host): such a try is
        // made again, up to 50 times.
        for (int attempt = 0; ; attempt++) {
            ScriptedConnection connection = new ScriptedConnection();
            Endpoint endpoint = client(connection);
            Binding b = binding(endpoint);
            endpoint.leader().lock().lock();
            try {
                start(endpoint, b, 1);
                long t0 = System.nanoTime();
                start(endpoint, b, 2);
                List<Integer> writes;
                int held;
                synchronized (connection.writes) {
                    writes = List.copyOf(connection.writes);
                    held = connection.held;
                }
                if (System.nanoTime() - t0 >= WaitPolicy.ANSWER_HOLD_MAX_NANOS / 2) {
                    assertTrue(attempt < 50, "50 tries, each looked later than half the bound: " + writes);
                    continue; // (finally closes this one)
                }
                assertEquals(List.of(1), writes, "the first call alone; the second held");
                assertEquals(1, held);
                awaitNothingHeld(connection);
                assertEquals(0, connection.held, "the held call was written by the watcher (20 s)");
                assertEquals(List.of(1, 1), connection.writes);
                return;
            } finally {
                endpoint.leader().unlockIfHeld();
                endpoint.closeWith("test over");
            }
        }
    }

    @Test
    void aCallerThatWaitsForAFutureWritesItsHeldCallsFirst() throws Throwable {
        ScriptedConnection connection = new ScriptedConnection();
        Endpoint endpoint = client(connection);
        Binding b = binding(endpoint);
        endpoint.leader().lock().lock();
        try {
            start(endpoint, b, 1);
            CompletableFuture<Object> second = start(endpoint, b, 2);
            assertEquals(1, connection.held, "the second call held");
            // the watcher may have written it already if this thread was off its CPU for a millisecond; else get does
            assertThrows(java.util.concurrent.TimeoutException.class, () -> second.get(1, TimeUnit.NANOSECONDS));
            assertEquals(0, connection.held, "waiting for a future wrote the held call");
            int total = 0;
            synchronized (connection.writes) {
                for (int w : connection.writes) {
                    total += w;
                }
            }
            assertEquals(2, total);
        } finally {
            endpoint.leader().unlockIfHeld();
        }
        endpoint.closeWith("test over");
    }
}
