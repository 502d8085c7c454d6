package dev.verbatim.transport;

import java.lang.foreign.MemorySegment;
import java.time.Duration;

/**
 * The other process of the transport tests. {@code java ... TransportPeer MODE ADDRESS [ARGS]}; prints
 * {@code READY} once connected (or listening) and a last line {@code OK ...} or {@code FAIL ...}.
 */
public final class TransportPeer {
    private TransportPeer() {}

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        String address = args[1];
        switch (mode) {
            case "echo" -> echo(address);
            case "stream" -> stream(address, Integer.parseInt(args[2]), Long.parseLong(args[3]), Integer.parseInt(args[4]));
            case "verify" -> verify(address, Integer.parseInt(args[2]), Long.parseLong(args[3]), Integer.parseInt(args[4]),
                    Long.parseLong(args[5]));
            case "serve-echo" -> serveEcho(address);
            case "ping" -> ping(address, Integer.parseInt(args[2]));
            case "hang" -> {
                Connection c = Transport.connect(address);
                System.out.println("READY");
                System.out.flush();
                Thread.sleep(Long.MAX_VALUE);
                c.close();
            }
            case "listen" -> {
                Listener l = Transport.listen(address);
                System.out.println("READY");
                System.out.flush();
                while (true) {
                    Connection c = l.accept(Duration.ofSeconds(60));
                    if (c != null) {
                        c.close();
                    }
                }
            }
            default -> throw new IllegalArgumentException(mode);
        }
    }

    /** Listens, prints {@code LISTENING address}, and echoes one connection. */
    private static void serveEcho(String address) {
        try (Listener l = Transport.listen(address)) {
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

    /** Connects, sends {@code count} pattern messages of random sizes and checks each echo. */
    private static void ping(String address, int count) {
        try (Connection c = Transport.connect(address)) {
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
        try (Connection c = Transport.connect(address)) {
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
        try (Connection c = Transport.connect(address)) {
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
        try (Connection c = Transport.connect(address)) {
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
