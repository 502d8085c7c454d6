package dev.verbatim.jcstress;

import dev.verbatim.transport.Claim;
import dev.verbatim.transport.internal.AreaDescriptor;
import dev.verbatim.transport.internal.AreaReader;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The parked-word handshake at the instant it races (docs/transport.md §3.4), the twin of
 * {@link dev.verbatim.jcstress.broken.UnfencedParkedWordLosesAWakeup}. It is a Dekker handshake: the receiver
 * stores its parked word then loads the header at its position, the sender stores the header then loads the parked
 * word; each side's full fence keeps its load after its store, so at least one side sees the other's store: the
 * receiver sees the message, or the sender sees the parked word and wakes it.
 *
 * <p>The sender is the real {@code ShmConnection.publish} (the commit of a claim opened before the race). The
 * receiver's half is the first three steps of {@code ShmConnection.parkReceiver} (set the word, full fence, the real {@code AreaReader.hasDataAcquire}
 * look) without the sleep that follows, which a test whose actors must return cannot take: the real
 * {@code parkReceiver}, sleep included, is {@link ParkedReceiverWakesForAMessage}, where jcstress calls the signal
 * only once the receiver runs and so rarely hits this instant.
 *
 * <p>What it does not catch: jcstress rarely runs the two halves at the same instant here (the outcome {@code 1, 0},
 * where each saw the other, is a handful in tens of thousands: the sender's commit, with its futex wake, is far
 * longer than the receiver's half, and each actor goes through a stride of states on its own), so with the sender's
 * fence taken out of {@code ShmConnection.publish} it still passed a one-second run. The broken twin, whose halves
 * are equally short, shows that the harness sees this reordering when the halves do meet.
 *
 * <p>Results: r1 1 if the receiver saw the message (it would not sleep); r2 the parked word after both (1: nobody
 * cleared it, so nobody woke the receiver).
 */
@JCStressTest
@Description("Of a receiver going to sleep and a sender publishing, one sees the other")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the receiver saw the message and would not sleep")
@Outcome(id = "1, 0", expect = ACCEPTABLE_INTERESTING, desc = "the halves met: each saw the other's store")
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "the receiver would sleep; the sender saw the word and woke it")
@Outcome(id = "0, 1", expect = FORBIDDEN, desc = "a lost wake-up: the receiver sleeps and the sender did not wake it")
public class ParkedWordHandshake {

    @State
    public static class S {
        final ShmPair pair = new ShmPair(ShmPair.SMALL_WINDOW);
        final AreaReader reader = pair.receiverReader();
        /** The message, claimed and written before the race: the sender's actor is only the commit. */
        final Claim message = pair.sender.claim(8);

        public S() {
            message.segment().set(ValueLayout.JAVA_LONG, 0, 1L);
        }
    }

    @Actor
    public void receiver(S s, II_Result r) {
        ShmPair.INT.setVolatile(s.pair.window, AreaDescriptor.RECEIVER_PARKED_OFFSET, 1);
        VarHandle.fullFence();
        r.r1 = s.reader.hasDataAcquire() ? 1 : 0;
    }

    @Actor
    public void sender(S s) {
        s.message.commit();
    }

    @Arbiter
    public void woken(S s, II_Result r) {
        r.r2 = s.pair.receiverParked();
        s.pair.free();
    }
}
