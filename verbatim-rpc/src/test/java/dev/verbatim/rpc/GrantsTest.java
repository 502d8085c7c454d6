package dev.verbatim.rpc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.verbatim.rpc.FakePeer.frame;
import static dev.verbatim.rpc.FakePeer.method;
import static dev.verbatim.rpc.FakePeer.string;
import static dev.verbatim.rpc.FakePeer.text;
import static dev.verbatim.rpc.FakePeer.value;
import static dev.verbatim.rpc.internal.RpcDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * A peer calls only what it was granted (DESIGN §7, docs/rpc.md §3): the exports it looked up over its
 * connection and the objects handed to it, each as the interface it was handed out as; and what it was not
 * given is not named in the errors it gets. The peer is a {@link FakePeer} writing raw frames.
 */
@Timeout(60)
class GrantsTest {
    /** What a holder of the read-only facet may do. */
    public interface Reader extends Remote {
        int read();
    }

    /** What only an administrator should be able to do. */
    public interface Admin extends Remote {
        void wipe();
    }

    /** Hands out the reader facet of its data; wipes through an {@code Admin} it is given. */
    public interface Store extends Remote {
        Reader reader();

        /** Wipes through {@code admin}; true if that wiped this store's data. */
        boolean wipe(Admin admin);
    }

    /** The store's data, with both facets. */
    static final class Data implements Reader, Admin {
        final AtomicInteger value = new AtomicInteger(42);

        @Override
        public int read() {
            return value.get();
        }

        @Override
        public void wipe() {
            value.set(0);
        }
    }

    private Node server;
    private FakePeer peer;
    private final Data data = new Data();

    @BeforeEach
    void start() {
        server = Node.listen("tcp://127.0.0.1:0");
        server.export("calc", Api.Calc.class, new Api.CalcImpl()); // export #1
        server.export("admin", Admin.class, data); // export #2: never looked up by the peer
        server.export("store", Store.class, new Store() { // export #3
            @Override
            public Reader reader() {
                return data;
            }

            @Override
            public boolean wipe(Admin admin) {
                admin.wipe();
                return data.value.get() == 0;
            }
        });
        peer = FakePeer.connect(server.addresses().getFirst());
    }

    @AfterEach
    void stop() {
        peer.close();
        server.close();
    }

    /** Looks {@code name} up as {@code iface} over the peer's connection: the export id granted. */
    private int lookUp(String name, Class<?> iface) {
        var ri = dev.verbatim.rpc.internal.RemoteInterface.of(iface);
        long[] ids = ri.ids();
        byte[] idBytes = MemorySegment.ofArray(ids).toArray(ValueLayout.JAVA_BYTE);
        peer.send(frame(LOOKUP, 0, 0, 1, 0, string(name), string(iface.getName()), FakePeer.bytes(idBytes)));
        MemorySegment ok = peer.next(LOOKUP_OK);
        return target(ok);
    }

    private MemorySegment call(int target, long method, MemorySegment... args) {
        peer.send(frame(CALL, 0, target, 7, method, args));
        return peer.next();
    }

    private static MemorySegment i(int x) {
        return value(T_PRIM, 8, x);
    }

    @Test
    void anExportThatWasNotLookedUpOverTheConnectionCannotBeCalled() {
        long add4 = method(Api.Calc.class, "add4");
        MemorySegment r = call(1, add4, i(1), i(2), i(3), i(4));
        assertEquals(FAIL, kind(r), "export #1 exists, but this connection never looked it up");
        assertEquals(RemoteException.Reason.NOT_FOUND.code(), flags(r));
        assertEquals(1, lookUp("calc", Api.Calc.class));
        r = call(1, add4, i(1), i(2), i(3), i(4));
        assertEquals(REPLY, kind(r), "looked up: granted");
        assertEquals(10, r.get(ValueLayout.JAVA_LONG_UNALIGNED, REPLY_HEADER + VALUE_HEADER));
        r = call(2, method(Admin.class, "wipe"));
        assertEquals(FAIL, kind(r), "a grant is for the export looked up, not for its neighbours");
        assertEquals(42, data.value.get());
    }

    @Test
    void anUngrantedExportAndAnUnknownOneLookTheSameAndNameNothing() {
        long bogus = 0x1234_5678_9abc_def0L;
        MemorySegment ungranted = call(2, bogus);
        MemorySegment unknown = call(999, bogus);
        MemorySegment ungrantedRightMethod = call(2, method(Admin.class, "wipe"));
        assertEquals(FAIL, kind(ungranted));
        assertEquals(flags(unknown), flags(ungranted), "the same reason");
        assertEquals(flags(unknown), flags(ungrantedRightMethod), "a right method id tells nothing more");
        String a = text(ungranted, HEADER);
        String b = text(unknown, HEADER);
        assertEquals(b.replace("#999 ", "#2 "), a, "the same words"); // (the export id only: a port may hold 999 too)
        assertEquals(a, text(ungrantedRightMethod, HEADER));
        assertFalse(a.contains("Admin"), "the interface of export #2 is not named: " + a);
        assertEquals(42, data.value.get());
    }

    @Test
    void aLookupThatFailsDoesNotNameTheExportedInterface() {
        var ri = dev.verbatim.rpc.internal.RemoteInterface.of(Api.Calc.class);
        byte[] idBytes = MemorySegment.ofArray(ri.ids()).toArray(ValueLayout.JAVA_BYTE);
        peer.send(frame(LOOKUP, 0, 0, 1, 0, string("admin"), string("Calc"), FakePeer.bytes(idBytes)));
        MemorySegment r = peer.next(LOOKUP_FAIL);
        assertEquals(RemoteException.Reason.INCOMPATIBLE.code(), flags(r));
        String m = text(r, HEADER);
        assertFalse(m.contains(Admin.class.getName()), m);
        MemorySegment c = call(2, method(Admin.class, "wipe"));
        assertEquals(FAIL, kind(c), "a failed lookup grants nothing");
        assertEquals(42, data.value.get());
    }

    @Test
    void anObjectOfTheReceiverComesBackOnlyAsTheInterfaceItWasHandedOutAs() {
        int store = lookUp("store", Store.class);
        MemorySegment r = call(store, method(Store.class, "reader"));
        assertEquals(REPLY, kind(r));
        assertEquals(T_REMOTE, tag(r, REPLY_HEADER));
        long ref = r.get(ValueLayout.JAVA_LONG_UNALIGNED, REPLY_HEADER + VALUE_HEADER);
        assertEquals(SIDE_SENDER, (int) (ref >>> 32), "the server's object, handed out as a Reader");
        int object = (int) ref;
        long back = (long) SIDE_RECEIVER_OBJECT << 32 | (object & 0xFFFF_FFFFL);
        r = call(store, method(Store.class, "wipe"), value(T_REMOTE, 8, back)); // the Reader passed as an Admin
        assertEquals(FAIL, kind(r), "the reader facet is refused where an Admin is declared");
        assertEquals(RemoteException.Reason.PROTOCOL.code(), flags(r));
        assertEquals(42, data.value.get(), "nothing was wiped");
    }

    @Test
    void aNamedExportComesBackAsAReferenceOnlyIfItWasLookedUp() {
        int store = lookUp("store", Store.class);
        long admin = (long) SIDE_RECEIVER_EXPORT << 32 | 2; // export #2, never looked up
        MemorySegment r = call(store, method(Store.class, "wipe"), value(T_REMOTE, 8, admin));
        assertEquals(FAIL, kind(r), "an ungranted export cannot be passed back as a reference");
        assertEquals(42, data.value.get(), "nothing was wiped");
    }
}
