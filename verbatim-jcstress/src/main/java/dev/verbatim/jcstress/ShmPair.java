package dev.verbatim.jcstress;

import dev.verbatim.buffer.Buffer;
import dev.verbatim.buffer.Buffers;
import dev.verbatim.transport.ConnectionOptions;
import dev.verbatim.transport.internal.AreaDescriptor;
import dev.verbatim.transport.internal.AreaReader;
import dev.verbatim.transport.internal.BaseConnection;
import dev.verbatim.transport.internal.ShmConnection;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One direction of a real shm connection in one process: two {@link ShmConnection}s, the sender writing into the
 * receiver's window, built the way {@code ShmTransport} builds them after its handshake, without the files and the
 * handshake: the windows are off-heap buffers (ordering between threads is the same whether the memory is mapped
 * by one process or two), and the control socket the watchdog watches is one connected pair shared by every state
 * (nothing is ever written to it, so the watchdog never reports an end).
 *
 * <p>The receiver's window holds {@code areaCount} = 2 areas of {@link #AREA_SIZE} bytes (the smallest a connection
 * allows) but only the first {@code windowBytes} of it are allocated, for the tests that never get past the start
 * of area 0: jcstress keeps thousands of states alive. The sender's own window is never written or read beyond
 * its control block.
 *
 * <p>The waiting halves ({@code parkReceiver}, {@code parkSender}) and the receiver's {@code reader} are not public;
 * they are reached through {@link MethodHandles#privateLookupIn} (the tests run on the class path, where every
 * package is open).
 */
public final class ShmPair {
    static final int AREA_COUNT = 2;
    static final int AREA_SIZE = ConnectionOptions.MIN_AREA_SIZE;
    /** A window with only the control block and the first page of area 0. */
    public static final long SMALL_WINDOW = AreaDescriptor.CONTROL_SIZE + 4096;
    /** A whole window of two areas. */
    public static final long WHOLE_WINDOW = AreaDescriptor.windowSize(AREA_COUNT, AREA_SIZE);
    static final ConnectionOptions OPTIONS = ConnectionOptions.DEFAULT.withAreas(AREA_COUNT, AREA_SIZE);

    /** The transport's access to the 32-bit words of a window (parked words, area states). */
    public static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final SocketChannel[] CONTROL = controlPair();
    private static final MethodHandle PARK_RECEIVER;
    private static final MethodHandle PARK_SENDER;
    private static final MethodHandle READER;

    static {
        try {
            MethodHandles.Lookup base = MethodHandles.privateLookupIn(BaseConnection.class, MethodHandles.lookup());
            MethodHandles.Lookup shm = MethodHandles.privateLookupIn(ShmConnection.class, MethodHandles.lookup());
            PARK_RECEIVER = shm.findVirtual(ShmConnection.class, "parkReceiver",
                    MethodType.methodType(void.class, long.class));
            PARK_SENDER = shm.findVirtual(ShmConnection.class, "parkSender", MethodType.methodType(void.class, long.class));
            READER = base.findGetter(BaseConnection.class, "reader", AreaReader.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    public final ShmConnection sender;
    public final ShmConnection receiver;
    /** The receiver's window: what the sender writes into and where the receiver's parked word is. */
    public final MemorySegment window;
    private final Buffer receiving;
    private final Buffer sending;

    public ShmPair(long windowBytes) {
        receiving = Buffers.offHeap(windowBytes);
        sending = Buffers.offHeap(AreaDescriptor.CONTROL_SIZE);
        receiving.segment().set(ValueLayout.JAVA_INT, AreaDescriptor.areaStateOffset(0), AreaDescriptor.STATE_SENDER);
        sending.segment().set(ValueLayout.JAVA_INT, AreaDescriptor.areaStateOffset(0), AreaDescriptor.STATE_SENDER);
        window = receiving.segment();
        try {
            sender = new ShmConnection(OPTIONS, "jcstress sender", sending, receiving, AREA_COUNT, AREA_SIZE, CONTROL[0]);
            receiver = new ShmConnection(OPTIONS, "jcstress receiver", receiving, sending, AREA_COUNT, AREA_SIZE,
                    CONTROL[1]);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Frees both windows at once (an arbiter calls it, after both actors), instead of leaving them to the garbage
     * collector: jcstress keeps thousands of states, and native memory does not make the collector run. The
     * connections are not closed: a close writes to the control socket all states share.
     */
    public void free() {
        receiving.release();
        sending.release();
    }

    /** The receiver's real {@code parkReceiver(nanos)}: sleeps on its parked word unless a record is readable. */
    void parkReceiver(long nanos) {
        try {
            PARK_RECEIVER.invokeExact(receiver, nanos);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** The sender's real {@code parkSender(nanos)}: sleeps on the sender's parked word unless an area is free. */
    void parkSender(long nanos) {
        try {
            PARK_SENDER.invokeExact(sender, nanos);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** The receiver's reader (its window's books and its cheap look for a record). */
    public AreaReader receiverReader() {
        try {
            return (AreaReader) READER.invokeExact((BaseConnection) receiver);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** The receiver's parked word (1 while it sleeps or is about to). */
    public int receiverParked() {
        return (int) INT.getVolatile(window, AreaDescriptor.RECEIVER_PARKED_OFFSET);
    }

    /** Sends a message of {@code words} longs, each {@code value}, through the sender's claim API. */
    public void send(int words, long value) {
        var claim = sender.claim(8 * words);
        for (int i = 0; i < words; i++) {
            claim.segment().set(ValueLayout.JAVA_LONG, 8L * i, value);
        }
        claim.commit();
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }

    /** A connected pair of Unix-domain sockets, non-blocking as the watchdog needs; never written to. */
    private static SocketChannel[] controlPair() {
        try {
            Path dir = Files.createTempDirectory("verbatim-jcstress");
            Path path = dir.resolve("control.sock");
            try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
                server.bind(UnixDomainSocketAddress.of(path));
                SocketChannel a = SocketChannel.open(UnixDomainSocketAddress.of(path));
                SocketChannel b = server.accept();
                a.configureBlocking(false);
                b.configureBlocking(false);
                return new SocketChannel[] {a, b};
            } finally {
                Files.deleteIfExists(path);
                Files.deleteIfExists(dir);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
