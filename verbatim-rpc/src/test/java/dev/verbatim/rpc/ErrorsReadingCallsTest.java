package dev.verbatim.rpc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An {@link Error} thrown while a call's arguments are read (here a record's constructor, run where the call
 * arrives) never leaves the call unanswered or its message held: the caller learns at once, with a typed reason,
 * whichever thread read the call (the dispatcher, or a caller waiting in a chain that reads a nested call).
 */
@Timeout(60)
class ErrorsReadingCallsTest {
    private Node server;
    private Node client;
    /** How the server's last {@code callBack} ended: its result, or what it threw. */
    private final java.util.concurrent.CompletableFuture<Object> lastCallBack = new java.util.concurrent.CompletableFuture<>();

    @BeforeEach
    void start() {
        Api.fragileRefusesOn = t -> false;
        server = Node.listen("shm:errors-reading-calls-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
        server.export("caller", Api.FragileCaller.class, new Api.FragileCaller() {
            @Override
            public int callBack(Api.FragileSink sink, int value) {
                try {
                    int r = sink.take(new Api.Fragile(value));
                    if (value == 13) {
                        lastCallBack.complete(r);
                    }
                    return r;
                } catch (RuntimeException | Error e) {
                    lastCallBack.complete(e);
                    throw e;
                }
            }

            @Override
            public int take(Api.Fragile f) {
                return f.value();
            }
        });
        client = Node.create();
    }

    @AfterEach
    void stop() {
        Api.fragileRefusesOn = t -> false;
        client.close();
        server.close();
    }

    @Test
    void anErrorReadingACallOnTheDispatcherFailsTheCallInsteadOfLeavingItUnanswered() {
        Api.FragileCaller caller = Node.withTimeout(client.lookup(server.addresses().getFirst(), "caller",
                Api.FragileCaller.class), Duration.ofSeconds(30));
        assertEquals(12, caller.take(new Api.Fragile(12)));
        Api.Fragile thirteen = new Api.Fragile(13);
        Thread me = Thread.currentThread();
        Api.fragileRefusesOn = th -> th != me; // (both nodes are in this process) only the server's reading of 13 throws
        long start = System.nanoTime();
        RemoteException e = assertThrows(RemoteException.class, () -> caller.take(thirteen));
        assertTrue(System.nanoTime() - start < 20_000_000_000L, "the call waited for its timeout: " + e);
        assertTrue(e.reason() != RemoteException.Reason.TIMEOUT, e.toString());
        assertTrue(e.getMessage().contains("AssertionError"), e.getMessage());
        Api.fragileRefusesOn = th -> false;
        try (Node another = Node.create()) { // (this client's connection is dropped: its next lookup may still meet it)
            assertEquals(14, Node.withTimeout(another.lookup(server.addresses().getFirst(), "caller",
                    Api.FragileCaller.class), Duration.ofSeconds(30)).take(new Api.Fragile(14)), "the server goes on");
        }
    }

    @Test
    void anErrorReadingANestedCallOnTheWaitingCallerFailsBothCallsInsteadOfLeavingThemUnanswered() {
        Api.FragileCaller caller = Node.withTimeout(client.lookup(server.addresses().getFirst(), "caller",
                Api.FragileCaller.class), Duration.ofSeconds(30));
        Api.FragileSink sink = f -> f.value() + 1;
        assertEquals(13, caller.callBack(sink, 12), "the nested call ran on the waiting caller");
        Thread me = Thread.currentThread();
        Api.fragileRefusesOn = th -> th == me; // this thread, waiting, reads the nested call of 13: its record throws
        long start = System.nanoTime();
        Throwable t = assertThrows(Throwable.class, () -> caller.callBack(sink, 13));
        assertTrue(System.nanoTime() - start < 20_000_000_000L, "a call waited for its timeout: " + t);
        assertTrue(t instanceof RemoteException r && r.reason() != RemoteException.Reason.TIMEOUT, t.toString());
        // the Error was this side's, reading a good call: the connection's close says so, not that the peer erred
        assertTrue(t.getMessage().contains("this side failed reading a call of") && !t.getMessage().contains("the peer sent"),
                t.getMessage());
        // the server's call of the sink was answered, or failed with its connection, at once
        Object ended = assertDoesNotThrow(() -> lastCallBack.get(10, java.util.concurrent.TimeUnit.SECONDS),
                "the server's nested call was left unanswered");
        assertTrue(ended instanceof RemoteException r && r.reason() != RemoteException.Reason.TIMEOUT
                && r.getMessage().contains("AssertionError"), String.valueOf(ended));
        Api.fragileRefusesOn = th -> false;
        try (Node another = Node.create()) {
            assertEquals(15, Node.withTimeout(another.lookup(server.addresses().getFirst(), "caller",
                    Api.FragileCaller.class), Duration.ofSeconds(30)).callBack(sink, 14), "the server goes on");
        }
    }
}
