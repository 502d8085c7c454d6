package dev.verbatim.objects;

import dev.verbatim.objects.Fixtures.Cell;
import dev.verbatim.objects.Fixtures.Counter;
import dev.verbatim.objects.internal.BaseService;
import dev.verbatim.objects.internal.Reference;
import dev.verbatim.objects.internal.ReferenceDescriptor;
import dev.verbatim.rpc.RemoteException;
import dev.verbatim.rpc.internal.RemoteInterface;
import dev.verbatim.rpc.internal.RpcDescriptor;
import dev.verbatim.transport.Claim;
import dev.verbatim.transport.Connection;
import dev.verbatim.transport.Transport;
import dev.verbatim.transport.TransportException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A peer sending forged or malformed references: the base that receives one answers the call with
 * {@code PROTOCOL}, naming the problem, and drops that connection; its objects, their weights and its
 * other connections are untouched.
 */
@Timeout(60)
class MalformedReferencesTest {
    private static final long RELEASE = method("release");
    private static final long HELLO = method("hello");
    private final List<Base> bases = new ArrayList<>();

    private Base base() {
        Base b = Base.listen(BasesInOneProcessTest.address("shm"));
        bases.add(b);
        return b;
    }

    @AfterEach
    void close() {
        bases.forEach(Base::close);
    }

    static long method(String name) {
        for (RemoteInterface.MethodInfo m : RemoteInterface.of(BaseService.class).methods) {
            if (m.method.getName().equals(name)) {
                return m.id;
            }
        }
        throw new AssertionError(name);
    }

    record Bad(String why, byte[] reference, String expected) {}

    @Test
    void forgedIdsOwnersAndWeightsDropTheConnectionTheyCameByAndNothingElse() {
        Base a = base();
        Base b = base();
        Cell cell = new Cell(1);
        b.bind("cell", cell);
        Counter held = a.lookup(b.addresses().getFirst(), "cell", Counter.class); // b's object #1, weight 2^40 out
        long out = b.outstandingWeight(cell);
        long other = a.id().incarnation();
        List<String> at = b.addresses();
        List<String> iface = List.of(Counter.class.getName());
        byte[] unknownFlags = ReferenceDescriptor.encode(new Reference(other, 1, 1, at, iface));
        unknownFlags[ReferenceDescriptor.FLAGS] = 8; // (1 is DECLARED, 2 SENDER, 4 KNOWN)
        byte[] whole = ReferenceDescriptor.encode(new Reference(other, 1, 1, at, iface));
        byte[] trailing = java.util.Arrays.copyOf(whole, whole.length + 3);
        byte[] overrun = java.util.Arrays.copyOf(whole, whole.length - 1);
        List<Bad> bad = List.of(
                new Bad("an id b never handed out", ref(b, 999, 1), "never handed out"),
                new Bad("more weight than b handed out", ref(b, 1, out + 1), "more than the " + out + " outstanding"),
                new Bad("a weight of 2^63 or more", ref(b, 1, Long.MIN_VALUE), "2^63"),
                new Bad("another base's object without weight",
                        ReferenceDescriptor.encode(new Reference(other, 1, 0, at, iface)), "without weight"),
                new Bad("another base's object without addresses",
                        ReferenceDescriptor.encode(new Reference(other, 1, 1, List.of(), iface)), "without its addresses"),
                new Bad("no owner", ReferenceDescriptor.encode(new Reference(0, 1, 1, at, iface)), "without an owner"),
                new Bad("a short reference", new byte[5], "of 5 bytes"),
                new Bad("unknown flags", unknownFlags, "unknown flags"),
                new Bad("bytes after the end", trailing, "after its end"),
                new Bad("a string overrunning the reference", overrun, "overruns"));
        for (Bad x : bad) {
            String message = sendExpectingDrop(b, x.reference());
            assertTrue(message.contains(x.expected()), x.why() + ": the reason names it: " + message);
            assertEquals(2, held.add(0) + 1, "a's reference to b's object keeps working after " + x.why());
            assertEquals(out, b.outstandingWeight(cell), "b's weights are untouched by " + x.why());
            assertEquals(1, b.exportedObjects());
        }
    }

