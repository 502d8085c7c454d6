package dev.verbatim.bench.rpc;

import dev.verbatim.bench.harness.Medium;
import dev.verbatim.bench.harness.RunPki;
import dev.verbatim.bench.harness.Session;
import dev.verbatim.transport.ThrowawayPki;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Set;

/**
 * {@code tls/engine}: what the JDK's {@link SSLEngine} alone costs a TLS null call, the floor under the
 * "TLS within 1.3x plaintext" target of issue 17. A TLS call does on top of a plaintext one four record
 * operations: the client encrypts the call's frame, the server decrypts it, the server encrypts the
 * reply's frame, the client decrypts it. This contender does exactly those four, with two engines of
 * the run's certificates and the transport's settings (TLS 1.3, mutual), records of the null call's
 * frame sizes ({@value #CALL_FRAME} and {@value #REPLY_FRAME} bytes: a tcp frame header and the rpc
 * call or reply header), passed in memory within one thread: no socket, no second thread, warm caches.
 * So {@code (verbatim-plain + engine) / verbatim-plain} is the lowest TLS/plaintext ratio a TLS call
 * built on the JDK's engine can reach in that round; the report prints it beside the target.
 *
 * <p>Its server side does nothing (the whole floor runs in the client's process); each call checks that
 * the decrypted call and reply carry its sequence number.
 */
final class TlsEngineFloor implements RpcContender {
    /** The null call's tcp frame: the 16-byte frame header and the 32-byte rpc call header. */
    static final int CALL_FRAME = 48;
    /** The null call's reply frame: the frame header and the 16-byte reply header. */
    static final int REPLY_FRAME = 32;
    static final String NAME = "engine";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Medium medium() {
        return Medium.TLS;
    }

    @Override
    public Set<RpcCase> cases() {
        return Set.of(RpcCase.NULL);
    }

    @Override
    public Server server(Session session) {
        return new Server() {
            @Override
            public void serve() {
                // nothing: the engines run in the client's process
            }

            @Override
            public void close() {
            }
        };
    }

    @Override
    public Client client(Session session) throws Exception {
        ThrowawayPki pki = RunPki.of(session);
        Pair pair = new Pair(pki.connector().context(), pki.listener().context());
        return new Client() {
            @Override
            public Call call(RpcCase c) {
                if (c != RpcCase.NULL) {
                    throw new IllegalArgumentException("tls/engine measures the null call only, not " + c.key());
                }
                return seq -> {
                    pair.roundTrip(seq);
                    return c.expected(seq);
                };
            }

            @Override
            public void close() {
            }
        };
    }

    /** A connected client and server engine with the buffers of one round trip, in memory. */
    static final class Pair {
        private final SSLEngine client;
        private final SSLEngine server;
        private final ByteBuffer call = ByteBuffer.allocateDirect(CALL_FRAME).order(ByteOrder.LITTLE_ENDIAN);
        private final ByteBuffer reply = ByteBuffer.allocateDirect(REPLY_FRAME).order(ByteOrder.LITTLE_ENDIAN);
        private final ByteBuffer toServer;
        private final ByteBuffer toClient;
        private final ByteBuffer received;

        Pair(SSLContext clientContext, SSLContext serverContext) throws SSLException {
            client = clientContext.createSSLEngine("localhost", 1);
            client.setUseClientMode(true);
            server = serverContext.createSSLEngine();
            server.setUseClientMode(false);
            for (SSLEngine e : new SSLEngine[] {client, server}) {
                SSLParameters p = e.getSSLParameters();
                p.setProtocols(new String[] {"TLSv1.3"});
                if (e == server) {
                    p.setNeedClientAuth(true);
                } else {
                    p.setEndpointIdentificationAlgorithm("HTTPS");
                }
                e.setSSLParameters(p);
            }
            int packet = client.getSession().getPacketBufferSize();
            toServer = ByteBuffer.allocateDirect(4 * packet);
            toClient = ByteBuffer.allocateDirect(4 * packet);
            received = ByteBuffer.allocateDirect(client.getSession().getApplicationBufferSize())
                    .order(ByteOrder.LITTLE_ENDIAN);
            handshake();
        }

        private void handshake() throws SSLException {
            client.beginHandshake();
            server.beginHandshake();
            for (int i = 0; i < 1_000; i++) {
                boolean moved = step(client, toServer, toClient) | step(server, toClient, toServer);
                if (done(client) && done(server) && toServer.position() == 0 && toClient.position() == 0) {
                    return;
                }
                if (!moved) {
                    break;
                }
            }
            throw new SSLException("the in-memory TLS handshake did not finish: client " + client.getHandshakeStatus()
                    + ", server " + server.getHandshakeStatus());
        }

        private static boolean done(SSLEngine e) {
            HandshakeStatus h = e.getHandshakeStatus();
            return h == HandshakeStatus.NOT_HANDSHAKING || h == HandshakeStatus.FINISHED;
        }

        /** Lets {@code e} read what it was sent ({@code in}, write mode) and write what it has to say to {@code out}. */
        private boolean step(SSLEngine e, ByteBuffer out, ByteBuffer in) throws SSLException {
            boolean moved = false;
            while (true) {
                switch (e.getHandshakeStatus()) {
                    case NEED_TASK -> {
                        Runnable task;
                        while ((task = e.getDelegatedTask()) != null) {
                            task.run();
                        }
                        moved = true;
                    }
                    case NEED_WRAP -> {
                        SSLEngineResult r = e.wrap(ByteBuffer.allocate(0), out);
                        if (r.bytesProduced() == 0) {
                            return moved;
                        }
                        moved = true;
                    }
                    default -> { // NEED_UNWRAP, or done: a post-handshake message (tickets) may still wait
                        if (in.position() == 0) {
                            return moved;
                        }
                        in.flip();
                        received.clear();
                        SSLEngineResult r = e.unwrap(in, received);
                        in.compact();
                        if (r.bytesConsumed() == 0) {
                            return moved;
                        }
                        moved = true;
                    }
                }
            }
        }

        /** The four record operations of one null call, {@code seq} in the first word of both frames. */
        void roundTrip(long seq) throws IOException {
            call.clear().putLong(0, seq);
            carry(client, call, server, toServer, seq);
            reply.clear().putLong(0, seq);
            carry(server, reply, client, toClient, seq);
        }

        private void carry(SSLEngine from, ByteBuffer plain, SSLEngine to, ByteBuffer net, long seq) throws IOException {
            net.clear();
            SSLEngineResult w = from.wrap(plain, net);
            net.flip();
            received.clear();
            SSLEngineResult u = to.unwrap(net, received);
            if (w.bytesConsumed() != plain.capacity() || u.bytesProduced() != plain.capacity()
                    || received.getLong(0) != seq || net.hasRemaining()) {
                throw new IOException("tls/engine: a record did not round-trip (" + w + "; " + u + ")");
            }
        }
    }
}
