package dev.verbatim.rpc;

import dev.verbatim.transport.Claim;
import dev.verbatim.transport.Connection;
import dev.verbatim.transport.Delivery;
import dev.verbatim.transport.Listener;
import dev.verbatim.transport.Transport;
import dev.verbatim.transport.TransportException;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static dev.verbatim.rpc.internal.RpcDescriptor.*;

/**
 * The other end of a connection, played by hand in raw RPC frames (tests): a hostile or broken peer.
 * As a server it {@linkplain #listen listens} and {@linkplain #accept accepts} a real node's
 * connection; as a client it {@linkplain #connect connects} to a real node. It reads what the node sends
 * ({@link #next}) and sends whatever frame a test builds ({@link #frame}), valid or not.
 */
final class FakePeer implements AutoCloseable {
    private final Listener listener;
    private Connection connection;

    private FakePeer(Listener listener, Connection connection) {
        this.listener = listener;
        this.connection = connection;
    }

    /** A fake server listening on loopback tcp. */
    static FakePeer listen() {
        return new FakePeer(Transport.listen("tcp://127.0.0.1:0", Node.DEFAULT_OPTIONS), null);
    }

    /** A fake client connected to {@code address}. */
    static FakePeer connect(String address) {
        return new FakePeer(null, Transport.connect(address, Node.DEFAULT_OPTIONS));
    }

    String address() {
        return listener.address();
    }

    /** Waits (10 s at most) for the node's connection. */
    FakePeer accept() {
        connection = listener.accept(Duration.ofSeconds(10));
        if (connection == null) {
            throw new AssertionError("no connection came");
        }
        return this;
    }

    /** The next message the node sent, copied (10 s at most). */
    MemorySegment next() {
        Delivery d = connection.take(Duration.ofSeconds(10));
        if (d == null) {
            throw new AssertionError("nothing came");
        }
        try {
            return MemorySegment.ofArray(d.payload().toArray(ValueLayout.JAVA_BYTE));
        } finally {
            d.release();
        }
    }

    /** The next message, which must be of {@code kind}. */
    MemorySegment next(int kind) {
        MemorySegment m = next();
        if (kind(m) != kind) {
            throw new AssertionError("a message of kind " + kind(m) + " came, not " + kind);
        }
        return m;
    }

    void send(MemorySegment m) {
        Claim c = connection.claim((int) m.byteSize());
        c.segment().copyFrom(m);
        c.commit();
    }

    /** Whether the node closed the connection within 10 s, sending nothing more. */
    boolean closedByNode() {
        try {
            for (int i = 0; i < 100; i++) {
                Delivery d = connection.take(Duration.ofMillis(100));
                if (d != null) {
                    byte k = d.payload().get(ValueLayout.JAVA_BYTE, 0);
                    d.release();
                    throw new AssertionError("a message of kind " + k + " came instead of the close");
                }
            }
            return false;
        } catch (TransportException e) {
            return e.reason() == TransportException.Reason.PEER_CLOSED;
        }
    }

    /**
     * A frame: {@code kind}, {@code flags}, {@code target}, {@code callId}, {@code method}, then the values
     * (each already encoded, see {@link #value} and {@link #string}). A REPLY gets its short header.
     */
    static MemorySegment frame(int kind, int flags, int target, long callId, long method, MemorySegment... values) {
        long size = headerOf(kind);
        for (MemorySegment v : values) {
            size += v.byteSize();
        }
        MemorySegment m = MemorySegment.ofArray(new byte[(int) size]);
        putHeader(m, head(kind, flags, values.length, target), callId, method, 0);
        long at = headerOf(kind);
        for (MemorySegment v : values) {
            MemorySegment.copy(v, 0, m, at, v.byteSize());
            at += v.byteSize();
        }
        return m;
    }

    /** A value: {@code tag} and a payload of longs ({@code length} bytes of them count). */
    static MemorySegment value(int tag, long length, long... payload) {
        MemorySegment v = MemorySegment.ofArray(new byte[VALUE_HEADER + 8 * payload.length]);
        putValueHeader(v, 0, tag, length);
        for (int i = 0; i < payload.length; i++) {
            v.set(ValueLayout.JAVA_LONG_UNALIGNED, VALUE_HEADER + 8L * i, payload[i]);
        }
        return v;
    }

    /** A {@code BYTES} value of a string. */
    static MemorySegment string(String s) {
        return bytes(s.getBytes(StandardCharsets.UTF_8));
    }

    /** A {@code BYTES} value. */
    static MemorySegment bytes(byte[] b) {
        MemorySegment v = MemorySegment.ofArray(new byte[(int) span(b.length)]);
        putValueHeader(v, 0, T_BYTES, b.length);
        MemorySegment.copy(MemorySegment.ofArray(b), 0, v, VALUE_HEADER, b.length);
        return v;
    }

    /** A {@code WIRE} value holding {@code root} by copy. */
    static MemorySegment wire(Object root) {
        dev.verbatim.wire.WireWriter w = new dev.verbatim.wire.WireWriter();
        long n = w.sizeOf(root);
        MemorySegment v = MemorySegment.ofArray(new byte[(int) span(n)]);
        putValueHeader(v, 0, T_WIRE, n);
        w.write(root, v, VALUE_HEADER);
        return v;
    }

    /** The message's text value at {@code at} (a FAIL's message). */
    static String text(MemorySegment m, long at) {
        int n = m.get(ValueLayout.JAVA_INT_UNALIGNED, at + 4);
        return new String(m.asSlice(at + VALUE_HEADER, n).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
    }

    /** The id of a method of {@code iface} by its name. */
    static long method(Class<?> iface, String name) {
        for (var mi : dev.verbatim.rpc.internal.RemoteInterface.of(iface).methods) {
            if (mi.method.getName().equals(name)) {
                return mi.id;
            }
        }
        throw new AssertionError(name);
    }

    @Override
    public void close() {
        if (connection != null) {
            connection.close();
        }
        if (listener != null) {
            listener.close();
        }
    }
}