    @Test
    void aWeightThatWouldOverflowWhatAHolderHoldsIsRefused() {
        Base a = base();
        Base b = base();
        b.bind("cell", new Cell(1));
        Counter held = a.lookup(b.addresses().getFirst(), "cell", Counter.class);
        long w = Base.heldWeight(held);
        byte[] r = ReferenceDescriptor.encode(new Reference(b.id().incarnation(), 1, Long.MAX_VALUE - w + 1,
                b.addresses(), List.of(Counter.class.getName())));
        String message = sendExpectingDrop(a, r); // to a, which holds b's object
        assertTrue(message.contains("overflows"), message);
        assertEquals(w, Base.heldWeight(held), "a's weight is untouched");
        assertEquals(1, held.value());
    }

    @Test
    void aSenderVouchingForItsOwnObjectAtAddressesNotItsOwnIsDroppedAndOtherBasesKeepWorking() {
        Base a = base();
        Base b = base();
        b.bind("cell", new Cell(1));
        Counter held = a.lookup(b.addresses().getFirst(), "cell", Counter.class);
        long sender = 0x5e4de7L;
        byte[] introduction = introduction(sender, "shm:the-sender");
        byte[] forged = ReferenceDescriptor.encode(new Reference(sender, 1, 1, List.of("shm:somewhere-else"),
                List.of(Counter.class.getName())));
        String message = sendExpectingDrop(b, introduction, forged);
        assertTrue(message.contains("not the sender's [shm:the-sender]"), message);
        assertEquals(1, held.value(), "a's reference to b's object keeps working");
        assertEquals(1, b.exportedObjects());
    }

    /**
     * A reference to its sender's own object leaves the addresses out (ReferenceDescriptor.SENDER): one naming another
     * owner, one from a connection whose far end never introduced itself, and one carrying addresses too are each
     * dropped with a reason, and the other bases keep working.
     */
    @Test
    void aReferenceClaimingToBeItsSendersOwnWhereItIsNotIsDroppedAndOtherBasesKeepWorking() {
        Base a = base();
        Base b = base();
        b.bind("cell", new Cell(1));
        Counter held = a.lookup(b.addresses().getFirst(), "cell", Counter.class);
        long sender = 0x5e4de8L;
        byte[] introduction = introduction(sender, "shm:the-sender");
        List<String> iface = List.of(Counter.class.getName());
        byte[] anothers = ReferenceDescriptor.encodeFromSender(new Reference(sender + 1, 1, 1, List.of(), iface), false);
        assertTrue(sendExpectingDrop(b, introduction, anothers).contains("as its owner, from"), "another owner");
        byte[] unintroduced = ReferenceDescriptor.encodeFromSender(new Reference(sender, 1, 1, List.of(), iface), false);
        String m = sendExpectingDrop(b, unintroduced);
        assertTrue(m.contains("never introduced itself"), m);
        long another = sender + 2; // (a base whose connection was dropped is not introduced again)
        byte[] withAddresses = ReferenceDescriptor.encode(new Reference(another, 1, 1, List.of("shm:another"), iface));
        withAddresses[ReferenceDescriptor.FLAGS] = ReferenceDescriptor.SENDER;
        m = sendExpectingDrop(b, introduction(another, "shm:another"),
                withAddresses);
        assertTrue(m.contains("naming 1 addresses"), m);
        assertEquals(1, held.value(), "a's reference to b's object keeps working");
        assertEquals(1, b.exportedObjects());
    }

