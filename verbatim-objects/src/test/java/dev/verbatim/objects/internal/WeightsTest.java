package dev.verbatim.objects.internal;

import dev.verbatim.objects.BaseOptions;
import dev.verbatim.objects.Fixtures;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.*;

/** The weight arithmetic of an owner's table and of a holder's hold (docs/objects.md §3). */
class WeightsTest {
    /** What the holds of these tests change their weight under, as a base's ledger. */
    private static final Object LEDGER = new Object();

    private static final SharedTypes.Offer OFFER = SharedTypes.offer(Fixtures.Cell.class);

    @Test
    void anOwnerCountsEveryGrantAndForgetsTheObjectWhenAllOfItIsBack() {
        OwnedObjects t = new OwnedObjects();
        Object o = new Fixtures.Cell();
        OwnedObjects.Entry e = t.grant(o, OFFER, 8, false);
        assertSame(e, t.grant(o, OFFER, 8, false), "one entry per object");
        assertEquals(16, t.outstanding(o));
        assertSame(o, t.credit(e.id, 10));
        assertEquals(6, t.outstanding(o));
        assertEquals(1, t.size());
        t.credit(e.id, 6);
        assertEquals(0, t.size(), "forgotten at zero");
        assertNull(t.get(e.id));
        assertNotEquals(e.id, t.grant(o, OFFER, 8, false).id, "an id is never reused");
    }

    @Test
    void weightComingBackBeyondWhatIsOutstandingOrForAnIdNeverHandedOutIsRefusedAndChangesNothing() {
        OwnedObjects t = new OwnedObjects();
        Object o = new Fixtures.Cell();
        OwnedObjects.Entry e = t.grant(o, OFFER, 8, false);
        assertThrows(IllegalArgumentException.class, () -> t.credit(e.id, 9));
        assertThrows(IllegalArgumentException.class, () -> t.credit(e.id + 1, 1));
        assertEquals(8, t.outstanding(o));
    }

    @Test
    void anOwnerRefusesToHandOutMoreThanTwoToTheSixtyThreeMinusOne() {
        OwnedObjects t = new OwnedObjects();
        Object o = new Fixtures.Cell();
        t.grant(o, OFFER, Long.MAX_VALUE - 1, false);
        assertThrows(IllegalStateException.class, () -> t.grant(o, OFFER, 2, false));
        assertThrows(IllegalStateException.class, () -> t.grantMore(o, 2));
        assertEquals(Long.MAX_VALUE - 1, t.outstanding(o));
        assertEquals(Long.MAX_VALUE, t.outstanding(o) + t.grantMore(o, 1), "up to the limit exactly");
    }

    @Test
    void aHoldSplitsInHalvesDownToOneThenHasNothingToSplitButMayStillSendHomeNothing() {
        synchronized (LEDGER) { // (a hold's weight changes under its base's ledger's monitor)
            Held h = new Held(new Reference(7, 1, 5, List.of("shm:x"), List.of()), new Class<?>[0], new AtomicInteger(), LEDGER);
            assertEquals(2, h.split());
            assertEquals(3, h.weight());
            assertEquals(1, h.split());
            assertEquals(2, h.weight());
            assertEquals(1, h.split());
            assertTrue(h.exhausted());
            assertEquals(0, h.split(), "a hold of 1 cannot be split");
            assertEquals(1, h.weight());
            assertEquals(0, h.splitHome(), "home needs no weight");
            assertEquals(0, h.add(4), "nothing to send home");
            assertFalse(h.exhausted());
            assertEquals(5, h.takeAll());
            assertEquals(-1, h.add(1), "a released hold takes no more: the arrival makes a new proxy");
            assertEquals(0, h.takeAll(), "given back once");
        }
    }

    /**
     * A call looks its arguments over for a hold to refill only while some hold of its base is exhausted: counted as
     * holds run out and come back, not a flag set for good by the first that ran out.
     */
    @Test
    void callsLookForExhaustedHoldsOnlyWhileThereIsOne() {
        synchronized (LEDGER) { // (a hold's weight changes under its base's ledger's monitor)
            AtomicInteger exhausted = new AtomicInteger();
            Held h = new Held(new Reference(7, 3, 2, List.of("shm:x"), List.of()), new Class<?>[0], exhausted, LEDGER);
            assertEquals(0, exhausted.get());
            assertEquals(1, h.split());
            assertEquals(1, exhausted.get(), "a split left 1");
            h.add(8);
            assertEquals(0, exhausted.get(), "weight came: no longer exhausted");
            Held one = new Held(new Reference(7, 4, 1, List.of("shm:x"), List.of()), new Class<?>[0], exhausted, LEDGER);
            assertEquals(1, exhausted.get(), "arrived with 1");
            one.takeAll();
            assertEquals(0, exhausted.get(), "released: nothing to refill");
            one.takeAll();
            assertEquals(0, exhausted.get(), "counted out once");
        }
    }

