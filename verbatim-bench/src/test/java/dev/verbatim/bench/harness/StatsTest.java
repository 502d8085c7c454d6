package dev.verbatim.bench.harness;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The medians and paired ratios every suite reports. */
class StatsTest {

    @Test
    void theMedianOfAnOddCountIsItsMiddleFigure() {
        assertEquals(300.0, Stats.median(new double[] {500, 100, 300}), 0);
        assertEquals(7.0, Stats.median(new double[] {7}), 0);
    }

    @Test
    void theMedianOfAnEvenCountIsTheMeanOfTheMiddleTwo() {
        assertEquals(260.0, Stats.median(new double[] {100, 400, 120, 500}), 0);
    }

    @Test
    void theMedianOfNothingIsNaN() {
        assertTrue(Double.isNaN(Stats.median(new double[0])));
    }

    @Test
    void neitherSummaryChangesItsArguments() {
        double[] a = {3, 1, 2};
        double[] b = {6, 2, 1};
        Stats.median(a);
        Stats.pairedRatio(a, b);
        assertArrayEquals(new double[] {3, 1, 2}, a, 0);
        assertArrayEquals(new double[] {6, 2, 1}, b, 0);
    }

    @Test
    void aRatioIsTakenWithinEachRound() {
        // contender 2x the floor in every round, whatever the round's host: the ratio is 2 exactly
        double[] floor = {100, 400, 120, 500};
        double[] other = {200, 800, 240, 1000};
        assertEquals(2.0, Stats.pairedRatio(other, floor), 1e-12);
    }

    @Test
    void aPairedRatioIsTheMedianOfTheRoundsRatiosNotTheRatioOfMedians() {
        double[] a = {1, 10, 100};
        double[] b = {2, 1, 50};
        // rounds: 0.5, 10, 2 -> 2; the ratio of the medians would be 10 / 2 = 5
        assertEquals(2.0, Stats.pairedRatio(a, b), 1e-12);
    }

    @Test
    void aRoundOnlyOneSideHasIsDropped() {
        assertEquals(2.0, Stats.pairedRatio(new double[] {2, 4, 1000}, new double[] {1, 2}), 1e-12);
        assertTrue(Double.isNaN(Stats.pairedRatio(new double[] {1}, new double[0])));
    }
}
