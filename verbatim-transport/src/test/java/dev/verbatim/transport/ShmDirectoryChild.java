package dev.verbatim.transport;

import dev.verbatim.transport.internal.ShmDirectory;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The child of {@link ShmDirectoryTest}: listens at {@code shm:dirtest}, connects to it, sends a byte back and
 * forth, and prints {@code OK DIR} (the shm directory used) or {@code FAIL REASON: MESSAGE}.
 */
public final class ShmDirectoryChild {
    private ShmDirectoryChild() {}

    public static void main(String[] args) throws Exception {
        try (Listener l = Transport.listen("shm:dirtest")) {
            CompletableFuture<Connection> connector = CompletableFuture.supplyAsync(() -> Transport.connect("shm:dirtest"));
            try (Connection accepted = l.accept(Duration.ofSeconds(20)); Connection c = connector.get()) {
                c.send(new byte[] {42}, 0, 1);
                byte[] got = accepted.receive(Duration.ofSeconds(20));
                System.out.println(got != null && got[0] == 42 ? "OK " + ShmDirectory.directory() : "FAIL nothing arrived");
            }
        } catch (TransportException e) {
            System.out.println("FAIL " + e.reason() + ": " + e.getMessage());
        }
    }
}
