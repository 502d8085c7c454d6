package dev.verbatim.bench.rpc;

import dev.verbatim.bench.fixtures.ListNode;
import dev.verbatim.bench.harness.Medium;
import dev.verbatim.bench.harness.Session;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.rmi.NoSuchObjectException;
import java.rmi.Remote;
import java.rmi.RemoteException;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.ExportException;
import java.rmi.server.RMIServerSocketFactory;
import java.rmi.server.UnicastRemoteObject;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Java RMI on loopback ({@code tcp/rmi}, column {@code rmi}, shown with the shm and the tcp cases):
 * the server process creates a registry ({@link LocateRegistry#createRegistry}) on a free port,
 * listening on 127.0.0.1 only, as the exported objects do,
 * exports an {@link Service} implementation ({@link UnicastRemoteObject#exportObject(Remote, int)},
 * default socket factories: plain TCP with TCP_NODELAY, one connection reused per calling thread)
 * and binds it; the client looks it up by that port. All five cases; {@code remote-arg} passes a
 * {@link Token} the client exported once (the server gets a stub, and does not call it).
 *
 * <p>Flags: {@code -Djava.rmi.server.hostname=127.0.0.1} on both sides (the stubs name that address;
 * the client is an exporter too, of its token); the distributed GC's forced collections are pushed
 * out to an hour ({@code sun.rmi.dgc.*.gcInterval}, the JDK's default, set for the record), and a
 * lease renewal comes every 5 minutes at the earliest, after every run. No serialization filter
 * applies to application calls by default ({@code jdk.serialFilter} unset); the registry's
 * built-in filter only sees the bind of the stub. {@code list-128}'s 128 nodes serialize
 * recursively, 128 frames deep: far within any depth limit a filter would set.
 */
final class RmiContender implements RpcContender {
    static final String PORT = "port";
    static final String NAME = "verbatim-bench-echo";
    /** The flags of both sides. */
    static final List<String> FLAGS = List.of("-Djava.rmi.server.hostname=127.0.0.1",
            "-Dsun.rmi.dgc.client.gcInterval=3600000", "-Dsun.rmi.dgc.server.gcInterval=3600000");

    /** The service, one method per {@link RpcCase}. */
    public interface Service extends Remote {
        void nullCall() throws RemoteException;

        int ints4(int a, int b, int c, int d) throws RemoteException;

        int remoteArg(Token t) throws RemoteException;

        long bytes(byte[] a) throws RemoteException;

        long list(ListNode head) throws RemoteException;
    }

    /** The remote interface of the {@code remote-arg} case (never called by the benchmark). */
    public interface Token extends Remote {
        int id() throws RemoteException;
    }

    static final class ServiceImpl implements Service {
        @Override
        public void nullCall() {
            // nothing
        }

        @Override
        public int ints4(int a, int b, int c, int d) {
            return RpcCase.ints4(a, b, c, d);
        }

        @Override
        public int remoteArg(Token t) {
            return t == null ? 0 : 1;
        }

        @Override
        public long bytes(byte[] a) {
            return RpcCase.bytes(a);
        }

        @Override
        public long list(ListNode head) {
            return RpcCase.list(head);
        }
    }

    static final class TokenImpl implements Token {
        @Override
        public int id() {
            return 1;
        }
    }

    @Override
    public String name() {
        return "rmi";
    }

    @Override
    public Medium medium() {
        return Medium.TCP;
    }

    @Override
    public Set<Medium> shownIn() {
        return EnumSet.of(Medium.SHM, Medium.TCP);
    }

    @Override
    public Set<RpcCase> cases() {
        return EnumSet.complementOf(EnumSet.of(RpcCase.BYTES_1MIB, RpcCase.BYTES_64MIB)); // issue 18 §3 compares with gRPC
    }

    @Override
    public List<String> jvmFlags() {
        return FLAGS;
    }

    /** Server sockets on 127.0.0.1 only (a record: equal factories share a port, as RMI wants). */
    record Loopback() implements RMIServerSocketFactory {
        @Override
        public ServerSocket createServerSocket(int port) throws IOException {
            return new ServerSocket(port, 50, InetAddress.getLoopbackAddress());
        }
    }

    static final Loopback LOOPBACK = new Loopback();
    private int registryPort;

    @Override
    public Server server(Session session) throws Exception {
        if (System.getProperty("java.rmi.server.hostname") == null) {
            System.setProperty("java.rmi.server.hostname", "127.0.0.1");
        }
        Registry registry = createRegistry();
        ServiceImpl impl = new ServiceImpl();
        try {
            Remote stub = UnicastRemoteObject.exportObject(impl, 0, null, LOOPBACK);
            registry.rebind(NAME, stub);
        } catch (RemoteException | RuntimeException e) {
            unexport(impl);
            unexport(registry);
            throw e;
        }
        session.publish(PORT, Integer.toString(registryPort));
        return new Server() {
            @Override
            public void serve() {
                // RMI serves on its own threads
            }

            @Override
            public void close() {
                unexport(impl);
                unexport(registry);
            }
        };
    }

    /** A registry on a free loopback port (a port found free can be taken before the registry binds it: tried a few times). */
    private Registry createRegistry() throws IOException {
        ExportException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            int port;
            try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = probe.getLocalPort();
            }
            try {
                Registry r = LocateRegistry.createRegistry(port, null, LOOPBACK);
                registryPort = port;
                return r;
            } catch (ExportException e) {
                last = e;
            }
        }
        throw last;
    }

    static void unexport(Remote r) {
        try {
            UnicastRemoteObject.unexportObject(r, true);
        } catch (NoSuchObjectException e) {
            // not exported
        }
    }

    /** Looks the service up in the registry at {@code port} on 127.0.0.1. */
    static Service lookup(int port) throws Exception {
        Registry registry = LocateRegistry.getRegistry("127.0.0.1", port);
        return (Service) registry.lookup(NAME);
    }

    @Override
    public Client client(Session session) throws Exception {
        Service service = lookup(Integer.parseInt(session.require(PORT)));
        return new Client() {
            private TokenImpl token;

            @Override
            public Call call(RpcCase c) throws Exception {
                return switch (c) {
                    case NULL -> seq -> {
                        service.nullCall();
                        return 0;
                    };
                    case INTS4 -> seq -> {
                        int a = (int) seq;
                        return service.ints4(a, a + 1, a + 2, a + 3);
                    };
                    case REMOTE_ARG -> {
                        if (token == null) {
                            if (System.getProperty("java.rmi.server.hostname") == null) {
                                throw new IllegalStateException("remote-arg exports an object: run with "
                                        + FLAGS.getFirst());
                            }
                            token = new TokenImpl();
                            UnicastRemoteObject.exportObject(token, 0, null, LOOPBACK);
                        }
                        TokenImpl t = token;
                        yield seq -> service.remoteArg(t);
                    }
                    case BYTES_8192 -> {
                        byte[] a = RpcCase.bytes();
                        yield seq -> {
                            RpcCase.stamp(a, seq);
                            return service.bytes(a);
                        };
                    }
                    case LIST_128 -> {
                        ListNode head = RpcCase.list();
                        yield seq -> {
                            head.value = (int) seq;
                            return service.list(head);
                        };
                    }
                    default -> throw new IllegalArgumentException("no " + c.key() + " call: the throughput cases make the null call");
                };
            }

            @Override
            public void close() {
                if (token != null) {
                    unexport(token);
                }
            }
        };
    }
}