    /**
     * A reference may leave its owner's addresses out where the receiver knows them (ReferenceDescriptor.KNOWN): one
     * naming an owner the receiver was never given an address of, one naming addresses too, and one both KNOWN and
     * SENDER are each dropped with a reason, and the other bases keep working.
     */
    @Test
    void aReferenceLeavingOutAddressesTheReceiverWasNeverGivenIsDroppedAndOtherBasesKeepWorking() {
        Base a = base();
        Base b = base();
        b.bind("cell", new Cell(1));
        Counter held = a.lookup(b.addresses().getFirst(), "cell", Counter.class);
        List<String> iface = List.of(Counter.class.getName());
        long stranger = 0x5e4de9L;
        byte[] unknownOwner = ReferenceDescriptor.encodeKnown(new Reference(stranger, 1, 1, List.of(), iface), false);
        String m = sendExpectingDrop(b, unknownOwner);
        assertTrue(m.contains("never given"), m);
        byte[] withAddresses = ReferenceDescriptor.encode(new Reference(stranger, 1, 1, List.of("shm:stranger"), iface));
        withAddresses[ReferenceDescriptor.FLAGS] = ReferenceDescriptor.KNOWN;
        m = sendExpectingDrop(b, withAddresses);
        assertTrue(m.contains("naming 1 addresses"), m);
        byte[] both = ReferenceDescriptor.encodeKnown(new Reference(stranger, 1, 1, List.of(), iface), false);
        both[ReferenceDescriptor.FLAGS] = ReferenceDescriptor.KNOWN | ReferenceDescriptor.SENDER;
        m = sendExpectingDrop(b, both);
        assertTrue(m.contains("both"), m);
        assertEquals(1, held.value(), "a's reference to b's object keeps working");
        assertEquals(1, b.exportedObjects());
        assertEquals(0, b.heldObjects(), "nothing made of any of them");
    }

    @Test
    void aForgedTableIndexOrTableEntryDropsTheConnectionWithAReason() {
        Base a = base();
        Base b = base();
        Fixtures.DeskImpl atB = new Fixtures.DeskImpl();
        b.bind("desk", atB);
        Fixtures.Desk desk = a.lookup(b.addresses().getFirst(), "desk", Fixtures.Desk.class); // b's object #1
        long out = b.outstandingWeight(atB);
        byte[] order = orderWithSlot(); // Order("o", slot 0, null)
        long place = java.util.Arrays.stream(RemoteInterface.of(Fixtures.Desk.class).methods)
                .filter(m -> m.method.getName().equals("place")).findFirst().orElseThrow().id;
        List<Bad> bad = List.of(
                new Bad("a slot beyond the table", withTable(order), "reference slot out of range"),
                new Bad("a table entry b never handed out", withTable(order, ref(b, 999, 1)), "never handed out"),
                new Bad("a table entry that is not of the slot's type", withTable(order, ref(b, 1, 0)),
                        "is not a " + Counter.class.getName()),
                new Bad("a table longer than the value", tableCount(withTable(order), 1000), "do not fit"),
                new Bad("a malformed table entry", withTable(order, new byte[5]), "of 5 bytes"));
        for (Bad x : bad) {
            String message = dropReason(b, null, callShared(1, place, x.reference()));
            assertTrue(message.contains(x.expected()), x.why() + ": the reason names it: " + message);
            assertEquals("o1", placeAndRead(desk), "a's reference to b's desk keeps working after " + x.why());
            assertEquals(out, b.outstandingWeight(atB), "b's weights are untouched by " + x.why());
            assertEquals(1, b.exportedObjects());
            assertNull(atB.stored, "the forged order never reached the desk");
        }
    }

    private static String placeAndRead(Fixtures.Desk desk) {
        desk.place(new Fixtures.Order("o1", null, null));
        String id = desk.order().id();
        desk.drop();
        return id;
    }

    /** The wire message of an order whose customer is reference slot 0. */
    private static byte[] orderWithSlot() {
        dev.verbatim.wire.WireWriter w = new dev.verbatim.wire.WireWriter();
        w.references((value, declared) -> 0);
        Fixtures.Order o = new Fixtures.Order("o", new Cell(1), null);
        byte[] m = new byte[(int) w.sizeOf(o)];
        w.write(o, MemorySegment.ofArray(m), 0);
        return m;
    }

