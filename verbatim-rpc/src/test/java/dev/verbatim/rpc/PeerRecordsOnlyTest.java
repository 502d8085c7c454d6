package dev.verbatim.rpc;

import dev.verbatim.transport.ConnectionOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * Records only, per node ({@link ConnectionOptions#withPeerRecordsOnly}): a node made with it refuses a class a peer
 * sends by copy (a class is built without its constructors' checks), as an argument or as a result; a node made
 * without it, in the same process, builds the class; records pass either way.
 */
@Timeout(60)
class PeerRecordsOnlyTest {
    /** A class whose constructor checks what the materializer would bypass; the no-argument one is the materializer's. */
    public static final class Amount {
        public final int value;

        @SuppressWarnings("unused")
        private Amount() {
            this.value = 1;
        }

        public Amount(int value) {
            if (value <= 0) {
                throw new IllegalArgumentException("an amount is positive: " + value);
            }
            this.value = value;
        }
    }

    /** The record form: its canonical constructor's check runs on what arrives. */
    public record Quantity(int value) {}

    public interface Ledger extends Remote {
        int post(Amount a);

        int postRecord(Quantity q);

        Amount balance();
    }

    static final class LedgerImpl implements Ledger {
        @Override
        public int post(Amount a) {
            return a.value;
        }

        @Override
        public int postRecord(Quantity q) {
            return q.value();
        }

        @Override
        public Amount balance() {
            return new Amount(7);
        }
    }

    private final List<Node> nodes = new ArrayList<>();

    @BeforeEach
    void withoutTheProcessWideProperty() {
        assumeFalse(Boolean.getBoolean("verbatim.wire.peerRecordsOnly"), "the property turns it on for every node");
    }

    @AfterEach
    void close() {
        nodes.forEach(Node::close);
    }

    private Node server(ConnectionOptions options) {
        Node n = Node.listen(options, "tcp://127.0.0.1:0");
        nodes.add(n);
        n.export("ledger", Ledger.class, new LedgerImpl());
        return n;
    }

    private Ledger client(Node server, ConnectionOptions options) {
        Node n = Node.create(options, 1);
        nodes.add(n);
        return n.lookup(server.addresses().getFirst(), "ledger", Ledger.class);
    }

    @Test
    void aServerNodeWithRecordsOnlyRefusesAClassArgumentAndOneWithoutBuildsIt() {
        Ledger strict = client(server(Node.DEFAULT_OPTIONS.withPeerRecordsOnly(true)), Node.DEFAULT_OPTIONS);
        assertEquals(3, strict.postRecord(new Quantity(3)), "records pass");
        RemoteException e = assertThrows(RemoteException.class, () -> strict.post(new Amount(5)));
        assertEquals(RemoteException.Reason.PROTOCOL, e.reason(), e.getMessage());
        assertTrue(e.getMessage().contains(Amount.class.getName()), e.getMessage());

        Ledger lax = client(server(Node.DEFAULT_OPTIONS), Node.DEFAULT_OPTIONS);
        assertEquals(5, lax.post(new Amount(5)), "a node without the option builds the class");
    }

    @Test
    void aClientNodeWithRecordsOnlyRefusesAClassResultAndOneWithoutBuildsIt() {
        Node server = server(Node.DEFAULT_OPTIONS);
        RemoteException e = assertThrows(RemoteException.class,
                () -> client(server, Node.DEFAULT_OPTIONS.withPeerRecordsOnly(true)).balance());
        assertEquals(RemoteException.Reason.PROTOCOL, e.reason(), e.getMessage());
        assertTrue(e.getMessage().contains(Amount.class.getName()), e.getMessage());

        assertEquals(7, client(server, Node.DEFAULT_OPTIONS).balance().value, "a node without the option builds the class");
    }

    @Test
    void theOptionIsPartOfTheOptionsAndOffByDefault() {
        assertEquals(false, ConnectionOptions.DEFAULT.peerRecordsOnly());
        ConnectionOptions on = ConnectionOptions.DEFAULT.withPeerRecordsOnly(true);
        assertTrue(on.peerRecordsOnly() && on.withSendTimeout(java.time.Duration.ofSeconds(1)).peerRecordsOnly(),
                "kept by the other with* methods");
        assertTrue(!on.equals(ConnectionOptions.DEFAULT) && on.withPeerRecordsOnly(false).equals(ConnectionOptions.DEFAULT));
    }
}
