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
 * The parked word (docs/transport.md §3.4), end to end on the real code: a receiver in {@code parkReceiver} (its
 * parked word set, a full fence, one more look, then {@code futex} wait) and a sender that publishes a message
 * ({@code publish}: the release store, a full fence, a look at the parked word, the swap and the futex wake). The
 * receiver sleeps for up to a minute, longer than jcstress waits before it calls the receiver stale, so the one-second
 * slice that bounds a lost wake-up in {@code take} cannot hide one here: a receiver that sleeps through the
 * message is reported {@code STALE}.
 */
@JCStressTest(Mode.Termination)
@Description("A receiver parked on its parked word wakes for a message published by the sender")
@Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "the receiver woke (or never slept: the message was there)")
@Outcome(id = "STALE", expect = FORBIDDEN, desc = "a lost wake-up: the receiver sleeps with a message waiting")
public class ParkedReceiverWakesForAMessage {

    @State
    public static class S {
        final ShmPair pair = new ShmPair(ShmPair.SMALL_WINDOW);
    }

    @Actor
    public void receiver(S s) {
        s.pair.parkReceiver(60_000_000_000L);
    }

    @Signal
    public void sender(S s) {
        s.pair.send(1, 1);
    }
}
