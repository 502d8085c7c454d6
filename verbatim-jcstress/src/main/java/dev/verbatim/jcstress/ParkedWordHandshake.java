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
 * <p>Making the halves meet: jcstress starts the actors together only once per stride of states, and the sender's
 * commit (with its futex wake when it sees the word) is far longer than the receiver's half, so left to themselves the
 * halves drift apart and meet a handful of times in tens of thousands (with the sender's fence taken out, a one-second
 * run passed). So each state aligns them: the receiver raises a signal word, waits {@code offset} spin-waits and runs
 * its half; the sender waits for the signal, then commits. The offsets sweep 0 to {@link #OFFSETS} - 1 across states,
 * so some states put the receiver's store, fence and load inside the sender's publish. The signal is opaque and comes
 * before everything the handshake orders, so it hides no reordering. With {@code ShmConnection.publish}'s fence taken
 * out, 3-second runs of the default JIT showed 2 and 16 lost wake-ups in about 200,000 states each (docs/concurrency.md);
 * with it, none.
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

    /**
     * The receiver's half starts 0 to {@code OFFSETS - 1} spin-waits after its signal, one more per state in turn: a
     * sweep across the instant the sender publishes (on the 2-core EPYC VM the halves cross near 45 of them with the
     * default JIT; where other compilation modes cross was not measured: the sweep is wide for them).
     */
    static final int OFFSETS = 128;
    /** The longest the sender waits for the receiver's signal (spin-waits): a stride's stragglers do not hang. */
    static final int PATIENCE = 1 << 16;
    private static final VarHandle GO;

    static {
        try {
            GO = java.lang.invoke.MethodHandles.lookup().findVarHandle(S.class, "go", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @State
    public static class S {
        private static final java.util.concurrent.atomic.AtomicInteger NEXT = new java.util.concurrent.atomic.AtomicInteger();
        final ShmPair pair = new ShmPair(ShmPair.SMALL_WINDOW);
        final AreaReader reader = pair.receiverReader();
        /** The message, claimed and written before the race: the sender's actor is only the commit. */
        final Claim message = pair.sender.claim(8);
        /** Spin-waits between the receiver's signal and its half: 0 to {@link #OFFSETS} - 1, in turn. */
        final int offset = Math.floorMod(NEXT.getAndIncrement(), OFFSETS);
        /** The receiver's signal that it is about to start its half (opaque: it orders nothing the handshake relies on). */
        int go;

        public S() {
            message.segment().set(ValueLayout.JAVA_LONG, 0, 1L);
        }
    }

    @Actor
    public void receiver(S s, II_Result r) {
        GO.setOpaque(s, 1);
        for (int i = 0; i < s.offset; i++) {
            Thread.onSpinWait();
        }
        ShmPair.INT.setVolatile(s.pair.window, AreaDescriptor.RECEIVER_PARKED_OFFSET, 1);
        VarHandle.fullFence();
        r.r1 = s.reader.hasDataAcquire() ? 1 : 0;
    }

    @Actor
    public void sender(S s) {
        for (int i = 0; (int) GO.getOpaque(s) == 0 && i < PATIENCE; i++) {
            Thread.onSpinWait();
        }
        s.message.commit();
    }

    @Arbiter
    public void woken(S s, II_Result r) {
        r.r2 = s.pair.receiverParked();
        s.pair.free();
    }
}
