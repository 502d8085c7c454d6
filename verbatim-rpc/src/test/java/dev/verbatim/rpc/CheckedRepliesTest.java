package dev.verbatim.rpc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static dev.verbatim.rpc.FakePeer.frame;
import static dev.verbatim.rpc.FakePeer.string;
import static dev.verbatim.rpc.FakePeer.value;
import static dev.verbatim.rpc.internal.RpcDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Every answer is checked against the call it answers (docs/rpc.md §3): a reply of the wrong kind, or
 * whose values do not fit the signature, fails its call with {@code PROTOCOL} and drops the connection,
 * never a {@code NullPointerException} or {@code ClassCastException} in the caller. A broken server is
 * played by a {@link FakePeer}.
 */
@Timeout(60)
class CheckedRepliesTest {
    private final Node client = Node.create();
    private final FakePeer server = FakePeer.listen();

    @AfterEach
    void stop() {
        client.close();
        server.close();
    }

    /** {@code what} run on another thread: the calls block until the fake server answers. */
    private static <T> CompletableFuture<T> async(Supplier<T> what) {
        return CompletableFuture.supplyAsync(what);
    }

    /** Looks calc up, the fake server granting export 1. */
    private Api.Calc lookUp() throws Exception {
        CompletableFuture<Api.Calc> f = async(() -> client.lookup(server.address(), "calc", Api.Calc.class,
                Duration.ofSeconds(20)));
        server.accept();
        MemorySegment l = server.next(LOOKUP);
        server.send(frame(LOOKUP_OK, 0, 1, callId(l), 0));
        return f.get(20, TimeUnit.SECONDS);
    }

    /** The call failed with PROTOCOL, and the client dropped the connection. */
    private void failsWithProtocolAndDrops(CompletableFuture<?> call) throws Exception {
        ExecutionException e = assertThrows(ExecutionException.class, () -> call.get(20, TimeUnit.SECONDS));
        RemoteException r = assertInstanceOf(RemoteException.class, e.getCause(), "a typed error: " + e.getCause());
        assertEquals(RemoteException.Reason.PROTOCOL, r.reason(), r.getMessage());
        assertTrue(server.closedByNode(), "the client dropped the connection");
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (client.connections() != 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(0, client.connections());
    }

    @Test
    void aReplyWithNoValueAnsweringALookupIsAProtocolFailure() throws Exception {
        CompletableFuture<Api.Calc> f = async(() -> client.lookup(server.address(), "calc", Api.Calc.class,
                Duration.ofSeconds(20)));
        server.accept();
        MemorySegment l = server.next(LOOKUP);
        server.send(frame(REPLY, 0, 0, callId(l), 0));
        failsWithProtocolAndDrops(f);
    }

    @Test
    void aThrownAnsweringALookupIsAProtocolFailure() throws Exception {
        CompletableFuture<Api.Calc> f = async(() -> client.lookup(server.address(), "calc", Api.Calc.class,
                Duration.ofSeconds(20)));
        server.accept();
        MemorySegment l = server.next(LOOKUP);
        server.send(frame(THROWN, 0, 0, callId(l), 0, string("java.lang.IllegalStateException"), string("x")));
        failsWithProtocolAndDrops(f);
    }

    /** Makes {@code call} on a looked-up calc, answers it with {@code answer} (given the call's id), and expects PROTOCOL. */
    private void answeredWith(java.util.function.Function<Api.Calc, CompletableFuture<?>> call,
                              java.util.function.LongFunction<MemorySegment> answer) throws Exception {
        Api.Calc calc = lookUp();
        CompletableFuture<?> f = call.apply(calc);
        server.send(answer.apply(callId(server.next(CALL))));
        failsWithProtocolAndDrops(f);
    }

    @Test
    void aReplyWithNoValueToAMethodWithAPrimitiveResultIsAProtocolFailure() throws Exception {
        answeredWith(calc -> async(() -> calc.add4(1, 2, 3, 4)), id -> frame(REPLY, 0, 0, id, 0));
    }

    @Test
    void aReplyWithAValueToAVoidMethodIsAProtocolFailure() throws Exception {
        answeredWith(calc -> CompletableFuture.runAsync(() -> calc.sleep(1)),
                id -> frame(REPLY, 0, 0, id, 0, value(T_PRIM, 8, 7)));
    }

    @Test
    void aLookupOkAnsweringACallIsAProtocolFailure() throws Exception {
        answeredWith(calc -> async(() -> calc.add4(1, 2, 3, 4)), id -> frame(LOOKUP_OK, 0, 1, id, 0));
    }

    @Test
    void aLookupFailAnsweringACallIsAProtocolFailure() throws Exception {
        answeredWith(calc -> async(() -> calc.add4(1, 2, 3, 4)),
                id -> frame(LOOKUP_FAIL, RemoteException.Reason.NOT_FOUND.code(), 0, id, 0, string("no")));
    }

    @Test
    void aValueOfTheWrongTypeCompletingAnAsynchronousCallIsAProtocolFailure() throws Exception {
        // CompletableFuture<Integer>: a String in it would be a ClassCastException where it is used
        answeredWith(calc -> calc.later(7).thenApply(i -> i + 1),
                id -> frame(REPLY, 0, 0, id, 0, FakePeer.wire("not an integer")));
    }

    @Test
    void aFailWithAnUnknownReasonIsAProtocolFailure() throws Exception {
        answeredWith(calc -> async(() -> calc.add4(1, 2, 3, 4)), id -> frame(FAIL, 99, 0, id, 0, string("what")));
    }

    @Test
    void aWellFormedFailKeepsTheConnection() throws Exception {
        Api.Calc calc = lookUp();
        CompletableFuture<Integer> call = async(() -> calc.add4(1, 2, 3, 4));
        MemorySegment c = server.next(CALL);
        server.send(frame(FAIL, RemoteException.Reason.OVERLOADED.code(), 0, callId(c), 0, string("busy")));
        ExecutionException e = assertThrows(ExecutionException.class, () -> call.get(20, TimeUnit.SECONDS));
        assertEquals(RemoteException.Reason.OVERLOADED, ((RemoteException) e.getCause()).reason());
        CompletableFuture<Integer> again = async(() -> calc.add4(1, 2, 3, 4));
        c = server.next(CALL);
        server.send(frame(REPLY, 0, 0, callId(c), 0, value(T_PRIM, 8, 10)));
        assertEquals(10, again.get(20, TimeUnit.SECONDS), "the connection stays for answers that fit their calls");
    }
}
