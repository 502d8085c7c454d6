package dev.verbatim.jcstress;

import dev.verbatim.transport.Delivery;
import dev.verbatim.transport.internal.AreaReader;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The receiver's half of an area-free notice (docs/transport.md §3.3): an area goes back to the sender when the
 * reader has left it (it followed the {@code NEXT} record out: the area is sealed) and every delivery in it was
 * released, by whichever of the two comes last, on its own thread. Here a retained delivery is released on one
 * thread while the reader follows the {@code NEXT} record on another, through the real {@code AreaReader}'s pin
 * count. The area must be handed back exactly once: never (the sender would wait for it for ever) or twice (the
 * sender could take it twice, and write over a message it still has to be read) is a lost or doubled notice.
 *
 * <p>Results: r1 how often the area was freed; r2 which thread freed it, 1 the releasing one, 2 the reader;
 * r3 1 if the reader's books for the area are clear afterwards.
 */
@JCStressTest
@Description("An area whose last delivery is released while the reader leaves it is freed exactly once")
@Outcome(id = "1, 1, 1", expect = ACCEPTABLE, desc = "the reader left first; the release freed the area")
@Outcome(id = "1, 2, 1", expect = ACCEPTABLE, desc = "the release came first; the reader freed the area as it left")
@Outcome(expect = FORBIDDEN, desc = "the area was never freed, freed twice, or its books are not clear")
public class AreaIsFreedExactlyOnce {

    @State
    public static class S {
        final Window window = new Window();
        final Delivery held;
        volatile Thread releaser;
        volatile Thread reading;

        public S() {
            window.publish(1);
            window.writer.nextRelease(1);
            try {
                if (window.reader.nextAcquire() != AreaReader.MESSAGE) {
                    throw new IllegalStateException("the message written single-threaded was not read");
                }
            } catch (dev.verbatim.transport.internal.ProtocolViolation e) {
                throw new IllegalStateException(e);
            }
            held = window.reader.retainCurrent();
            window.reader.afterCallback();
        }
    }

    @Actor
    public void release(S s) {
        s.releaser = Thread.currentThread();
        s.held.release();
    }

    @Actor
    public void leave(S s) {
        s.reading = Thread.currentThread();
        if (s.window.read() != Window.NONE) { // follows NEXT into the empty area 1, sealing area 0
            throw new IllegalStateException("area 1 holds nothing to read");
        }
    }

    @Arbiter
    public void books(S s, III_Result r) {
        Thread by = s.window.freedBy;
        r.r1 = s.window.freedCount;
        r.r2 = by == null ? 0 : by == s.releaser ? 1 : by == s.reading ? 2 : 3;
        r.r3 = s.window.reader.isClear(0) ? 1 : 0;
    }
}
