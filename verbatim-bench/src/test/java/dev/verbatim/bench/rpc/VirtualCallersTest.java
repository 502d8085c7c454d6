package dev.verbatim.bench.rpc;

import dev.verbatim.bench.harness.ScratchDir;
import dev.verbatim.rpc.Node;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Many callers on virtual threads (issue 18 §2): 256 virtual threads calling one proxy at once all get their
 * replies, over tcp and over shm. A caller waiting for its reply may pin its carrier (session 7), and there
 * are only as many carriers as CPUs: if the waiting callers held every carrier while the one that must read
 * the reply could not run, the calls would hang; the hard timeout turns that into a failure.
 */
class VirtualCallersTest {
    static final int CALLERS = 256;
    static final int CALLS = 20;

    public interface Echo {
        int echo(int v);
    }

    private static void callersAllReturn(String address, Node server, Node client) throws Exception {
        server.export("echo", Echo.class, v -> v + 1);
        Echo e = client.lookup(address, "echo", Echo.class);
        AtomicLong done = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> ts = new ArrayList<>();
        for (int i = 0; i < CALLERS; i++) {
            int base = i * CALLS;
            ts.add(Thread.ofVirtual().name("vcaller-" + i).start(() -> {
                try {
                    for (int k = 0; k < CALLS; k++) {
                        int r = e.echo(base + k);
                        if (r != base + k + 1) {
                            throw new IllegalStateException("echo(" + (base + k) + ") = " + r);
                        }
                        done.incrementAndGet();
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            }));
        }
        for (Thread t : ts) {
            assertTrue(t.join(Duration.ofSeconds(60)), "a virtual caller did not return (a hang): " + done.get()
                    + " of " + CALLERS * CALLS + " calls done");
        }
        assertNull(failure.get());
        assertEquals((long) CALLERS * CALLS, done.get());
    }

    @Test
    @Timeout(90)
    void twoHundredFiftySixVirtualThreadsCallingOneProxyOverTcpAllReturn() throws Exception {
        try (Node server = Node.listen("tcp://127.0.0.1:0"); Node client = Node.create(Node.DEFAULT_OPTIONS, 1)) {
            callersAllReturn(server.addresses().getFirst(), server, client);
        }
    }

    @Test
    @Timeout(90)
    void twoHundredFiftySixVirtualThreadsCallingOneProxyOverShmAllReturn() throws Exception {
        Path dir = ScratchDir.privateDir();
        String old = System.getProperty("verbatim.shm.dir");
        System.setProperty("verbatim.shm.dir", dir.toString());
        try (Node server = Node.listen("shm:vcallers"); Node client = Node.create(Node.DEFAULT_OPTIONS, 1)) {
            callersAllReturn(server.addresses().getFirst(), server, client);
        } finally {
            if (old == null) {
                System.clearProperty("verbatim.shm.dir");
            } else {
                System.setProperty("verbatim.shm.dir", old);
            }
            ScratchDir.deleteTree(dir);
        }
    }
}
