package dev.verbatim.jcstress;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Mode;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.Signal;
import org.openjdk.jcstress.annotations.State;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * A back-pressured sender sleeps on its parked word until the receiver frees an area (docs/transport.md §3.4): the
 * sender is the real {@code parkSender} (the word set, a full fence, a look for a free area, then {@code futex}
 * wait, here for up to a minute, longer than jcstress waits before it calls it stale), the receiver the real
 * {@code Delivery.release()} that frees the last pinned area ({@code FREE} with release, a full fence, a look at the
 * sender's parked word, the swap and the wake). The connection is a {@link FullWindow}: every area is taken.
 */
@JCStressTest(Mode.Termination)
@Description("A sender parked for lack of space wakes when the receiver frees an area")
@Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "the sender woke (or saw the free area and never slept)")
@Outcome(id = "STALE", expect = FORBIDDEN, desc = "a lost wake-up: an area is free and the sender sleeps on")
public class ParkedSenderWakesForAFreedArea {

    @State
    public static class S {
        final FullWindow full = new FullWindow();
    }

    @Actor
    public void sender(S s) {
        s.full.pair.parkSender(60_000_000_000L);
    }

    @Signal
    public void receiver(S s) {
        s.full.held.release();
    }
}
