package dev.verbatim.objects.internal;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The ledger's accounts and totals (docs/objects.md §7) as references come and go in every order: it remembers the
 * owner, object and peer it counted last, and what it reports must be what counting afresh would give.
 */
class LedgerTest {
    @Test
    void anAccountThatWentAndCameBackStartsFromNothingWhileTheTotalsKeepEverything() {
        Ledger l = new Ledger();
        l.received(7, 1, 7, 8, true);
        l.sent(7, 1, 7, 8, true); // all of it home, sent only to the owner: the account goes
        assertNull(l.get(7, 1));
        l.received(7, 1, 9, 4, true); // the same object again, from another base
        Ledger.Account a = l.get(7, 1);
        assertEquals(4, a.hold);
        assertEquals(1, a.edges.size(), "a new account: nothing of the old one's edge home");
        assertArrayEquals(new long[] {0, 4}, a.edge(9));
        assertEquals(java.util.Map.of(7L, 8L, 9L, 0L), totals(l.sentTo(7)), "the totals keep what the account that went sent");
        assertEquals(java.util.Map.of(7L, 8L, 9L, 4L), totals(l.holdsAndReceived(7)));
    }

    @Test
    void countsForOtherOwnersObjectsAndPeersInTurnLandWhereTheyBelong() {
        Ledger l = new Ledger();
        for (int i = 0; i < 3; i++) {
            l.received(7, 1, 9, 10, true);
            l.received(8, 1, 9, 20, true);
            l.received(7, 2, 5, 30, true);
            l.sent(7, 1, 5, 1, true);
            l.sent(8, 1, 5, 2, true);
        }
        assertEquals(27, l.get(7, 1).hold);
        assertEquals(54, l.get(8, 1).hold);
        assertEquals(90, l.get(7, 2).hold);
        assertEquals(3, l.get(7, 1).edge(5)[Ledger.SENT]);
        assertEquals(30, l.get(7, 1).edge(9)[Ledger.RECEIVED]);
        assertEquals(java.util.Map.of(9L, 30L, 5L, 90L), totals(l.holdsAndReceived(7)));
        assertEquals(java.util.Map.of(9L, 0L, 5L, 3L), totals(l.sentTo(7)));
        assertEquals(java.util.Map.of(9L, 0L, 5L, 6L), totals(l.sentTo(8)));
        assertEquals(6, l.get(8, 1).edge(5)[Ledger.SENT]);
        assertEquals(90, l.get(7, 2).edge(5)[Ledger.RECEIVED]);
    }

    @Test
    void anOwnerForgottenIsForgottenWholeAndCountedAfreshAfter() {
        Ledger l = new Ledger();
        l.received(7, 1, 9, 10, true);
        l.forgetOwner(7);
        assertNull(l.get(7, 1));
        assertArrayEquals(new long[] {0}, l.holdsAndReceived(7));
        l.received(7, 1, 9, 3, true);
        assertEquals(3, l.get(7, 1).hold);
        assertArrayEquals(new long[] {1, 9, 3, 1, 3, 1, 9, 3}, l.holdsAndReceived(7));
        l.forget(7, 1);
        assertNull(l.get(7, 1));
        l.received(7, 1, 9, 2, true);
        assertEquals(2, l.get(7, 1).hold, "an account forgotten is made afresh, not the one remembered last");
        assertEquals(1, l.accounts());
    }

    /** The per-peer totals at the head of a census report ({@link Ledger#sentTo}, {@link Ledger#holdsAndReceived}). */
    private static java.util.Map<Long, Long> totals(long[] report) {
        java.util.Map<Long, Long> m = new java.util.HashMap<>();
        for (int i = 0; i < report[0]; i++) {
            m.put(report[1 + 2 * i], report[2 + 2 * i]);
        }
        return m;
    }
}
