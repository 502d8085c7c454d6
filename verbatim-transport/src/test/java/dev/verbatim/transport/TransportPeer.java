package dev.verbatim.transport;

import dev.verbatim.transport.internal.Rejections;
import dev.verbatim.transport.internal.ShmDirectory;

import java.io.BufferedReader;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * The other process of the transport tests. {@code java ... TransportPeer MODE ADDRESS [ARGS]}; prints
 * {@code READY} once connected (or listening) and a last line {@code OK ...} or {@code FAIL ...}.
 */
public final class TransportPeer {
    private TransportPeer() {}

    /**
     * The options of this process: the default, with mutual TLS from the throwaway CA in the
     * directory of {@code -Dverbatim.test.tls} when the parent runs its tests over TLS.
     */
    static ConnectionOptions defaults() {
        String tls = System.getProperty(TLS_PROPERTY);
        return tls == null ? ConnectionOptions.DEFAULT
                : ConnectionOptions.DEFAULT.withTls(ThrowawayPki.at(Path.of(tls)).connector());
    }

    static final String TLS_PROPERTY = "verbatim.test.tls";

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        String address = args[1];
        switch (mode) {
            case "echo" -> echo(address);
            case "stream" -> stream(address, Integer.parseInt(args[2]), Long.parseLong(args[3]), Integer.parseInt(args[4]));
            case "verify" -> verify(address, Integer.parseInt(args[2]), Long.parseLong(args[3]), Integer.parseInt(args[4]),
                    Long.parseLong(args[5]));
            case "serve-echo" -> serveEcho(address);
            case "serve-echo-all" -> serveEchoAll(address);
            case "serve-starved" -> serveStarved(address, args[2].getBytes(StandardCharsets.US_ASCII));
            case "ping" -> ping(address, Integer.parseInt(args[2]));
            case "hang" -> {
                Connection c = Transport.connect(address, defaults());
                System.out.println("READY");
                System.out.flush();
                Thread.sleep(Long.MAX_VALUE);
                c.close();
            }
            case "listen" -> {
                Listener l = Transport.listen(address, defaults());
                System.out.println("READY");
                System.out.flush();
                while (true) {
                    Connection c = l.accept(Duration.ofSeconds(60));
                    if (c != null) {
                        c.close();
                    }
                }
            }
            case "listen-report" -> listenReport(address);
            case "race" -> { // race ADDRESS MILLIS WITNESS, from a line on stdin on
                readyThenWait();
                System.out.println(race(address, Long.parseLong(args[2]), Path.of(args[3])));
            }
            case "sweep" -> { // sweep - MILLIS: sweeps the shm directory in a loop, from a line on stdin on
                readyThenWait();
                System.out.println(sweep(ShmDirectory.directory(), Long.parseLong(args[2])));
            }
            default -> throw new IllegalArgumentException(mode);
        }
    }

    /** Prints {@code READY} and waits for a line on stdin: the start, given to several processes at once. */
    private static void readyThenWait() throws IOException {
        System.out.println("READY");
        System.out.flush();
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
    }

    /** Sweeps {@code dir} in a loop for {@code millis}; returns {@code OK swept N times}. */
    static String sweep(Path dir, long millis) {
        long end = System.nanoTime() + millis * 1_000_000;
        int sweeps = 0;
        while (System.nanoTime() < end) {
            ShmDirectory.sweep(dir);
            sweeps++;
        }
        return "OK swept " + sweeps + " times";
    }

    /**
     * Listens; prints {@code READY}, then {@code ACCEPTED n} for each connection it accepts (and
     * closes) and {@code REJECTED reason} for each connector it dropped (a socket that connected and
     * said nothing, say).
     */
    private static void listenReport(String address) {
        Listener l = Transport.listen(address, defaults());
        long rejections = Rejections.count();
        System.out.println("READY");
        System.out.flush();
        long accepted = 0;
        while (true) {
            Connection c = l.accept(Duration.ofMillis(20));
            if (c != null) {
                c.close();
                System.out.println("ACCEPTED " + ++accepted);
            }
            if (Rejections.count() != rejections) {
                rejections = Rejections.count();
                System.out.println("REJECTED " + Rejections.last());
            }
            System.out.flush();
        }
    }

    /**
     * Listens and closes at {@code address} in a loop for {@code millis}, as other threads and
     * processes do the same and sweep. After each listen: {@code witness} must not exist (else two
     * listeners own the name at once; it is created and deleted around each turn), the socket and
     * lock files must exist, and a connect to the address must reach this listener; before each close
     * the files must still be there. Returns {@code OK owned N refused M} (refused: "already served")
     * or {@code FAIL what}.
     */
    static String race(String address, long millis, Path witness) {
        ConnectionOptions options = defaults().withAreas(2, 64 * 1024);
        String name = address.substring("shm:".length());
        long end = System.nanoTime() + millis * 1_000_000;
        int owned = 0;
        int refused = 0;
        try {
            while (System.nanoTime() < end) {
                Listener l;
                try {
                    l = Transport.listen(address, options);
                } catch (TransportException e) {
                    if (e.reason() == TransportException.Reason.CONNECT && e.getMessage().contains("already served")) {
                        refused++;
                        LockSupport.parkNanos(200_000); // and try again soon: the owner needs a CPU too
                        continue;
                    }
                    return "FAIL listen: " + e;
                }
                try (l) {
                    Path dir = ShmDirectory.directory();
                    try {
                        Files.createFile(witness);
                    } catch (FileAlreadyExistsException e) {
                        return "FAIL two listeners own " + address + " at once";
                    }
                    String files = files(dir, name);
                    if (files != null) {
                        return "FAIL after listen: " + files;
                    }
                    Connection c = Transport.connect(address, options);
                    Connection a = l.accept(Duration.ofSeconds(5));
                    c.close();
                    if (a == null) {
                        return "FAIL a connect to " + address + " did not reach its live listener";
                    }
                    a.close();
                    files = files(dir, name);
                    if (files != null) {
                        return "FAIL before close: " + files;
                    }
                    Files.delete(witness);
                    owned++;
                }
            }
            return "OK owned " + owned + " refused " + refused;
        } catch (Exception e) {
            return "FAIL " + e;
        }
    }

    /** Null if the socket and lock file of {@code name} are both there, else what is missing. */
    private static String files(Path dir, String name) {
        boolean socket = Files.exists(ShmDirectory.socket(dir, name), LinkOption.NOFOLLOW_LINKS);
        boolean lock = Files.exists(ShmDirectory.lockFile(dir, name), LinkOption.NOFOLLOW_LINKS);
        return socket && lock ? null : "a live listener's " + (socket ? "" : "socket ") + (lock ? "" : "lock ") + "file is gone";
    }

    /** Listens, prints {@code LISTENING address}, and echoes one connection. */
    private static void serveEcho(String address) {
        try (Listener l = Transport.listen(address, defaults())) {
            System.out.println("LISTENING " + l.address());
            System.out.flush();
            Connection c = l.accept(Duration.ofSeconds(60));
            if (c == null) {
                System.out.println("FAIL nobody connected");
                return;
            }
            try (c) {
                long n = 0;
                while (true) {
                    byte[] m;
                    try {
                        m = c.receive(Duration.ofSeconds(60));
                    } catch (TransportException e) {
                        System.out.println(e.reason() == TransportException.Reason.PEER_CLOSED ? "OK echoed " + n : "FAIL " + e);
                        return;
                    }
                    if (m == null) {
                        System.out.println("FAIL idle for 60 s");
                        return;
                    }
                    c.send(m, 0, m.length);
                    n++;
                }
            }
        }
    }

    /** Listens and echoes every connection it accepts, each on a virtual thread, until killed. */
    private static void serveEchoAll(String address) throws InterruptedException {
        Listener l = Transport.listen(address, defaults());
        // one connection to itself first: under a low descriptor limit (the test's prlimit) a class
        // loaded late may fail to open its file, so everything the loop uses is loaded now
        Thread.ofVirtual().start(() -> {
            try (Connection c = l.accept(Duration.ofSeconds(30))) {
                echoAll(c);
            }
        });
        // kept open for the child's life, as a serving node has connections: the process's tcp readiness
        // thread (TcpReadiness) and its selector stay, instead of being opened again by the first handshake
        // at a moment when the test has taken every descriptor (its selector could not open: every
        // handshake failed at once, dropping its socket, and the child never ran out of descriptors)
        Connection self = Transport.connect(l.address(), defaults());
        self.send(new byte[] {1}, 0, 1);
        self.receive(Duration.ofSeconds(30));
        if (l.address().startsWith("tcp://")) {
            java.net.URI u = java.net.URI.create(l.address());
            try { // closed at once: the listener drops it and logs why, which sets up the logger too
                new java.net.Socket(u.getHost(), u.getPort()).close();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
        Thread.sleep(300);
        if (TransportException.Reason.values().length == 0 || Rejections.count() < 0) {
            throw new AssertionError();
        }
        System.out.println("LISTENING " + l.address());
        System.out.flush();
        serveEchoAll(l);
    }

    /** Accepts connections until accepting fails, echoing every message of each on a virtual thread of its own. */
    private static void serveEchoAll(Listener l) throws InterruptedException {
        while (true) {
            Connection c;
            try {
                c = l.accept(Duration.ofSeconds(60));
            } catch (TransportException e) {
                System.out.println("FAIL accept: " + e.getMessage());
                System.out.flush();
                Thread.sleep(Long.MAX_VALUE);
                return;
            }
            if (c != null) {
                Thread.ofVirtual().start(() -> {
                    try (c) {
                        echoAll(c);
                    }
                });
            }
        }
    }

    /**
     * Listens with a shared secret (so every handshake waits for the connector at least once: for its proof),
     * prints {@code LISTENING address}, then runs out of descriptors (holds {@code /dev/null} open until that
     * fails) and gives three back: one accepted socket and one handshake's selector, nothing more. Prints
     * {@code STARVED}; once the listener has taken up a connector (the test's silent socket) and its handshake
     * had a second to wait, gives every descriptor back, prints {@code FREED} and serves as
     * {@code serve-echo-all}. Nothing on the listener's side may have come to depend on a descriptor it could
     * not get meanwhile.
     */
    private static void serveStarved(String address, byte[] secret) throws Exception {
        Listener l = Transport.listen(address, ConnectionOptions.DEFAULT.withSharedSecret(secret));
        System.out.println("LISTENING " + l.address());
        System.out.flush();
        List<FileInputStream> held = new ArrayList<>();
        held.add(new FileInputStream("/dev/null"));
        held.removeLast().close(); // loaded before the descriptors run out, as is what the loop below uses
        if (l.stats().handshakes() + l.stats().dropped() < 0) {
            throw new AssertionError();
        }
        try {
            while (true) {
                held.add(new FileInputStream("/dev/null"));
            }
        } catch (IOException full) {
            // out of descriptors
        }
        for (int i = 0; i < 3; i++) {
            held.removeLast().close();
        }
        System.out.println("STARVED");
        System.out.flush();
        while (l.stats().handshakes() + l.stats().dropped() == 0) {
            Thread.sleep(10);
        }
        Thread.sleep(1000);
        for (FileInputStream f : held) {
            f.close();
        }
        held.clear();
        System.out.println("FREED");
        System.out.flush();
        serveEchoAll(l);
    }

    /** Echoes every message until the peer goes or is idle for a minute. */
    private static void echoAll(Connection c) {
        try {
            while (true) {
                Delivery d = c.take(Duration.ofSeconds(60));
                if (d == null) {
                    return;
                }
                c.send(d.payload());
                d.release();
            }
        } catch (TransportException e) {
            // the peer went: this connection is done
        }
    }

    /** Connects, sends {@code count} pattern messages of random sizes and checks each echo. */
    private static void ping(String address, int count) {
        try (Connection c = Transport.connect(address, defaults())) {
            Pattern p = new Pattern(count, 256 * 1024);
            for (int i = 0; i < count; i++) {
                int size = p.nextSize();
                Claim claim = c.claim(size);
                Pattern.fill(claim.segment(), i);
                claim.commit();
                Delivery d = c.take(Duration.ofSeconds(60));
                if (d == null || d.length() != size || Pattern.check(d.payload(), i) >= 0) {
                    System.out.println("FAIL echo " + i + " missing or wrong");
                    return;
                }
                d.release();
            }
            System.out.println("OK pinged " + count);
        } catch (TransportException e) {
            System.out.println("FAIL " + e.getMessage());
        }
    }

    /** Sends back every message until the peer closes. */
    private static void echo(String address) {
        try (Connection c = Transport.connect(address, defaults())) {
            System.out.println("READY");
            System.out.flush();
            long n = 0;
            while (true) {
                Delivery d;
                try {
                    d = c.take(Duration.ofSeconds(60));
                } catch (TransportException e) {
                    System.out.println(e.reason() == TransportException.Reason.PEER_CLOSED ? "OK echoed " + n : "FAIL " + e);
                    return;
                }
                if (d == null) {
                    System.out.println("FAIL idle for 60 s");
                    return;
                }
                c.send(d.payload());
                d.release();
                n++;
            }
        }
    }

    /** Sends {@code count} pattern messages, then closes. */
    private static void stream(String address, int count, long seed, int max) {
        try (Connection c = Transport.connect(address, defaults())) {
            System.out.println("READY");
            System.out.flush();
            Pattern p = new Pattern(seed, Math.min(max, c.maxMessageLength()));
            long bytes = 0;
            for (int i = 0; i < count; i++) {
                int size = p.nextSize();
                Claim claim = c.claim(size);
                Pattern.fill(claim.segment(), i);
                claim.commit();
                bytes += size;
            }
            System.out.println("OK sent " + count + " " + bytes);
        }
    }

    /** Receives and checks {@code count} pattern messages, sleeping {@code pauseMicros} after each. */
    private static void verify(String address, int count, long seed, int max, long pauseMicros) throws InterruptedException {
        try (Connection c = Transport.connect(address, defaults())) {
            System.out.println("READY");
            System.out.flush();
            Pattern p = new Pattern(seed, max);
            for (int i = 0; i < count; i++) {
                Delivery d = c.take(Duration.ofSeconds(60));
                if (d == null) {
                    System.out.println("FAIL nothing arrived for 60 s at message " + i);
                    return;
                }
                MemorySegment s = d.payload();
                int size = p.nextSize();
                if (s.byteSize() != size) {
                    System.out.println("FAIL message " + i + " has " + s.byteSize() + " bytes, expected " + size);
                    return;
                }
                long bad = Pattern.check(s, i);
                if (bad >= 0) {
                    System.out.println("FAIL message " + i + " differs at byte " + bad);
                    return;
                }
                d.release();
                if (pauseMicros > 0) {
                    Thread.sleep(pauseMicros / 1000, (int) (pauseMicros % 1000) * 1000);
                }
            }
            Delivery extra = c.take(Duration.ofMillis(200));
            System.out.println(extra == null ? "OK verified " + count : "FAIL a message beyond the last");
        } catch (TransportException e) {
            System.out.println("FAIL " + e.getMessage());
        }
    }
}
