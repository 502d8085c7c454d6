package dev.verbatim.bench.rpc;

import dev.verbatim.transport.ThrowawayPki;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslProvider;

import javax.net.ssl.SSLException;
import java.io.File;

/**
 * gRPC-java's TLS for {@code tls/grpc}, set up as Verbatim's {@code tls/verbatim} is: TLS 1.3 only,
 * mutual (the server requires a client certificate from the run's CA, the client checks the
 * server's), the JDK's own provider ({@link SslProvider#JDK}, the {@code SSLEngine} Verbatim uses,
 * not OpenSSL through netty-tcnative), the same keys and CA ({@link ThrowawayPki}'s PEM files).
 * {@link GrpcSslContexts#configure} adds HTTP/2's ALPN and cipher list.
 */
final class GrpcTls {
    private GrpcTls() {}

    private static final String TLS13 = "TLSv1.3";

    /** The server's context: the listener certificate, client certificates required. */
    static SslContext server(ThrowawayPki pki) throws SSLException {
        SslContextBuilder b = SslContextBuilder.forServer(pem(pki, "listener.pem"), pem(pki, "listener.key"));
        return GrpcSslContexts.configure(b, SslProvider.JDK)
                .trustManager(pem(pki, "ca.pem"))
                .clientAuth(ClientAuth.REQUIRE)
                .protocols(TLS13)
                .build();
    }

    /** The client's context: the connector certificate, the server checked against the run's CA. */
    static SslContext client(ThrowawayPki pki) throws SSLException {
        return GrpcSslContexts.configure(SslContextBuilder.forClient(), SslProvider.JDK)
                .keyManager(pem(pki, "connector.pem"), pem(pki, "connector.key"))
                .trustManager(pem(pki, "ca.pem"))
                .protocols(TLS13)
                .build();
    }

    private static File pem(ThrowawayPki pki, String name) {
        return pki.dir().resolve(name).toFile();
    }
}
