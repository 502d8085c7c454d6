package dev.verbatim.jcstress.broken;

import dev.verbatim.jcstress.Window;
import dev.verbatim.transport.internal.AreaDescriptor;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

import java.lang.invoke.VarHandle;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * A deliberately broken ordering, to show that these tests catch one: the parked-word handshake of
 * docs/transport.md §3.4 with both full fences taken out, the parked word set with a release store and read with an
 * acquire load (the mistake of thinking release and acquire enough for a handshake). The record half is the real
 * code: the sender publishes with {@code AreaWriter.publishRelease}, the receiver looks with
 * {@code AreaReader.hasDataAcquire}. The correct handshake, with the real sender, is
 * {@code dev.verbatim.jcstress.ParkedWordHandshake}. The quick run ({@code JcstressQuickTest}) requires this test
 * to report its forbidden outcome; the full run ({@code ./verbatim jcstress}) leaves the {@code broken} package out.
 *
 * <p>Why it shows on x86, whose memory model (TSO) keeps stores in order and loads in order: a store waits in the
 * core's store buffer while later loads go ahead, so a store followed by a load of another address is the one
 * reordering the hardware makes (a release store is a plain {@code mov} on x86 and an acquire load a plain load; the
 * full fence is the locked instruction that drains the buffer). Each side's store sits in its store buffer while its
 * load reads the other's word from memory, still 0: the receiver sees no message, the sender no parked receiver,
 * and the receiver would sleep on a message nobody wakes it for. On aarch64 the weaker model allows the same. The
 * window is the time a store waits for its cache line, tens of nanoseconds, which jcstress's aligned runs hit
 * within a fraction of a second.
 *
 * <p>Results: r1 1 if the receiver saw the message; r2 1 if the sender saw the parked word (it would wake the
 * receiver).
 */
@JCStressTest
@Description("BROKEN ON PURPOSE: a parked-word handshake without its full fences loses wake-ups")
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "the receiver saw the message and would not sleep")
@Outcome(id = "1, 1", expect = ACCEPTABLE_INTERESTING, desc = "the halves met: each saw the other's store")
@Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "the receiver would sleep; the sender saw the word and would wake it")
@Outcome(id = "0, 0", expect = FORBIDDEN, desc = "a lost wake-up (expected here: the store-load reordering the fences prevent)")
public class UnfencedParkedWordLosesAWakeup {

    private static final VarHandle INT = java.lang.foreign.ValueLayout.JAVA_INT.varHandle();

    @State
    public static class S {
        final Window window = new Window();
    }

    @Actor
    public void receiver(S s, II_Result r) {
        INT.setRelease(s.window.memory, AreaDescriptor.RECEIVER_PARKED_OFFSET, 1); // broken: no full fence after
        r.r1 = s.window.reader.hasDataAcquire() ? 1 : 0;
    }

    @Actor
    public void sender(S s, II_Result r) {
        s.window.writer.publishRelease(AreaDescriptor.TYPE_DATA, 0); // broken: no full fence after
        r.r2 = (int) INT.getAcquire(s.window.memory, AreaDescriptor.RECEIVER_PARKED_OFFSET);
    }
}
