package dev.verbatim.rpc.internal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The pool's soft bound on working runs (docs/rpc.md §4): a start beyond {@link DispatchPool#WORKING_LIMIT}
 * waits (it is counted as deferred) instead of taking a thread of its own, and still runs when every working
 * run stays blocked (a hard bound could leave a connection unread for good); a run that stops working lets
 * a waiting start go.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class DispatchPoolTest {
    @Test
    void aStartBeyondTheBoundWaitsAndStillRunsWhenTheWorkingRunsStayBlocked() throws Exception {
        int before = DispatchPool.working();
        int blockers = DispatchPool.WORKING_LIMIT - before;
        CountDownLatch started = new CountDownLatch(blockers);
        CountDownLatch unblock = new CountDownLatch(1);
        try {
            for (int i = 0; i < blockers; i++) {
                DispatchPool.execute(() -> {
                    try {
                        started.countDown();
                        unblock.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } finally {
                        DispatchPool.release();
                    }
                });
            }
            assertTrue(started.await(10, TimeUnit.SECONDS), "the runs within the bound started");
            long deferrals = DispatchPool.deferrals();
            CountDownLatch ran = new CountDownLatch(1);
            DispatchPool.execute(() -> {
                ran.countDown();
                DispatchPool.release();
            });
            assertEquals(deferrals + 1, DispatchPool.deferrals(), "the start beyond the bound was queued, not given a thread");
            assertTrue(ran.await(10, TimeUnit.SECONDS), "a queued start runs even though no working run ever stops");
        } finally {
            unblock.countDown();
        }
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (DispatchPool.working() > before && System.nanoTime() < end) {
            Thread.sleep(10);
        }
        assertEquals(before, DispatchPool.working(), "every run released its count");
    }

    @Test
    void aRunThatStopsWorkingLetsAQueuedStartGo() throws Exception {
        int before = DispatchPool.working();
        int blockers = DispatchPool.WORKING_LIMIT - before;
        CountDownLatch started = new CountDownLatch(blockers);
        CountDownLatch unblock = new CountDownLatch(1);
        CountDownLatch releaseOne = new CountDownLatch(1);
        try {
            for (int i = 0; i < blockers; i++) {
                boolean first = i == 0;
                DispatchPool.execute(() -> {
                    try {
                        started.countDown();
                        if (first) {
                            releaseOne.await();
                            DispatchPool.release(); // stops working, and stays blocked
                            unblock.await();
                            return;
                        }
                        unblock.await();
                        DispatchPool.release();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
            }
            assertTrue(started.await(10, TimeUnit.SECONDS));
            DispatchPool.execute(DispatchPool::release); // (queued: the bound is reached)
            assertEquals(DispatchPool.WORKING_LIMIT, DispatchPool.working(), "the queued start is not counted yet");
            releaseOne.countDown();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (DispatchPool.working() != DispatchPool.WORKING_LIMIT - 1 && System.nanoTime() < end) {
                Thread.sleep(1);
            }
            assertEquals(DispatchPool.WORKING_LIMIT - 1, DispatchPool.working(), "the released count went to the queued start, which ran and released it");
        } finally {
            unblock.countDown();
        }
    }
}
