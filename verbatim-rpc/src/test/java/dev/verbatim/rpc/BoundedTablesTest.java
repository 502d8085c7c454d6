package dev.verbatim.rpc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import static dev.verbatim.rpc.FakePeer.frame;
import static dev.verbatim.rpc.FakePeer.method;
import static dev.verbatim.rpc.FakePeer.string;
import static dev.verbatim.rpc.internal.RpcDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * The reference tables stay bounded whatever a peer does (docs/rpc.md §3, DESIGN §7): a peer that never
 * releases stops at the connection's limit with a clear error, and a {@code RELEASE} that gives back what was
 * never handed out (a negative count, more than was handed, an unknown object) is a protocol error that
 * drops the connection, never a count raised.
 */
@Timeout(120)
class BoundedTablesTest {
    private static final int LIMIT = 200;
    private Node server;

    @BeforeEach
    void start() {
        System.setProperty("verbatim.rpc.maxObjects", String.valueOf(LIMIT)); // read as each connection opens
        server = Node.listen("tcp://127.0.0.1:0");
        server.export("calc", Api.Calc.class, new Api.CalcImpl());
    }

    @AfterEach
    void stop() {
        System.clearProperty("verbatim.rpc.maxObjects");
        server.close();
    }

    @Test
    void aPeerThatNeverReleasesIsStoppedAtTheConnectionsLimitWithAClearError() {
        try (Node client = Node.create()) {
            Api.Calc calc = client.lookup(server.addresses().getFirst(), "calc", Api.Calc.class);
            List<Api.Counter> held = new ArrayList<>(); // never released: each is one more object on the server
            RemoteException e = null;
            for (int i = 0; i < 5 * LIMIT && e == null; i++) {
                try {
                    held.add(calc.counter());
                } catch (RemoteException limit) {
                    e = limit;
                }
            }
            assertNotNull(e, "the server refused to export more than its limit over one connection");
            assertEquals(RemoteException.Reason.OVERLOADED, e.reason(), e.getMessage());
            assertTrue(e.getMessage().contains(String.valueOf(LIMIT)), "the message names the limit: " + e.getMessage());
            assertEquals(LIMIT, held.size());
            assertEquals(LIMIT, server.exportedObjects());
            assertEquals(10, calc.add4(1, 2, 3, 4), "the connection goes on");
            Node.release(held.removeLast());
            assertEquals(1, held.getLast().add(1), "the objects held still work");
            long deadline = System.nanoTime() + 10_000_000_000L;
            Api.Counter more = null;
            while (more == null && System.nanoTime() < deadline) { // the release travels to the server first
                try {
                    more = calc.counter();
                } catch (RemoteException notYet) {
                    assertEquals(RemoteException.Reason.OVERLOADED, notYet.reason());
                }
            }
            assertNotNull(more, "a released object made room");
        }
    }

    /** A fake client holding one counter of the server's (object id returned). */
    private static int holdOne(FakePeer peer) {
        var ri = dev.verbatim.rpc.internal.RemoteInterface.of(Api.Calc.class);
        byte[] ids = MemorySegment.ofArray(ri.ids()).toArray(ValueLayout.JAVA_BYTE);
        peer.send(frame(LOOKUP, 0, 0, 1, 0, string("calc"), string(Api.Calc.class.getName()), FakePeer.bytes(ids)));
        int calc = target(peer.next(LOOKUP_OK));
        peer.send(frame(CALL, 0, calc, 2, method(Api.Calc.class, "counter")));
        MemorySegment r = peer.next(REPLY);
        assertEquals(T_REMOTE, tag(r, REPLY_HEADER));
        return (int) r.get(ValueLayout.JAVA_LONG_UNALIGNED, REPLY_HEADER + VALUE_HEADER);
    }

    private void aReleaseOfDropsTheConnection(long count, boolean unknown) {
        try (FakePeer peer = FakePeer.connect(server.addresses().getFirst())) {
            int object = holdOne(peer);
            assertEquals(1, server.exportedObjects());
            peer.send(frame(RELEASE, 0, unknown ? object + 1000 : object, count, 0));
            assertTrue(peer.closedByNode(), "the server dropped the connection");
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (server.exportedObjects() != 0 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertEquals(0, server.exportedObjects(), "and what it held with it");
        }
    }

    @Test
    void aReleaseOfANegativeCountIsAProtocolError() {
        aReleaseOfDropsTheConnection(-1, false);
    }

    @Test
    void aReleaseOfMoreThanWasHandedOutIsAProtocolError() {
        aReleaseOfDropsTheConnection(2, false);
    }

    @Test
    void aReleaseOfAnObjectNeverHandedOutIsAProtocolError() {
        aReleaseOfDropsTheConnection(1, true);
    }

    @Test
    void aReleaseOfWhatWasHandedOutForgetsTheObjectAndKeepsTheConnection() {
        try (FakePeer peer = FakePeer.connect(server.addresses().getFirst())) {
            int object = holdOne(peer);
            peer.send(frame(RELEASE, 0, object, 1, 0));
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (server.exportedObjects() != 0 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertEquals(0, server.exportedObjects());
            peer.send(frame(CALL, TO_OBJECT, object, 3, method(Api.Counter.class, "add"), FakePeer.value(T_PRIM, 8, 1)));
            MemorySegment r = peer.next(FAIL);
            assertEquals(RemoteException.Reason.NOT_FOUND.code(), flags(r), "released: gone, and the connection stays");
        }
    }
}
