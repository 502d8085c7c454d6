package dev.verbatim.rpc.internal;

import dev.verbatim.rpc.RemoteException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

class CallTableTest {
    private static final long MINUTE = TimeUnit.MINUTES.toNanos(1);

    private static PendingCall sync(long id, long chain) {
        return new PendingCall(null, id, null, MINUTE, chain, Thread.currentThread());
    }

    private static PendingCall async(long id, long timeoutNanos) {
        return new PendingCall(null, id, null, timeoutNanos, id, null);
    }

    @Test
    void expiredAsynchronousCallsAreFoundHoweverTheOthersLeftTheTable() {
        // the dispatcher looks through the table only while asynchronous calls are in it (synchronous ones time
        // themselves out): the count of them must follow every way one leaves, or a later one is never timed out
        CallTable t = new CallTable();
        List<PendingCall> expired = new ArrayList<>();
        PendingCall taken = async(1, MINUTE);
        PendingCall forgotten = async(2, MINUTE);
        PendingCall failed = async(3, MINUTE);
        t.add(sync(4, 4), true); // in the slot
        t.add(sync(5, 5), true); // in the map, synchronous: never the dispatcher's
        t.add(taken, false);
        t.add(forgotten, false);
        assertSame(taken, t.take(1));
        assertNull(t.take(1), "taken once");
        assertTrue(t.forget(forgotten));
        assertFalse(t.forget(forgotten), "forgotten once");
        t.forEachExpired(System.nanoTime() + 2 * MINUTE, expired::add);
        assertEquals(List.of(), expired, "only synchronous calls are left");
        t.add(failed, false);
        t.failAll(new RemoteException(RemoteException.Reason.CONNECTION, "closed"));
        assertTrue(failed.isCompletedExceptionally());
        PendingCall late = async(6, 0);
        t.add(late, false);
        t.forEachExpired(System.nanoTime() + 1, expired::add);
        assertEquals(List.of(late), expired, "a later asynchronous call is still timed out");
    }

    @Test
    void callIdsCountUpFromOne() {
        CallTable t = new CallTable();
        assertEquals(1, t.nextId());
        assertEquals(2, t.nextId());
    }

    @Test
    void theFirstSynchronousCallWaitsInTheSoloSlotAndTheNextInTheMap() {
        CallTable t = new CallTable();
        PendingCall a = sync(1, 7);
        PendingCall b = sync(2, 8);
        t.add(a, true);
        t.add(b, true);
        assertTrue(a.inSlot);
        assertFalse(b.inSlot);
        assertFalse(t.mapEmpty(), "the second call is in the map");
        assertTrue(t.callersWait(), "a caller in the slot counts as waiting");
        assertSame(a, t.take(1));
        assertSame(b, t.take(2));
        assertTrue(t.isEmpty());
        assertFalse(t.callersWait());
    }

    @Test
    void aNestedCallOfAChainGoesToItsInnermostWaitWhereverTheWaitsAre() {
        // A calls B (the outer wait), B calls back, A's callback calls B again (the inner wait, same thread, same
        // chain): B's next call back must go to the inner wait, which its thread reads; the outer's inbox is not
        // looked at until the inner call returns, which it never would
        for (int outerInSlot = 0; outerInSlot < 2; outerInSlot++) {
            CallTable t = new CallTable();
            if (outerInSlot == 0) {
                t.add(sync(1, 99), true); // another chain holds the slot: both waits in the map
            }
            PendingCall outer = sync(2, 7);
            PendingCall inner = sync(3, 7);
            t.add(outer, true);
            t.add(inner, true);
            assertSame(inner, t.waitingIn(7), "the inner wait (outer " + (outer.inSlot ? "in the slot" : "in the map") + ")");
            assertSame(outer, t.take(3) == inner ? t.waitingIn(7) : null, "once the inner call is answered, the outer");
        }
    }

    @Test
    void anAsynchronousCallNeverTakesTheSlot() {
        CallTable t = new CallTable();
        PendingCall a = async(1, MINUTE);
        t.add(a, false);
        assertFalse(a.inSlot);
        assertFalse(t.callersWait(), "nobody waits for an asynchronous call");
        assertFalse(t.isEmpty());
    }

    @Test
    void exactlyOneThreadRemovesACallWhetherItIsAnsweredOrForgotten() {
        CallTable t = new CallTable();
        PendingCall slot = sync(1, 1);
        PendingCall map = sync(2, 2);
        t.add(slot, true);
        t.add(map, true);
        assertSame(slot, t.take(1), "the answer's reader removes it");
        assertNull(t.take(1), "a second answer finds nothing");
        assertFalse(t.forget(slot), "a caller giving up after the answer was read removes nothing");
        assertTrue(t.forget(map), "a caller giving up first removes it");
        assertNull(t.take(2), "and its late answer finds nothing");
        assertFalse(t.forget(map));
        assertTrue(t.isEmpty());
    }

