package dev.verbatim.cli.soak;

import dev.verbatim.transport.Connection;
import dev.verbatim.transport.ConnectionOptions;
import dev.verbatim.transport.Transport;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The faults {@code ./verbatim soak} injects into a running server, one at a time: a client killed with SIGKILL
 * and restarted, a client's connections dropped, a silent tcp connection held open, a connection of garbage bytes,
 * and an rpc connection that sends malformed messages of every kind. Each is counted. Not thread-safe: one
 * injector thread.
 */
final class SoakFaults {
    enum Fault { KILL, DROP, SILENT, GARBAGE, MALFORMED }

    /** The rpc message kinds (docs/rpc.md §1) and one past them: a malformed message of each is sent. */
    private static final int KINDS = 10;
    private static final int HEADER = 32;

    /** What the injector does to clients (kill and restart, drop their connections). */
    interface Clients {
        void killAndRestart(int index) throws IOException;

        void drop(int index);

        int count();
    }

    private final String shm;
    private final String tcp;
    private final Clients clients;
    private final SplittableRandom random;
    private final Map<Fault, Integer> counts = new EnumMap<>(Fault.class);
    private final Deque<Socket> silent = new ArrayDeque<>();
    private final Deque<Fault> next = new ArrayDeque<>();
    private int malformedMessages;

    SoakFaults(String shm, String tcp, Clients clients, long seed) {
        this.shm = shm;
        this.tcp = tcp;
        this.clients = clients;
        this.random = new SplittableRandom(seed);
        for (Fault f : Fault.values()) counts.put(f, 0);
    }

    /** Injects the next fault: every kind once in a random order, then again in another (so a short run has each). */
    void injectOne() {
        if (next.isEmpty()) {
            java.util.List<Fault> round = new java.util.ArrayList<>(java.util.List.of(Fault.values()));
            for (int i = round.size() - 1; i > 0; i--) java.util.Collections.swap(round, i, random.nextInt(i + 1));
            next.addAll(round);
        }
        Fault f = next.poll();
        try {
            switch (f) {
                case KILL -> clients.killAndRestart(random.nextInt(clients.count()));
                case DROP -> clients.drop(random.nextInt(clients.count()));
                case SILENT -> silent();
                case GARBAGE -> garbage();
                case MALFORMED -> malformed(random.nextBoolean() ? shm : tcp);
            }
            counts.merge(f, 1, Integer::sum);
        } catch (IOException | RuntimeException e) {
            // a fault that could not be injected (the server refused the connection at once, say) is not counted
        }
    }

    /** Faults injected, by kind. */
    Map<Fault, Integer> counts() {
        return counts;
    }

    /** Malformed rpc messages sent in all. */
    int malformedMessages() {
        return malformedMessages;
    }

    /** Closes the silent connections still held. */
    void close() {
        while (!silent.isEmpty()) closeQuietly(silent.poll());
    }

    private InetSocketAddress tcpAddress() {
        String hostPort = tcp.substring("tcp://".length());
        int colon = hostPort.lastIndexOf(':');
        return new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    }

    /** A tcp connection that says nothing, held for a while (at most 16 at once: the oldest is closed). */
    private void silent() throws IOException {
        if (silent.size() >= 16) closeQuietly(silent.poll());
        Socket s = new Socket();
        try {
            s.connect(tcpAddress(), 2_000);
        } catch (IOException e) {
            closeQuietly(s);
            throw e;
        }
        silent.add(s);
    }

    /** A tcp connection that sends 1-4 KiB of random bytes instead of a handshake, then closes. */
    private void garbage() throws IOException {
        try (Socket s = new Socket()) {
            s.connect(tcpAddress(), 2_000);
            byte[] junk = new byte[1024 + random.nextInt(3 * 1024)];
            random.nextBytes(junk);
            OutputStream out = s.getOutputStream();
            out.write(junk);
            out.flush();
        }
    }

    /**
     * A transport connection (a correct handshake) that then sends rpc messages of every kind with random
     * headers and bodies, some shorter than a header: the server must drop that connection and nothing else.
     */
    private void malformed(String address) {
        try (Connection c = Transport.connect(address, ConnectionOptions.DEFAULT)) {
            for (int kind = 0; kind <= KINDS; kind++) {
                int length = random.nextInt(4) == 0 ? random.nextInt(HEADER) : HEADER + 8 * random.nextInt(16);
                ByteBuffer m = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
                byte[] body = new byte[length];
                random.nextBytes(body);
                m.put(body);
                if (length > 0) m.put(0, (byte) kind);
                if (length >= 8) m.putInt(4, random.nextInt(4)); // a small target: one that may exist
                try {
                    c.send(m.array(), 0, length);
                    malformedMessages++;
                } catch (RuntimeException closedByTheServer) {
                    return; // the server dropped us: what it should do
                }
            }
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing a socket the server may have closed already
        }
    }
}