    @Test
    void aForwardTakesHalfTheHoldButNeverMoreThanTwoToTheTwentyFour() {
        synchronized (LEDGER) { // (a hold's weight changes under its base's ledger's monitor)
            assertEquals(1L << 24, Held.FORWARD_MAX);
            Held h = new Held(new Reference(7, 1, 1L << 40, List.of("shm:x"), List.of()), new Class<?>[0], new AtomicInteger(), LEDGER);
            assertEquals(Held.FORWARD_MAX, h.split());
            assertEquals((1L << 40) - Held.FORWARD_MAX, h.weight());
            assertEquals(Held.FORWARD_MAX, h.splitHome(), "home too");
            Held small = new Held(new Reference(7, 2, Held.FORWARD_MAX, List.of("shm:x"), List.of()), new Class<?>[0], new AtomicInteger(), LEDGER);
            assertEquals(Held.FORWARD_MAX / 2, small.split(), "below twice the cap: half");
        }
    }

    @Test
    void aHoldRefusesAWeightThatWouldOverflowIt() {
        synchronized (LEDGER) { // (a hold's weight changes under its base's ledger's monitor)
            Held h = new Held(new Reference(7, 1, Long.MAX_VALUE - 3, List.of("shm:x"), List.of()), new Class<?>[0], new AtomicInteger(), LEDGER);
            assertThrows(IllegalArgumentException.class, () -> h.add(4));
            assertEquals(Long.MAX_VALUE - 3, h.weight());
            assertEquals(Long.MAX_VALUE - Held.KEEP, h.add(3), "up to the limit exactly; all but what a hold keeps goes home");
            assertEquals(Held.KEEP, h.weight());
        }
    }

    @Test
    void aHoldAboveTheHighWaterMarkKeepsWhatAHoldKeepsAndHandsTheRestBackToSendHome() {
        synchronized (LEDGER) { // (a hold's weight changes under its base's ledger's monitor)
            Held h = new Held(new Reference(7, 1, Held.HIGH_WATER - 8, List.of("shm:x"), List.of()), new Class<?>[0], new AtomicInteger(), LEDGER);
            assertEquals(0, h.excess(), "not above the mark");
            assertEquals(0, h.add(8), "at the mark: kept");
            assertEquals(Held.HIGH_WATER, h.weight());
            assertEquals(Held.HIGH_WATER + 1 - Held.KEEP, h.add(1));
            assertEquals(Held.KEEP, h.weight());
            assertTrue(Held.KEEP > Held.LOW_WATER, "what is kept asks for no refill");

            Held big = new Held(new Reference(7, 2, Held.HIGH_WATER * 4, List.of("shm:x"), List.of()), new Class<?>[0], new AtomicInteger(), LEDGER);
            assertEquals(Held.HIGH_WATER * 4 - Held.KEEP, big.excess(), "a hold that arrives above the mark");
            assertEquals(Held.KEEP, big.weight());
            assertEquals(0, big.excess(), "sent home once");
        }
    }

    @Test
    void aGrantIsAtMostTwoToTheFortyFourSoThatAnArrivalFromTheOwnerIsKeptWhole() {
        assertEquals(1L << 44, BaseOptions.DEFAULT.withGrant(BaseOptions.MAX_GRANT).grant());
        assertThrows(IllegalArgumentException.class, () -> BaseOptions.DEFAULT.withGrant(BaseOptions.MAX_GRANT + 1));
        assertThrows(IllegalArgumentException.class, () -> BaseOptions.DEFAULT.withGrant(1));
        assertTrue(BaseOptions.MAX_GRANT < Held.KEEP);
    }

    /**
     * Where a hold asks its owner ahead of need: one that had 2^38 below 2^38 (the 49,153rd split of the default grant);
     * one that came by a forward (2^24) below 2^16, at its 9th split with 15 more left (a relay asked as a 2^32 one did
     * before the cap); one that never had 2^16 (a small grant) never, its arithmetic exact.
     */
    @Test
    void aHoldAsksAheadBelowWhatItsSizeAllowsAndASmallOneNever() {
        synchronized (LEDGER) { // (a hold's weight changes under its base's ledger's monitor)
            assertEquals(49_153, firstAsk(new Held(new Reference(7, 1, 1L << 40, List.of("shm:x"), List.of()), new Class<?>[0], new AtomicInteger(), LEDGER)));
            Held relay = new Held(new Reference(7, 2, Held.FORWARD_MAX, List.of("shm:x"), List.of()), new Class<?>[0], new AtomicInteger(), LEDGER);
            assertEquals(9, firstAsk(relay), "a forwarded hold asks before it runs out");
            assertEquals(1L << 15, relay.weight());
            assertEquals(-1, firstAsk(new Held(new Reference(7, 3, 1L << 15, List.of("shm:x"), List.of()), new Class<?>[0], new AtomicInteger(), LEDGER)),
                    "a small grant never asks ahead");
        }
    }

    /** The split after which {@code h} first wants a refill, splitting until then (or until it cannot: -1). */
    private static int firstAsk(Held h) {
        for (int i = 1; h.split() > 0; i++) {
            if (h.wantsRefill()) {
                return i;
            }
        }
        return -1;
    }
}
