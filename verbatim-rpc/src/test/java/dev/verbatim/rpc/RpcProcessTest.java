package dev.verbatim.rpc;

import dev.verbatim.rpc.internal.RpcDescriptor;
import dev.verbatim.transport.Claim;
import dev.verbatim.transport.Connection;
import dev.verbatim.transport.Transport;
import dev.verbatim.transport.TransportException;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What crosses a process boundary: a server or a client killed mid-call, a peer sending garbage. */
@Timeout(90)
class RpcProcessTest {
    private static final AtomicInteger N = new AtomicInteger();
    /** The shm directory of this class and its children: a killed listener's socket file goes with it. */
    private static java.nio.file.Path shmDir;
    private static String previousShmDir;

    @org.junit.jupiter.api.BeforeAll
    static void ownShmDirectory() throws java.io.IOException {
        java.nio.file.Path base = java.nio.file.Path.of("/dev/shm");
        shmDir = java.nio.file.Files.createTempDirectory(java.nio.file.Files.isWritable(base) ? base
                : java.nio.file.Path.of(System.getProperty("java.io.tmpdir")), "verbatim-rpcp-",
                java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                        java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
        previousShmDir = System.setProperty("verbatim.shm.dir", shmDir.toString());
    }

    @org.junit.jupiter.api.AfterAll
    static void removeShmDirectory() throws java.io.IOException {
        if (previousShmDir == null) {
            System.clearProperty("verbatim.shm.dir");
        } else {
            System.setProperty("verbatim.shm.dir", previousShmDir);
        }
        try (var files = java.nio.file.Files.list(shmDir)) {
            for (java.nio.file.Path f : files.toList()) {
                java.nio.file.Files.deleteIfExists(f); // what killed children left: their listeners' sockets
            }
        }
        java.nio.file.Files.deleteIfExists(shmDir);
    }

    static String address(String transport) {
        return transport.equals("shm") ? "shm:rpcp-" + ProcessHandle.current().pid() + "-" + N.incrementAndGet() : "tcp://:0";
    }

    static Process start(String... args) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new java.util.ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "-Xmx256m",
                "-Dverbatim.shm.dir=" + System.getProperty("verbatim.shm.dir"),
                "-cp", System.getProperty("java.class.path"), RpcPeer.class.getName()));
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).redirectErrorStream(true).start();
    }

    static String line(Process p, String prefix) throws Exception {
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<String> f = CompletableFuture.supplyAsync(() -> {
            try {
                String l;
                while ((l = r.readLine()) != null) {
                    if (l.startsWith(prefix)) {
                        return l;
                    }
                }
                return null;
            } catch (java.io.IOException e) {
                return null;
            }
        });
        String l = f.get(60, TimeUnit.SECONDS);
        assertTrue(l != null, "the child printed " + prefix);
        return l;
    }

    static void kill(Process p) throws InterruptedException {
        p.destroyForcibly();
        p.waitFor(10, TimeUnit.SECONDS);
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aServerKilledMidCallFailsTheCallInsteadOfHanging(String transport) throws Exception {
        Process server = start("serve", address(transport));
        try (Node client = Node.create()) {
            String address = line(server, "READY").substring(6);
            Api.Calc calc = client.lookup(address, "calc", Api.Calc.class, Duration.ofSeconds(60));
            assertEquals(10, calc.add4(1, 2, 3, 4));
            CompletableFuture<RemoteException> call = CompletableFuture.supplyAsync(() -> {
                try {
                    calc.sleep(50_000);
                    return null;
                } catch (RemoteException e) {
                    return e;
                }
            });
            Thread.sleep(300);
            kill(server);
            RemoteException e = call.get(30, TimeUnit.SECONDS);
            assertTrue(e != null && e.reason() == RemoteException.Reason.CONNECTION,
                    "the pending call failed with CONNECTION, not a 60 s timeout: " + e);
            RemoteException later = assertThrows(RemoteException.class, () -> calc.add4(1, 2, 3, 4));
            assertTrue(later.reason() == RemoteException.Reason.CONNECTION || later.reason() == RemoteException.Reason.NOT_SENT,
                    later.getMessage());
        } finally {
            kill(server);
        }
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"shm,virtual", "tcp,virtual", "shm,inline", "tcp,inline"})
    void aClientKilledMidCallIsForgottenWithWhatItHeld(String transport, String dispatch) throws Exception {
        try (Node server = Node.listen(address(transport))) {
            boolean virtual = dispatch.equals("virtual");
            server.export("calc", Api.Calc.class, new Api.CalcImpl(),
                    virtual ? ExportOptions.VIRTUAL_THREADS : ExportOptions.INLINE);
            // inline, the dead client's call occupies the server's dispatcher until it ends (2 s): only
            // then is the death read; on a virtual thread it is read at once
            Process client = start("hold", server.addresses().getFirst(), virtual ? "120000" : "2000");
            try {
                line(client, "HOLDING 1");
                assertEquals(1, server.exportedObjects(), "the server exports a counter for the client");
                kill(client);
                long deadline = System.nanoTime() + 20_000_000_000L;
                while ((server.exportedObjects() != 0 || server.connections() != 0) && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertEquals(0, server.exportedObjects(), "what the dead client held was freed");
                assertEquals(0, server.connections(), "its connection is gone");
            } finally {
                kill(client);
            }
            // and the server goes on serving
            try (Node other = Node.create()) {
                assertEquals(10, other.lookup(server.addresses().getFirst(), "calc", Api.Calc.class).add4(1, 2, 3, 4));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aMalformedCallDropsThatConnectionOnly(String transport) throws Exception {
        try (Node server = Node.listen(address(transport)); Node good = Node.create()) {
            server.export("calc", Api.Calc.class, new Api.CalcImpl());
            Api.Calc calc = good.lookup(server.addresses().getFirst(), "calc", Api.Calc.class);
            assertEquals(10, calc.add4(1, 2, 3, 4));
            for (byte[] junk : List.of(new byte[3], new byte[64], bytes(40, 99), bytes(64, 120))) {
                try (Connection raw = Transport.connect(server.addresses().getFirst())) {
                    Claim c = raw.claim(junk.length);
                    c.segment().copyFrom(java.lang.foreign.MemorySegment.ofArray(junk));
                    c.commit();
                    TransportException e = assertThrows(TransportException.class, () -> {
                        for (int i = 0; i < 200; i++) {
                            var d = raw.take(Duration.ofMillis(100)); // nothing comes back but the close
                            if (d != null) {
                                throw new AssertionError("a reply to garbage: " + d.length() + " bytes");
                            }
                        }
                    });
                    assertTrue(e.reason() == TransportException.Reason.PEER_CLOSED, e.getMessage());
                }
                assertEquals(10, calc.add4(1, 2, 3, 4), "the other client keeps working");
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aCallWithUnreadableArgumentsIsAnsweredThenItsConnectionDropped(String transport) throws Exception {
        try (Node server = Node.listen(address(transport)); Node good = Node.create()) {
            server.export("calc", Api.Calc.class, new Api.CalcImpl()); // the node's first export: id 1
            Api.Calc calc = good.lookup(server.addresses().getFirst(), "calc", Api.Calc.class);
            var ri = dev.verbatim.rpc.internal.RemoteInterface.of(Api.Calc.class);
            long add4 = method(ri, "add4");
            long twice = method(ri, "twice");
            long callBack = method(ri, "callBack");
            long take = method(ri, "take"); // take(byte[])
            long sum = method(ri, "sum"); // sum(MemorySegment)
            long[] prim = {RpcDescriptor.T_PRIM, 8, 7};
            record Bad(String why, long method, long[][] values, String expected) {}
            List<Bad> bad = List.of(
                    new Bad("a wire graph where an int goes", add4,
                            new long[][] {prim, {RpcDescriptor.T_WIRE, 8, 0}, prim, prim}, "argument of tag"),
                    new Bad("a graph that fails validation", twice,
                            new long[][] {{RpcDescriptor.T_WIRE, 16, 0x1234_5678_9abc_def0L, -1}}, "could not be read"),
                    new Bad("a value overrunning the message", twice,
                            new long[][] {{RpcDescriptor.T_WIRE, 4096, 0}}, "overruns"),
                    new Bad("raw bytes overrunning the message for a byte[]", take,
                            new long[][] {{RpcDescriptor.T_BYTES, 1 << 20, 0}}, "overruns"),
                    new Bad("raw bytes overrunning the message for a segment", sum,
                            new long[][] {{RpcDescriptor.T_BYTES, 0xFFFF_FFF0L, 0}}, "overruns"),
                    new Bad("raw bytes where a record goes", twice,
                            new long[][] {{RpcDescriptor.T_BYTES, 8, 0}}, "bytes for a"),
                    new Bad("a region that did not come with the call", take,
                            new long[][] {{RpcDescriptor.T_REGION, 4, 0}}, "region"),
                    new Bad("a reference to an object the server never exported", callBack,
                            new long[][] {{RpcDescriptor.T_REMOTE, 8, (1L << 32) | 999}, prim}, "object #999"),
                    new Bad("a reference of an unknown side", callBack,
                            new long[][] {{RpcDescriptor.T_REMOTE, 8, (7L << 32) | 1}, prim}, "unknown side"),
                    new Bad("a shared object's reference to a node without the object layer", callBack,
                            new long[][] {{RpcDescriptor.T_SHARED, 8, 1}, prim}, "a node without objects"));
            for (Bad b : bad) {
                try (Connection raw = Transport.connect(server.addresses().getFirst())) {
                    lookUp(raw, "calc", Api.Calc.class); // a connection calls only what it looked up
                    byte[] m = call(1, b.method(), b.values());
                    Claim c = raw.claim(m.length);
                    c.segment().copyFrom(java.lang.foreign.MemorySegment.ofArray(m));
                    c.commit();
                    var reply = raw.take(Duration.ofSeconds(10));
                    assertTrue(reply != null, b.why() + ": no reply");
                    var r = reply.payload();
                    assertEquals(RpcDescriptor.FAIL, r.get(ValueLayout.JAVA_BYTE, RpcDescriptor.KIND), b.why());
                    assertEquals(RemoteException.Reason.PROTOCOL.ordinal(), r.get(ValueLayout.JAVA_BYTE, RpcDescriptor.FLAGS),
                            b.why());
                    assertEquals(77L, r.get(ValueLayout.JAVA_LONG_UNALIGNED, RpcDescriptor.CALL_ID), "the reply names the call");
                    int n = r.get(ValueLayout.JAVA_INT_UNALIGNED, RpcDescriptor.HEADER + 4);
                    String message = new String(r.asSlice(RpcDescriptor.HEADER + RpcDescriptor.VALUE_HEADER, n)
                            .toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
                    assertTrue(message.contains(b.expected()), b.why() + ": the reason names the problem: " + message);
                    reply.release();
                    TransportException e = assertThrows(TransportException.class, () -> {
                        for (int i = 0; i < 200; i++) {
                            var d = raw.take(Duration.ofMillis(100));
                            if (d != null) {
                                throw new AssertionError("more than one reply");
                            }
                        }
                    }, b.why() + ": then the connection is dropped");
                    assertEquals(TransportException.Reason.PEER_CLOSED, e.reason(), e.getMessage());
                }
                assertEquals(10, calc.add4(1, 2, 3, 4), "the other client keeps working after " + b.why());
            }
            assertEquals(0, server.exportedObjects());
        }
    }

    /** Looks {@code name} up as {@code iface} over a raw connection (call id 1): export #1 is then granted to it. */
    static void lookUp(Connection raw, String name, Class<?> iface) {
        var ids = java.lang.foreign.MemorySegment.ofArray(dev.verbatim.rpc.internal.RemoteInterface.of(iface).ids());
        var m = FakePeer.frame(RpcDescriptor.LOOKUP, 0, 0, 1, 0, FakePeer.string(name), FakePeer.string(iface.getName()),
                FakePeer.bytes(ids.toArray(ValueLayout.JAVA_BYTE)));
        Claim c = raw.claim((int) m.byteSize());
        c.segment().copyFrom(m);
        c.commit();
        var ok = raw.take(Duration.ofSeconds(10));
        assertTrue(ok != null, "the lookup was answered");
        assertEquals(RpcDescriptor.LOOKUP_OK, ok.payload().get(ValueLayout.JAVA_BYTE, RpcDescriptor.KIND));
        assertEquals(1, ok.payload().get(ValueLayout.JAVA_INT_UNALIGNED, RpcDescriptor.TARGET));
        ok.release();
    }

    static long method(dev.verbatim.rpc.internal.RemoteInterface ri, String name) {
        for (var m : ri.methods) {
            if (m.method.getName().equals(name)) {
                return m.id;
            }
        }
        throw new AssertionError(name);
    }

    /** A CALL message (call id 77) to export {@code target}: each value is {tag, length, payload longs...}. */
    static byte[] call(int target, long method, long[][] values) {
        int size = RpcDescriptor.HEADER;
        for (long[] v : values) {
            size += RpcDescriptor.VALUE_HEADER + 8 * (v.length - 2);
        }
        var m = java.lang.foreign.MemorySegment.ofArray(new byte[size]);
        m.set(ValueLayout.JAVA_BYTE, RpcDescriptor.KIND, (byte) RpcDescriptor.CALL);
        m.set(ValueLayout.JAVA_SHORT_UNALIGNED, RpcDescriptor.COUNT, (short) values.length);
        m.set(ValueLayout.JAVA_INT_UNALIGNED, RpcDescriptor.TARGET, target);
        m.set(ValueLayout.JAVA_LONG_UNALIGNED, RpcDescriptor.CALL_ID, 77L);
        m.set(ValueLayout.JAVA_LONG_UNALIGNED, RpcDescriptor.METHOD, method);
        long at = RpcDescriptor.HEADER;
        for (long[] v : values) {
            m.set(ValueLayout.JAVA_INT_UNALIGNED, at, (int) v[0]);
            m.set(ValueLayout.JAVA_INT_UNALIGNED, at + 4, (int) v[1]);
            at += RpcDescriptor.VALUE_HEADER;
            for (int k = 2; k < v.length; k++) {
                m.set(ValueLayout.JAVA_LONG_UNALIGNED, at, v[k]);
                at += 8;
            }
        }
        return m.toArray(ValueLayout.JAVA_BYTE);
    }

    /** A message with a given kind byte and random-looking rest. */
    static byte[] bytes(int n, int kind) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 37 + 11);
        }
        b[0] = (byte) kind;
        java.lang.foreign.MemorySegment.ofArray(b).set(ValueLayout.JAVA_SHORT_UNALIGNED, 2, (short) 300);
        return b;
    }
}
