package dev.verbatim.rpc.internal;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** The grant table alone: only the ids granted are there, small (bits) or large (a set), never their neighbours. */
class GrantsUnitTest {
    private final Grants grants = new Grants();

    @Test
    void nothingIsGrantedAtFirst() {
        for (int id : new int[] {0, 1, 63, 64, Grants.SMALL - 1, Grants.SMALL, Integer.MAX_VALUE, -1, Integer.MIN_VALUE}) {
            assertFalse(grants.has(id), "id " + id);
        }
    }

    @Test
    void aGrantedIdIsThereAndItsNeighboursAreNot() {
        for (int id : new int[] {1, 63, 64, 130, Grants.SMALL - 1, Grants.SMALL, 1 << 20, -5}) {
            Grants g = new Grants();
            g.grant(Grants.SMALL - 1); // the bits as wide as they get
            g.grant(id);
            g.grant(id); // twice: no harm
            assertTrue(g.has(id), "id " + id);
            assertFalse(g.has(id + 1) && id + 1 != Grants.SMALL - 1, "id " + (id + 1) + " beside " + id);
            assertFalse(g.has(id - 1) && id - 1 != Grants.SMALL - 1, "id " + (id - 1) + " beside " + id);
            assertFalse(g.has(id + 64), "the same bit of the next word as " + id);
            assertFalse(g.has(id - 64), "the same bit of the previous word as " + id);
            assertFalse(g.has(1 << 21));
            assertFalse(g.has(Integer.MIN_VALUE));
        }
    }
}
