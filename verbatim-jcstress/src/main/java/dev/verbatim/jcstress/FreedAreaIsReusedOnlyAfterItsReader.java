package dev.verbatim.jcstress;

import dev.verbatim.transport.Claim;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

import java.lang.foreign.ValueLayout;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * An area-free notice orders the receiver's reads before the sender's reuse (docs/transport.md §3.3): the receiver
 * reads a retained message and releases it, which frees its area (the area state word turns {@code FREE} with a
 * release store); the sender, needing an area, reads the state words with acquire, takes that area and writes a new
 * message where the old one lay. Both sides are a real {@code ShmConnection} ({@link FullWindow}): the receiver's
 * {@code Delivery.release()}, the sender's {@code tryClaim} and {@code commit}. The receiver must read the old
 * message: a read that sees the new one means the sender wrote over a message still being read.
 *
 * <p>Results: r1 the first word the receiver read ({@code 4369} = 0x1111 the old message, {@code 8738} = 0x2222 the
 * sender's new one); r2 1 if the sender got the area, 0 if it was back-pressured (the area was not free yet).
 */
@JCStressTest
@Description("The sender writes into a freed area only after the receiver's reads of it")
@Outcome(id = "4369, 0", expect = ACCEPTABLE, desc = "the sender found no free area yet")
@Outcome(id = "4369, 1", expect = ACCEPTABLE_INTERESTING, desc = "the receiver read, then freed; the sender took the area at once")
@Outcome(expect = FORBIDDEN, desc = "the receiver read the sender's new message in place of the one it held")
public class FreedAreaIsReusedOnlyAfterItsReader {

    static final long NEW = 0x2222;

    @State
    public static class S {
        final FullWindow full = new FullWindow();
    }

    @Actor
    public void receiver(S s, JJ_Result r) {
        r.r1 = s.full.held.payload().get(ValueLayout.JAVA_LONG, 0);
        s.full.held.release();
    }

    @Actor
    public void sender(S s, JJ_Result r) {
        Claim c = s.full.pair.sender.tryClaim(8);
        if (c == null) {
            r.r2 = 0;
            return;
        }
        c.segment().set(ValueLayout.JAVA_LONG, 0, NEW);
        c.commit();
        r.r2 = 1;
    }

    @Arbiter
    public void free(S s) {
        s.full.pair.free();
    }
}
