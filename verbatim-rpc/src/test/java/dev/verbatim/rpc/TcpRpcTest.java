package dev.verbatim.rpc;

import dev.verbatim.rpc.Api.Calc;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class TcpRpcTest extends RpcContract {
    @Override
    String address() {
        return "tcp://:0";
    }

    /**
     * The soak once saw a 400 ms call return through a proxy that times out after 100 ms: the caller led the
     * connection, and a leader handling other callers' answers, or yielding its CPU between empty reads to busy
     * threads, read no clock. A call times out when its deadline passes, however busy its connection or its host.
     * (tcp only: shm spinners do not yield, and on a host this busy a caller may wait long for a CPU before its
     * first look, which fixes its deadline.)
     */
    @Test
    void aCallTimesOutWhileAnotherCallerKeepsItsConnectionBusyOnAHostWithNoCpuToSpare() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        List<Thread> busy = new ArrayList<>();
        busy.add(Thread.ofPlatform().start(() -> { // another caller of the connection: its answers keep coming
            try {
                for (int i = 0; !stop.get(); i++) {
                    assertEquals(i + 6, calc.add4(i, 1, 2, 3));
                }
            } catch (Throwable t) {
                failed.set(t);
            }
        }));
        for (int k = 0; k < 4 * Runtime.getRuntime().availableProcessors(); k++) {
            busy.add(Thread.ofPlatform().start(() -> { // every yield of a spinner gives one of these a time slice
                while (!stop.get()) {
                    Thread.onSpinWait();
                }
            }));
        }
        try {
            Calc quick = Node.withTimeout(calc, Duration.ofMillis(100));
            for (int round = 0; round < 10; round++) {
                RemoteException t = assertThrows(RemoteException.class, () -> quick.sleep(400),
                        "a 400 ms call returned through a proxy that times out after 100 ms");
                assertEquals(RemoteException.Reason.TIMEOUT, t.reason());
            }
        } finally {
            stop.set(true);
            for (Thread t : busy) {
                t.join(10_000);
            }
        }
        assertNull(failed.get(), "the other caller's calls were answered right");
    }
}
