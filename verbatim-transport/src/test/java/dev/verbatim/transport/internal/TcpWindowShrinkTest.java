package dev.verbatim.transport.internal;

import dev.verbatim.transport.Connection;
import dev.verbatim.transport.Delivery;
import dev.verbatim.transport.Listener;
import dev.verbatim.transport.Transport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A tcp receive window grows with use and shrinks when its connection goes idle (docs/transport.md): pages
 * are committed as messages reach them, and the pages of the areas a burst filled go back to the operating
 * system when the receiver asks to be told of the next message ({@code notifyWhenReadable}, what an idle RPC
 * dispatcher does). Residency is the kernel's ({@code mincore}).
 */
@Timeout(60)
class TcpWindowShrinkTest {
    @Test
    void aWindowThatABurstGrewGivesItsPagesBackWhenIdle() throws Exception {
        assertTrue(LazyWindow.lazy(), "the tests run with native access: windows are mapped lazily");
        try (Listener l = Transport.listen("tcp://127.0.0.1:0")) {
            CompletableFuture<Connection> accepted = CompletableFuture.supplyAsync(() -> l.accept(Duration.ofSeconds(20)));
            try (Connection sender = Transport.connect(l.address());
                 Connection receiver = accepted.get(20, TimeUnit.SECONDS)) {
                TcpConnection window = (TcpConnection) receiver;
                long fresh = window.residentWindowBytes();
                assertTrue(fresh >= 0 && fresh < 256 * 1024, "a fresh window is hardly resident: " + fresh);

                // a burst: large messages through several areas, each received and released
                byte[] big = new byte[sender.maxMessageLength() / 2];
                big[big.length - 1] = 7;
                int messages = 8;
                CompletableFuture<Void> sent = CompletableFuture.runAsync(() -> {
                    for (int i = 0; i < messages; i++) {
                        sender.send(big, 0, big.length);
                    }
                });
                for (int i = 0; i < messages; i++) {
                    Delivery d = receiver.take(Duration.ofSeconds(20));
                    assertNotNull(d, "message " + i);
                    assertEquals(big.length, d.length());
                    d.release();
                }
                sent.get(20, TimeUnit.SECONDS);
                long grown = window.residentWindowBytes();
                assertTrue(grown > 4L * big.length, "the burst committed the pages it wrote: " + grown);

                receiver.notifyWhenReadable(() -> { }); // the receiver goes idle
                long shrunk = window.residentWindowBytes();
                assertTrue(shrunk < grown / 2 && shrunk <= 2L * big.length + 256 * 1024,
                        "after the burst, idle, the window gave its free areas back: " + grown + " -> " + shrunk);

                // and it still works: the next messages land in given-back (zero) pages
                sender.send(big, 0, big.length);
                Delivery d = receiver.take(Duration.ofSeconds(20));
                assertNotNull(d);
                assertEquals(7, d.payload().get(java.lang.foreign.ValueLayout.JAVA_BYTE, big.length - 1));
                d.release();
            }
        }
    }
}
