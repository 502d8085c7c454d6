package dev.verbatim.bench.rpc;

import dev.verbatim.bench.harness.Medium;
import dev.verbatim.bench.harness.Session;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCallHandler;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * gRPC-java on loopback ({@code tcp/grpc}, column {@code grpc}, shown with the shm and the tcp
 * cases): unary calls over HTTP/2 (grpc-netty-shaded, plaintext), each method a hand-built
 * {@link MethodDescriptor} with a plain {@code byte[]} {@link MethodDescriptor.Marshaller} (no
 * protobuf, no protoc), the service a hand-built {@link ServerServiceDefinition}. The server runs
 * its handlers on the Netty event loop ({@code directExecutor()}, gRPC's advice for handlers that
 * do not block); the client calls through {@link ClientCalls#blockingUnaryCall}, whose replies are
 * handled on the calling thread. Cases: {@code null} (an empty request and reply),
 * {@code ints4} (16 bytes in, 4 out) and {@code bytes-8192} (8192 in, 8 out); a remote reference
 * has no meaning in gRPC, and the list would need a serializer of our choosing (not gRPC's cost).
 */
final class GrpcContender implements RpcContender {
    static final String PORT = "port";
    static final String SERVICE = "verbatim.bench.Echo";

    /** The marshaller of every method: the bytes as they are. */
    static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };

    static MethodDescriptor<byte[], byte[]> method(String name) {
        return MethodDescriptor.<byte[], byte[]>newBuilder()
                .setType(MethodDescriptor.MethodType.UNARY)
                .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, name))
                .setRequestMarshaller(BYTES)
                .setResponseMarshaller(BYTES)
                .build();
    }

    static final MethodDescriptor<byte[], byte[]> NULL = method("Null");
    static final MethodDescriptor<byte[], byte[]> INTS4 = method("Ints4");
    static final MethodDescriptor<byte[], byte[]> BYTES_8192 = method("Bytes");
    private static final byte[] EMPTY = new byte[0];

    static ByteBuffer le(byte[] a) {
        return ByteBuffer.wrap(a).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** The service: the {@link RpcCase} contracts on bytes (little-endian ints and longs). */
    static ServerServiceDefinition service() {
        return ServerServiceDefinition.builder(SERVICE)
                .addMethod(NULL, unary(req -> EMPTY))
                .addMethod(INTS4, unary(req -> {
                    ByteBuffer b = le(req);
                    byte[] out = new byte[4];
                    le(out).putInt(0, RpcCase.ints4(b.getInt(0), b.getInt(4), b.getInt(8), b.getInt(12)));
                    return out;
                }))
                .addMethod(BYTES_8192, unary(req -> {
                    byte[] out = new byte[8];
                    le(out).putLong(0, RpcCase.bytes(req));
                    return out;
                }))
                .build();
    }

    private static ServerCallHandler<byte[], byte[]> unary(UnaryOperator<byte[]> f) {
        return ServerCalls.asyncUnaryCall((request, reply) -> {
            reply.onNext(f.apply(request));
            reply.onCompleted();
        });
    }

    @Override
    public String name() {
        return "grpc";
    }

    @Override
    public Medium medium() {
        return Medium.TCP;
    }

    @Override
    public Set<Medium> shownIn() {
        return EnumSet.allOf(Medium.class);
    }

    @Override
    public Set<RpcCase> cases() {
        return EnumSet.of(RpcCase.NULL, RpcCase.INTS4, RpcCase.BYTES_8192);
    }

    @Override
    public Server server(Session session) throws Exception {
        io.grpc.Server server = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .directExecutor()
                .addService(service())
                .build()
                .start();
        session.publish(PORT, Integer.toString(server.getPort()));
        return new Server() {
            @Override
            public void serve() {
                // gRPC serves on its own (Netty) threads
            }

            @Override
            public void close() {
                server.shutdownNow();
                awaitTermination(() -> server.awaitTermination(5, TimeUnit.SECONDS));
            }
        };
    }

    interface Termination {
        boolean await() throws InterruptedException;
    }

    /** Waits for a shut-down server or channel to terminate (keeping an interrupt). */
    static void awaitTermination(Termination t) {
        try {
            t.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A plaintext channel to the server at {@code port} on 127.0.0.1. */
    static ManagedChannel channel(int port) {
        return NettyChannelBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), port))
                .usePlaintext()
                .directExecutor()
                .build();
    }

    @Override
    public Client client(Session session) {
        ManagedChannel channel = channel(Integer.parseInt(session.require(PORT)));
        return new Client() {
            @Override
            public Call call(RpcCase c) {
                return switch (c) {
                    case NULL -> seq -> {
                        byte[] r = ClientCalls.blockingUnaryCall(channel, NULL, CallOptions.DEFAULT, EMPTY);
                        return r.length == 0 ? 0 : -1;
                    };
                    case INTS4 -> {
                        byte[] req = new byte[16];
                        ByteBuffer b = le(req);
                        yield seq -> {
                            int a = (int) seq;
                            b.putInt(0, a).putInt(4, a + 1).putInt(8, a + 2).putInt(12, a + 3);
                            byte[] r = ClientCalls.blockingUnaryCall(channel, INTS4, CallOptions.DEFAULT, req);
                            return r.length == 4 ? le(r).getInt(0) : Long.MIN_VALUE;
                        };
                    }
                    case BYTES_8192 -> {
                        byte[] req = RpcCase.bytes();
                        yield seq -> {
                            RpcCase.stamp(req, seq);
                            byte[] r = ClientCalls.blockingUnaryCall(channel, BYTES_8192, CallOptions.DEFAULT, req);
                            return r.length == 8 ? le(r).getLong(0) : Long.MIN_VALUE;
                        };
                    }
                    default -> throw new IllegalArgumentException("grpc has no " + c.key() + " case");
                };
            }

            @Override
            public void close() {
                channel.shutdownNow();
                awaitTermination(() -> channel.awaitTermination(5, TimeUnit.SECONDS));
            }
        };
    }
}