    /** A T_WIRE_REFS payload: {@code message}, then the table of {@code entries}. */
    private static byte[] withTable(byte[] message, byte[]... entries) {
        int size = 8 + pad(message.length);
        for (byte[] e : entries) {
            size += 8 + pad(e.length);
        }
        MemorySegment p = MemorySegment.ofArray(new byte[size]);
        p.set(ValueLayout.JAVA_INT_UNALIGNED, 0, message.length);
        p.set(ValueLayout.JAVA_INT_UNALIGNED, 4, entries.length);
        MemorySegment.copy(MemorySegment.ofArray(message), 0, p, 8, message.length);
        long at = 8 + pad(message.length);
        for (byte[] e : entries) {
            p.set(ValueLayout.JAVA_INT_UNALIGNED, at, e.length);
            MemorySegment.copy(MemorySegment.ofArray(e), 0, p, at + 8, e.length);
            at += 8 + pad(e.length);
        }
        return p.toArray(ValueLayout.JAVA_BYTE);
    }

    private static byte[] tableCount(byte[] payload, int n) {
        MemorySegment.ofArray(payload).set(ValueLayout.JAVA_INT_UNALIGNED, 4, n);
        return payload;
    }

    private static int pad(int n) {
        return (n + 7) & ~7;
    }

