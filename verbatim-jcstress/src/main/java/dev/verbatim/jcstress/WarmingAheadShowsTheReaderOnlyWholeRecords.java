package dev.verbatim.jcstress;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Warming ahead beside a reading peer (docs/transport.md §3.3): after a large message the writer zeroes the lines
 * ahead of the next header slot (not that slot's line, which the reader may be spinning on) while the reader reads
 * what was published; the next messages go into the warmed lines, and the writer skips zeroing a next header slot
 * that warming made known zero. The writer is the real {@code AreaWriter} ({@code publishRelease},
 * {@code warm}), the reader the real {@code AreaReader}, in an area full of an older use's bytes: a large message,
 * a warm of 4 KiB, a small one and another large one. Whatever the interleaving, the reader sees each message whole
 * and in order, then an empty slot: never an old word as a header (warming or the skipped zeroing left one behind)
 * and never a payload the warming zeroed.
 *
 * <p>Results: r1 the messages the reader read whole, in order, in four looks (0 to 3); r2 0 if nothing else was
 * seen, else what went wrong: 1 a message out of order, 2 a header the reader refused, 3 a payload not written by
 * its writer.
 */
@JCStressTest
@Description("Warming ahead never shows a reader an old header or a zeroed payload")
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "the reader found nothing yet")
@Outcome(id = {"1, 0", "2, 0"}, expect = ACCEPTABLE, desc = "the reader read the first messages whole, the rest not yet")
@Outcome(id = "3, 0", expect = ACCEPTABLE_INTERESTING, desc = "the reader read all three whole, beside the warming")
@Outcome(expect = FORBIDDEN, desc = "an old word taken for a header, a zeroed or stale payload, or messages out of order")
public class WarmingAheadShowsTheReaderOnlyWholeRecords {

    /** Large messages (1 KiB: a sender warms after them) and a small one between. */
    private static final long FIRST = 4;
    private static final long SMALL = 2;
    private static final long LAST = 5;

    @State
    public static class S {
        final Window window = new Window();
    }

    @Actor
    public void writer(S s) {
        s.window.publish(FIRST);
        s.window.writer.warm(4096, () -> false);
        s.window.publish(SMALL);
        s.window.publish(LAST);
    }

    @Actor
    public void reader(S s, II_Result r) {
        long[] expected = {FIRST, SMALL, LAST};
        int read = 0;
        int wrong = 0;
        for (int look = 0; look < 4 && wrong == 0; look++) {
            long v = s.window.read();
            if (v == Window.NONE) {
                continue;
            }
            if (v == Window.REFUSED) {
                wrong = 2;
            } else if (v == Window.STALE) {
                wrong = 3;
            } else if (read < expected.length && v == expected[read]) {
                read++;
            } else {
                wrong = 1;
            }
        }
        r.r1 = read;
        r.r2 = wrong;
    }
}
