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
 * {@code Connection.wakeup()} ends a receiver's sleep (docs/transport.md §3.4): it sets a flag the receiver checks
 * after setting its parked word, then clears the word and wakes the futex, so that one of the two sees the other.
 * The receiver is the real {@code parkReceiver}, sleeping up to a minute (longer than jcstress waits before it
 * calls it stale); the waker the real {@code wakeup()}.
 */
@JCStressTest(Mode.Termination)
@Description("A receiver parked on its parked word wakes for Connection.wakeup()")
@Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "the receiver woke (or saw the flag and never slept)")
@Outcome(id = "STALE", expect = FORBIDDEN, desc = "a lost wake-up: wakeup() returned and the receiver sleeps on")
public class ParkedReceiverWakesForWakeup {

    @State
    public static class S {
        final ShmPair pair = new ShmPair(ShmPair.SMALL_WINDOW);
    }

    @Actor
    public void receiver(S s) {
        s.pair.parkReceiver(60_000_000_000L);
    }

    @Signal
    public void waker(S s) {
        s.pair.receiver.wakeup();
    }
}