    /** A CALL of shared object {@code target} (flag TO_SHARED), method {@code method}, one T_WIRE_REFS value. */
    private static byte[] callShared(int target, long method, byte[] payload) {
        byte[] m = call(method, payload);
        MemorySegment s = MemorySegment.ofArray(m);
        s.set(ValueLayout.JAVA_BYTE, RpcDescriptor.FLAGS, (byte) RpcDescriptor.TO_SHARED);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, RpcDescriptor.TARGET, target);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, RpcDescriptor.HEADER, RpcDescriptor.T_WIRE_REFS);
        return m;
    }

    private static byte[] ref(Base owner, int id, long weight) {
        return ReferenceDescriptor.encode(new Reference(owner.id().incarnation(), id, weight, List.of(), List.of()));
    }

    /** Base {@code sender}'s introduction ({@code hello}'s argument: its object 0, no weight) at {@code address}. */
    private static byte[] introduction(long sender, String address) {
        return ReferenceDescriptor.encode(new Reference(sender, 0, 0, List.of(address), List.of()));
    }

    /** Sends {@code base}'s service a release of {@code reference}; the reason of the FAIL that answers it. */
    private static String sendExpectingDrop(Base base, byte[] reference) {
        return sendExpectingDrop(base, null, reference);
    }

    /**
     * Sends {@code base}'s service a hello with {@code introduction} (if not null), then a release of
     * {@code reference}; the reason of the FAIL that answers it.
     */
    private static String sendExpectingDrop(Base base, byte[] introduction, byte[] reference) {
        return dropReason(base, introduction, release(reference));
    }

    /**
     * Sends {@code base} the message {@code m} (after a lookup of its service and, if not null, a hello with
     * {@code introduction}); the reason of the FAIL that answers it, after checking the connection was then dropped.
     */
    private static String dropReason(Base base, byte[] introduction, byte[] m) {
        try (Connection raw = Transport.connect(base.addresses().getFirst())) {
            lookUpService(raw); // a connection calls only the exports it looked up
            if (introduction != null) {
                send(raw, call(HELLO, introduction));
                var hello = raw.take(Duration.ofSeconds(10));
                assertNotNull(hello, "the introduction is answered");
                assertEquals(RpcDescriptor.REPLY, hello.payload().get(ValueLayout.JAVA_BYTE, RpcDescriptor.KIND));
                hello.release();
            }
            Claim c = raw.claim(m.length);
            c.segment().copyFrom(MemorySegment.ofArray(m));
            c.commit();
            var reply = raw.take(Duration.ofSeconds(10));
            assertNotNull(reply, "an answer");
            MemorySegment r = reply.payload();
            assertEquals(RpcDescriptor.FAIL, r.get(ValueLayout.JAVA_BYTE, RpcDescriptor.KIND));
            assertEquals(RemoteException.Reason.PROTOCOL.code(), r.get(ValueLayout.JAVA_BYTE, RpcDescriptor.FLAGS));
            int n = r.get(ValueLayout.JAVA_INT_UNALIGNED, RpcDescriptor.HEADER + 4);
            String message = new String(r.asSlice(RpcDescriptor.HEADER + RpcDescriptor.VALUE_HEADER, n)
                    .toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
            reply.release();
            TransportException e = assertThrows(TransportException.class, () -> {
                for (int i = 0; i < 200; i++) {
                    if (raw.take(Duration.ofMillis(100)) != null) {
                        throw new AssertionError("more than one answer");
                    }
                }
            }, "then the connection is dropped");
            assertEquals(TransportException.Reason.PEER_CLOSED, e.reason(), e.getMessage());
            return message;
        }
    }

    /** Looks the base service up over {@code raw} (call id 1), as a base does: export #1 is then granted to it. */
    private static void lookUpService(Connection raw) {
        byte[] name = BaseService.NAME.getBytes(StandardCharsets.UTF_8);
        byte[] iface = BaseService.class.getName().getBytes(StandardCharsets.UTF_8);
        byte[] ids = MemorySegment.ofArray(RemoteInterface.of(BaseService.class).ids()).toArray(ValueLayout.JAVA_BYTE);
        int size = RpcDescriptor.HEADER;
        for (byte[] v : List.of(name, iface, ids)) {
            size += (int) RpcDescriptor.span(v.length);
        }
        MemorySegment m = MemorySegment.ofArray(new byte[size]);
        m.set(ValueLayout.JAVA_BYTE, RpcDescriptor.KIND, (byte) RpcDescriptor.LOOKUP);
        m.set(ValueLayout.JAVA_SHORT_UNALIGNED, RpcDescriptor.COUNT, (short) 3);
        m.set(ValueLayout.JAVA_LONG_UNALIGNED, RpcDescriptor.CALL_ID, 1L);
        long at = RpcDescriptor.HEADER;
        for (byte[] v : List.of(name, iface, ids)) {
            RpcDescriptor.putValueHeader(m, at, RpcDescriptor.T_BYTES, v.length);
            MemorySegment.copy(MemorySegment.ofArray(v), 0, m, at + RpcDescriptor.VALUE_HEADER, v.length);
            at += RpcDescriptor.span(v.length);
        }
        Claim c = raw.claim(size);
        c.segment().copyFrom(m);
        c.commit();
        var ok = raw.take(Duration.ofSeconds(10));
        assertNotNull(ok, "the lookup was answered");
        assertEquals(RpcDescriptor.LOOKUP_OK, ok.payload().get(ValueLayout.JAVA_BYTE, RpcDescriptor.KIND));
        assertEquals(1, ok.payload().get(ValueLayout.JAVA_INT_UNALIGNED, RpcDescriptor.TARGET), "the service is export #1");
        ok.release();
    }

    private static void send(Connection raw, byte[] m) {
        Claim c = raw.claim(m.length);
        c.segment().copyFrom(MemorySegment.ofArray(m));
        c.commit();
    }

    /** A CALL of the base service's release (export #1) with one T_SHARED value. */
    private static byte[] release(byte[] reference) {
        return call(RELEASE, reference);
    }

    /** A CALL of the base service's method {@code method} (export #1) with one T_SHARED value. */
    private static byte[] call(long method, byte[] reference) {
        int size = RpcDescriptor.HEADER + (int) RpcDescriptor.span(reference.length);
        MemorySegment m = MemorySegment.ofArray(new byte[size]);
        m.set(ValueLayout.JAVA_BYTE, RpcDescriptor.KIND, (byte) RpcDescriptor.CALL);
        m.set(ValueLayout.JAVA_SHORT_UNALIGNED, RpcDescriptor.COUNT, (short) 1);
        m.set(ValueLayout.JAVA_INT_UNALIGNED, RpcDescriptor.TARGET, 1);
        m.set(ValueLayout.JAVA_LONG_UNALIGNED, RpcDescriptor.CALL_ID, 77L);
        m.set(ValueLayout.JAVA_LONG_UNALIGNED, RpcDescriptor.METHOD, method);
        RpcDescriptor.putValueHeader(m, RpcDescriptor.HEADER, RpcDescriptor.T_SHARED, reference.length);
        MemorySegment.copy(MemorySegment.ofArray(reference), 0, m, RpcDescriptor.HEADER + RpcDescriptor.VALUE_HEADER,
                reference.length);
        return m.toArray(ValueLayout.JAVA_BYTE);
    }
}
