package dev.verbatim.rpc;

import dev.verbatim.rpc.Api.Calc;
import dev.verbatim.rpc.Api.CalcImpl;
import dev.verbatim.transport.ConnectionOptions;
import dev.verbatim.transport.TransportException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A node's options reach both its listeners and its lookups: a shared secret guards its tcp calls both ways. */
@Timeout(60)
class TcpSharedSecretRpcTest {
    private static final byte[] SECRET = "sixteen bytes at least, thirty-two here".getBytes(StandardCharsets.US_ASCII);

    @Test
    void onlyNodesWithTheSameSecretCanLookUpAndCall() {
        ConnectionOptions with = Node.DEFAULT_OPTIONS.withSharedSecret(SECRET).withConnectTimeout(Duration.ofSeconds(10));
        ConnectionOptions other = Node.DEFAULT_OPTIONS.withSharedSecret("a different secret of some length".getBytes(StandardCharsets.US_ASCII));
        try (Node server = Node.listen(with, "tcp://:0");
             Node good = Node.create(with, 2);
             Node none = Node.create();
             Node wrong = Node.create(other, 1)) {
            server.export("calc", Calc.class, new CalcImpl());
            String address = server.addresses().getFirst();
            Calc calc = good.lookup(address, "calc", Calc.class);
            assertEquals(10, calc.add4(1, 2, 3, 4));
            for (Node bad : List.of(none, wrong)) {
                long t0 = System.nanoTime();
                RemoteException e = assertThrows(RemoteException.class, () -> bad.lookup(address, "calc", Calc.class));
                long took = System.nanoTime() - t0;
                assertEquals(RemoteException.Reason.CONNECTION, e.reason(), e.getMessage());
                assertTrue(e.getMessage().contains("shared secret"), e.getMessage());
                assertEquals(TransportException.Reason.AUTH, assertInstanceOf(TransportException.class, e.getCause()).reason());
                assertTrue(took < Duration.ofSeconds(5).toNanos(), "refused at once, not after a timeout: " + took / 1_000_000 + " ms");
            }
            assertEquals(26, calc.add4(5, 6, 7, 8), "the authenticated node still calls");
        }
    }
}
