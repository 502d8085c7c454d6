package dev.verbatim.bench.objects;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The three layouts of paper 003 §5: where each element lives, how many links are remote, whether a walk comes back. */
class LayoutTest {

    @Test
    void theHeadIsAlwaysOnBaseZeroAndEveryElementOnOneOfTheBases() {
        for (Layout l : Layout.values()) {
            for (int b = 1; b <= 4; b++) {
                assertEquals(0, l.home(0, 1000, b), l + " b" + b);
                for (int i = 0; i < 1000; i++) {
                    int h = l.home(i, 1000, b);
                    assertTrue(h >= 0 && h < b, l + " element " + i + " on " + h);
                }
            }
        }
    }

    @Test
    void scatteredMakesEveryLinkRemoteClumpedOneInFourCompactOnePerBaseBoundary() {
        assertEquals(999, Layout.SCATTERED.remoteLinks(1000, 2));
        assertEquals(999, Layout.SCATTERED.remoteLinks(1000, 4));
        assertEquals(249, Layout.CLUMPED.remoteLinks(1000, 2), "one link in four (the last clump has no next)");
        assertEquals(249, Layout.CLUMPED.remoteLinks(1000, 3));
        assertEquals(1, Layout.COMPACT.remoteLinks(1000, 2));
        assertEquals(3, Layout.COMPACT.remoteLinks(1000, 4));
        assertEquals(2, Layout.COMPACT.remoteLinks(100, 3), "runs of 34, 34 and 32");
        for (Layout l : Layout.values()) {
            assertEquals(0, l.remoteLinks(1000, 1), l + " over one base is local");
        }
    }

    @Test
    void onlyCompactWalksNeverComeBackToABaseTheyLeft() {
        for (int b = 2; b <= 4; b++) {
            assertTrue(Layout.SCATTERED.comesBack(100, b));
            assertTrue(Layout.CLUMPED.comesBack(100, b));
            assertFalse(Layout.COMPACT.comesBack(100, b));
        }
        assertFalse(Layout.SCATTERED.comesBack(100, 1));
        assertFalse(Layout.SCATTERED.comesBack(2, 2), "A, B: left A, never back");
        assertTrue(Layout.SCATTERED.comesBack(3, 2), "A, B, A");
    }

    @Test
    void anElementOutsideTheListHasNoHome() {
        assertThrows(IllegalArgumentException.class, () -> Layout.COMPACT.home(10, 10, 2));
        assertThrows(IllegalArgumentException.class, () -> Layout.COMPACT.home(0, 10, 0));
    }
}
