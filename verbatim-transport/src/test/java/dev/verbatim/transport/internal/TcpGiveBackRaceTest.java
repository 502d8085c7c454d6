package dev.verbatim.transport.internal;

import dev.verbatim.transport.Connection;
import dev.verbatim.transport.ConnectionOptions;
import dev.verbatim.transport.Delivery;
import dev.verbatim.transport.DeliveryHandler;
import dev.verbatim.transport.Listener;
import dev.verbatim.transport.Transport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The pages a tcp receive window gives back when its receiver goes idle ({@code notifyWhenReadable}) are never pages
 * that hold a message not yet read or a delivery still held: a receiver that asks to be told of the next message while
 * messages keep coming, some of them held and released later on another thread (as RPC callers do with their replies),
 * reads every message as it was sent.
 */
@Timeout(60)
class TcpGiveBackRaceTest {
    private static final int MESSAGES = 200_000;

    @Test
    void pagesGivenBackWhileMessagesFlowNeverHoldAMessage() throws Exception {
        assertTrue(LazyWindow.lazy(), "the tests run with native access: windows are mapped lazily");
        ConnectionOptions small = ConnectionOptions.DEFAULT.withAreas(4, 64 * 1024);
        try (Listener l = Transport.listen("tcp://127.0.0.1:0", small)) {
            CompletableFuture<Connection> accepted = CompletableFuture.supplyAsync(() -> l.accept(Duration.ofSeconds(20)));
            try (Connection sender = Transport.connect(l.address(), small);
                 Connection receiver = accepted.get(20, TimeUnit.SECONDS)) {
                AtomicBoolean done = new AtomicBoolean();
                AtomicReference<String> wrong = new AtomicReference<>();
                CompletableFuture<Void> sent = CompletableFuture.runAsync(() -> {
                    byte[] m = new byte[16];
                    byte[] big = new byte[3000];
                    for (int i = 0; i < MESSAGES && !done.get(); i++) {
                        byte[] b = i % 50 == 49 ? big : m;
                        java.nio.ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(0, ~(long) i).putLong(8, i);
                        sender.send(b, 0, b.length);
                    }
                });
                Thread idler = Thread.ofPlatform().daemon().start(() -> { // the receiver going idle, over and over
                    while (!done.get()) {
                        receiver.notifyWhenReadable(() -> { });
                        java.util.concurrent.locks.LockSupport.parkNanos(200_000);
                    }
                });
                ArrayBlockingQueue<Delivery> held = new ArrayBlockingQueue<>(64);
                Thread releaser = Thread.ofPlatform().daemon().start(() -> { // held deliveries read and released later
                    try {
                        while (!done.get() || !held.isEmpty()) {
                            Delivery d = held.poll(10, TimeUnit.MILLISECONDS);
                            if (d != null) {
                                check(d, wrong);
                                d.release();
                            }
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                int[] next = {0};
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
                try {
                    while (next[0] < MESSAGES && wrong.get() == null && System.nanoTime() < until
                            && !sent.isCompletedExceptionally()) {
                        receiver.poll(d -> {
                            long seq = d.payload().get(ValueLayout.JAVA_LONG_UNALIGNED, 8);
                            if (seq != next[0]) {
                                wrong.compareAndSet(null, "message " + next[0] + " read as " + seq + " (first word "
                                        + Long.toHexString(d.payload().get(ValueLayout.JAVA_LONG_UNALIGNED, 0)) + ")");
                            }
                            next[0]++;
                            if (next[0] % 3 == 0) {
                                try {
                                    held.put(d.retain());
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                }
                            } else {
                                check(d, wrong);
                            }
                            return DeliveryHandler.Action.CONTINUE;
                        }, 64);
                    }
                } finally {
                    done.set(true);
                    idler.join(10_000);
                    releaser.join(10_000);
                }
                if (sent.isCompletedExceptionally()) {
                    sent.get(); // the sender's failure
                }
                assertNull(wrong.get());
                assertEquals(MESSAGES, next[0], "every message arrived");
                sent.get(20, TimeUnit.SECONDS);
            }
        }
    }

    private static void check(Delivery d, AtomicReference<String> wrong) {
        long first = d.payload().get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
        long seq = d.payload().get(ValueLayout.JAVA_LONG_UNALIGNED, 8);
        if (first != ~seq) {
            wrong.compareAndSet(null, "message " + seq + " changed under its reader: first word " + Long.toHexString(first));
        }
    }
}