    @Test
    void forgettingOneCallLeavesAnotherOfTheSameIdAlone() {
        CallTable t = new CallTable();
        PendingCall a = sync(5, 1);
        t.add(a, false);
        assertFalse(t.forget(sync(5, 1)), "only the very entry is removed");
        assertSame(a, t.take(5));
    }

    @Test
    void theCallerOfAChainIsFoundOnlyWhileItWaitsSynchronously() {
        CallTable t = new CallTable();
        PendingCall inSlot = sync(1, 100);
        PendingCall inMap = sync(2, 200);
        PendingCall asynchronous = async(3, MINUTE); // chain 3
        t.add(inSlot, true);
        t.add(inMap, true);
        t.add(asynchronous, false);
        assertSame(inSlot, t.waitingIn(100));
        assertSame(inMap, t.waitingIn(200));
        assertNull(t.waitingIn(3), "no thread waits for an asynchronous call: its chain's calls run elsewhere");
        assertNull(t.waitingIn(999));
        inMap.complete(null);
        assertNull(t.waitingIn(200), "a caller whose call is done no longer runs its chain");
    }

    @Test
    void onlyAsynchronousCallsPastTheirDeadlineExpire() {
        CallTable t = new CallTable();
        PendingCall late = async(1, 1);
        PendingCall early = async(2, MINUTE);
        PendingCall waiting = new PendingCall(null, 3, null, 1, 3, Thread.currentThread());
        t.add(late, false);
        t.add(early, false);
        t.add(waiting, false);
        waiting.deadline();
        List<PendingCall> expired = new ArrayList<>();
        t.forEachExpired(System.nanoTime() + 1_000, expired::add);
        assertEquals(List.of(late), expired, "a synchronous caller times itself out");
    }

    @Test
    void closingFailsEveryWaitingCallAndEmptiesTheTable() {
        CallTable t = new CallTable();
        PendingCall a = sync(1, 1);
        PendingCall b = sync(2, 2);
        PendingCall c = async(3, MINUTE);
        t.add(a, true);
        t.add(b, true);
        t.add(c, false);
        RemoteException failure = new RemoteException(RemoteException.Reason.CONNECTION, "closed");
        t.failAll(failure);
        assertTrue(t.isEmpty());
        for (PendingCall p : List.of(a, b, c)) {
            ExecutionException e = assertThrows(ExecutionException.class, () -> p.get(1, TimeUnit.SECONDS));
            assertSame(failure, e.getCause());
        }
    }

    @Test
    void anotherWaitingCallerIsWokenAfterALeaderIsAnswered() throws Exception {
        CallTable t = new CallTable();
        PendingCall leader = sync(1, 1);
        t.add(leader, true);
        Thread parked = Thread.ofPlatform().start(() -> {
            PendingCall mine = sync(2, 2);
            t.add(mine, true);
            t.callerWaits();
            t.parks(); // (counted as parked: only a parked caller is woken; before its waiter shows, which the test waits for)
            mine.waiter = Thread.currentThread();
            while (!mine.isDone() && !Thread.currentThread().isInterrupted()) {
                java.util.concurrent.locks.LockSupport.park();
                mine.complete("woken");
            }
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!t.callersWait() || t.mapEmpty()) {
            assertTrue(System.nanoTime() < deadline);
            Thread.onSpinWait();
        }
        PendingCall other = null;
        while (other == null || other.waiter == null) {
            assertTrue(System.nanoTime() < deadline);
            other = t.waitingIn(2);
        }
        try {
            t.take(1);
            leader.complete(null);
            t.wakeAnotherCaller(leader);
            parked.join(TimeUnit.SECONDS.toMillis(10));
            assertFalse(parked.isAlive(), "the parked caller was woken");
        } finally {
            parked.interrupt();
        }
    }

    /**
     * A leader that stops leading before its answer (nested calls to run, a lock hand-over) wakes another waiting
     * caller, never itself: another must lead now, not when its park slice ends.
     */
    @Test
    void aLeaderThatStopsUnansweredWakesAnotherCallerNotItself() throws Exception {
        CallTable t = new CallTable();
        PendingCall leader = sync(1, 1);
        t.add(leader, true); // the solo slot, looked at first
        leader.waiter = Thread.currentThread();
        Thread parked = Thread.ofPlatform().start(() -> {
            PendingCall mine = sync(2, 2);
            t.add(mine, true);
            t.callerWaits();
            t.parks(); // (counted as parked: only a parked caller is woken; before its waiter shows, which the test waits for)
            mine.waiter = Thread.currentThread();
            while (!mine.isDone() && !Thread.currentThread().isInterrupted()) {
                java.util.concurrent.locks.LockSupport.park();
                mine.complete("woken");
            }
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        PendingCall other = null;
        while (other == null || other.waiter == null) {
            assertTrue(System.nanoTime() < deadline);
            other = t.waitingIn(2);
        }
        try {
            t.wakeAnotherCaller(leader); // the leader is not answered and still waits
            parked.join(TimeUnit.SECONDS.toMillis(10));
            assertFalse(parked.isAlive(), "the other caller was woken, not the leader");
        } finally {
            parked.interrupt();
        }
    }
}
