package dev.verbatim.objects.internal;

import dev.verbatim.objects.BaseOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Two bases that connect to each other at the same moment (first contact, or both reconnecting after their one
 * connection closed) both get through: a base's introduction is taken in without the lock a connect holds through
 * its handshake (docs/objects.md §2), where each side's hello waited for the other's connect to end, until the call
 * timeout, after which each side found the other "gone".
 */
@Timeout(120)
class SimultaneousConnectsTest {
    private static final BaseOptions SHORT = BaseOptions.DEFAULT.withTimeout(Duration.ofSeconds(3));

    @Test
    void twoBasesConnectingToEachOtherAtOnceBothGetThrough() throws Exception {
        String at = "shm:simultaneous-" + ProcessHandle.current().pid();
        for (int round = 0; round < 12; round++) {
            ObjectSpace a = ObjectSpace.listen(SHORT, at + "-a" + round);
            ObjectSpace b = ObjectSpace.listen(SHORT, at + "-b" + round);
            try {
                CyclicBarrier start = new CyclicBarrier(2);
                CompletableFuture<Long> ab = CompletableFuture.supplyAsync(() -> {
                    await(start);
                    return a.base(b.addresses().getFirst()).incarnation();
                }, r -> Thread.ofPlatform().start(r));
                CompletableFuture<Long> ba = CompletableFuture.supplyAsync(() -> {
                    await(start);
                    return b.base(a.addresses().getFirst()).incarnation();
                }, r -> Thread.ofPlatform().start(r));
                assertEquals(b.id(), ab.get(60, TimeUnit.SECONDS), "round " + round + ": a reached b");
                assertEquals(a.id(), ba.get(60, TimeUnit.SECONDS), "round " + round + ": b reached a");
            } finally {
                b.close();
                a.close();
            }
        }
    }

    private static void await(CyclicBarrier b) {
        try {
            b.await(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
