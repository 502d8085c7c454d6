package dev.verbatim.rpc.internal;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/** The delegate inbox of a waiting caller ({@link PendingCall#offer}, {@link PendingCall#nextTask}). */
class DelegateInboxTest {
    private static PendingCall waiting() {
        return new PendingCall(null, 1, null, TimeUnit.MINUTES.toNanos(1), 42, Thread.currentThread());
    }

    @Test
    void nestedCallsHandedToAWaitingCallerRunInTheOrderTheyCame() {
        PendingCall p = waiting();
        List<Integer> ran = new ArrayList<>();
        assertFalse(p.hasTasks);
        assertTrue(p.offer(() -> ran.add(1)));
        assertTrue(p.offer(() -> ran.add(2)));
        assertTrue(p.hasTasks, "the caller sees it has work");
        assertTrue(p.wasOffered());
        for (Runnable t = p.nextTask(false); t != null; t = p.nextTask(false)) {
            t.run();
        }
        assertEquals(List.of(1, 2), ran);
        assertFalse(p.hasTasks);
    }

    @Test
    void aCallerThatStoppedWaitingTakesNoMore() {
        PendingCall p = waiting();
        assertNull(p.nextTask(true), "nothing was handed over: closed without taking the lock");
        assertFalse(p.offer(() -> { }), "a late hand-over is refused: the reader runs it elsewhere");
        assertFalse(p.hasTasks);
    }

    @Test
    void closingStillHandsOutWhatCameBefore() {
        PendingCall p = waiting();
        List<Integer> ran = new ArrayList<>();
        p.offer(() -> ran.add(1));
        Runnable t = p.nextTask(true);
        assertNotNull(t, "what was handed over before the caller stopped still runs on it");
        t.run();
        assertNull(p.nextTask(true));
        assertFalse(p.offer(() -> ran.add(2)));
        assertEquals(List.of(1), ran);
    }

    @Test
    void onceTheAnswerWasReadNoNestedCallOfItsChainIsAccepted() {
        PendingCall p = waiting();
        p.answered = true;
        assertFalse(p.offer(() -> { }), "a broken peer's late nested call runs on the dispatcher instead");
        assertFalse(p.wasOffered());
    }

    @Test
    void aHandOverWakesTheParkedCaller() throws Exception {
        List<Runnable> got = new ArrayList<>();
        PendingCall[] slot = new PendingCall[1];
        Thread caller = Thread.ofPlatform().start(() -> {
            PendingCall p = new PendingCall(null, 1, null, TimeUnit.MINUTES.toNanos(1), 7, Thread.currentThread());
            synchronized (slot) {
                slot[0] = p;
                slot.notifyAll();
            }
            while (!p.hasTasks && !Thread.currentThread().isInterrupted()) {
                java.util.concurrent.locks.LockSupport.park();
            }
            Runnable t = p.nextTask(false);
            if (t != null) {
                got.add(t);
            }
        });
        try {
            synchronized (slot) {
                while (slot[0] == null) {
                    slot.wait(10_000);
                }
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (caller.getState() != Thread.State.WAITING) { // parked: only an unpark gets it out
                assertTrue(System.nanoTime() < deadline, "the caller parks");
                Thread.sleep(1);
            }
            Runnable task = () -> { };
            assertTrue(slot[0].offer(task));
            caller.join(10_000);
            assertFalse(caller.isAlive(), "the caller was unparked");
            assertEquals(List.of(task), got);
        } finally {
            caller.interrupt();
        }
    }
}
