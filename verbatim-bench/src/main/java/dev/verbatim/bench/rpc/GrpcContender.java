package dev.verbatim.bench.rpc;

import dev.verbatim.bench.harness.Medium;
import dev.verbatim.bench.harness.RunPki;
import dev.verbatim.bench.harness.Session;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCallHandler;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;

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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * gRPC-java on loopback ({@code tcp/grpc}, column {@code grpc}, shown with the shm and the tcp
 * cases): unary calls over HTTP/2 (grpc-netty-shaded, plaintext; {@code tls/grpc}: inside mutual TLS
 * 1.3 on the JDK's provider, {@link GrpcTls}, the null call and the 8 KiB argument), each method a hand-built
 * {@link MethodDescriptor} with a plain {@code byte[]} {@link MethodDescriptor.Marshaller} (no
 * protobuf, no protoc), the service a hand-built {@link ServerServiceDefinition}. The server runs
 * its handlers on the Netty event loop ({@code directExecutor()}, gRPC's advice for handlers that
 * do not block); the client calls through {@link ClientCalls#blockingUnaryCall}, whose replies are
 * handled on the calling thread. Cases: {@code null} (an empty request and reply),
 * {@code ints4} (16 bytes in, 4 out) and {@code bytes-8192} (8192 in, 8 out); a remote reference
 * has no meaning in gRPC, and the list would need a serializer of our choosing (not gRPC's cost). The
 * throughput cases ({@code throughput-C}, plaintext only) keep C null calls in flight on the one channel
 * through the async stub ({@link ClientCalls#asyncUnaryCall}, replies completing on Netty's event loop).
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
    /** The bulk cases (issue 18 §3): the same contract as {@link #BYTES_8192}, any size. */
    static final MethodDescriptor<byte[], byte[]> BULK = method("Bulk");
    /** The largest message either side takes in: above the 64 MiB bulk case (gRPC's default is 4 MiB). */
    static final int MAX_MESSAGE = 80 << 20;
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
                .addMethod(BULK, unary(req -> {
                    byte[] out = new byte[8];
                    le(out).putLong(0, req.length < 8 ? -1 : le(req).getLong(0));
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

    private final boolean tls;

    /** Plaintext HTTP/2 ({@code tcp/grpc}). */
    GrpcContender() {
        this(false);
    }

    /** {@code tls}: HTTP/2 inside mutual TLS 1.3 ({@code tls/grpc}), else plaintext ({@code tcp/grpc}). */
    GrpcContender(boolean tls) {
        this.tls = tls;
    }

    @Override
    public String name() {
        return "grpc";
    }

    @Override
    public Medium medium() {
        return tls ? Medium.TLS : Medium.TCP;
    }

    /** Plaintext: in the shm and tcp tables, as the RPC of this host to compare with; with TLS in the tls tables. */
    @Override
    public Set<Medium> shownIn() {
        return tls ? EnumSet.of(Medium.TLS) : EnumSet.of(Medium.SHM, Medium.TCP);
    }

    @Override
    public Set<RpcCase> cases() {
        return tls ? EnumSet.of(RpcCase.NULL, RpcCase.BYTES_8192) : EnumSet.of(RpcCase.NULL, RpcCase.INTS4, RpcCase.BYTES_8192,
                RpcCase.BYTES_1MIB, RpcCase.BYTES_64MIB,
                RpcCase.THROUGHPUT_1, RpcCase.THROUGHPUT_16, RpcCase.THROUGHPUT_256);
    }

    /** The throughput cases with the async stub: C calls in flight on the one channel. */
    @Override
    public Callers callers() {
        return Callers.ASYNC;
    }

    @Override
    public Server server(Session session) throws Exception {
        NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        if (tls) {
            builder.sslContext(GrpcTls.server(RunPki.of(session)));
        }
        io.grpc.Server server = builder
                .directExecutor()
                .maxInboundMessageSize(MAX_MESSAGE)
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

    /** A channel to the server at {@code port} on 127.0.0.1: plaintext, or with {@code ssl} TLS. */
    static ManagedChannel channel(int port, SslContext ssl) {
        NettyChannelBuilder b = NettyChannelBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        if (ssl == null) {
            b.usePlaintext();
        } else {
            b.sslContext(ssl);
        }
        return b.directExecutor().maxInboundMessageSize(MAX_MESSAGE).build();
    }

    @Override
    public Client client(Session session) throws Exception {
        ManagedChannel channel = channel(Integer.parseInt(session.require(PORT)),
                tls ? GrpcTls.client(RunPki.of(session)) : null);
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
                    case BYTES_1MIB, BYTES_64MIB -> {
                        byte[] req = RpcCase.bulk(c.floorBytes());
                        yield seq -> {
                            RpcCase.stamp(req, seq);
                            byte[] r = ClientCalls.blockingUnaryCall(channel, BULK, CallOptions.DEFAULT, req);
                            return r.length == 8 ? le(r).getLong(0) : Long.MIN_VALUE;
                        };
                    }
                    default -> throw new IllegalArgumentException("grpc has no " + c.key() + " case");
                };
            }

            /** The null call through the async stub ({@link ClientCalls#asyncUnaryCall}), its reply on a Netty thread. */
            @Override
            public AsyncCall asyncCall(RpcCase c) {
                if (c != RpcCase.NULL) {
                    throw new IllegalArgumentException("no asynchronous " + c.key() + " call");
                }
                return seq -> {
                    CompletableFuture<Long> f = new CompletableFuture<>();
                    ClientCalls.asyncUnaryCall(channel.newCall(NULL, CallOptions.DEFAULT), EMPTY, new StreamObserver<>() {
                        @Override
                        public void onNext(byte[] r) {
                            f.complete(r.length == 0 ? 0L : -1L);
                        }

                        @Override
                        public void onError(Throwable t) {
                            f.completeExceptionally(t);
                        }

                        @Override
                        public void onCompleted() {
                            f.complete(-1L); // no reply value: a wrong result unless onNext came first
                        }
                    });
                    return f;
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
