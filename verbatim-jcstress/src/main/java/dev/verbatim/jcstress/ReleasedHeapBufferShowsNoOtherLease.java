package dev.verbatim.jcstress;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJ_Result;

import dev.verbatim.buffer.BufferPool;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The release-versus-use race ({@link PoolRace}) on a pooled heap buffer, a {@code long[]}: every access counts itself in and out of the lease's state word, and a release waits for the count to drain before the array is reused.
 *
 * <p>Results: r1 what the user's read found ({@code 4369} = 0x1111 the buffer's own value, {@code -1} it threw);
 * r2 1 if the user's write went in, 0 if it threw; r3 what the next lease read first ({@code 0}, cleared: never the
 * user's late write {@code 13107} = 0x3333, nor the old value).
 */
@JCStressTest
@Description("A heap buffer released during an access never lets the access see or touch the next lease")
@Outcome(id = "4369, 1, 0", expect = ACCEPTABLE, desc = "both accesses before the release")
@Outcome(id = "4369, 0, 0", expect = ACCEPTABLE_INTERESTING, desc = "the release fell between the read and the write")
@Outcome(id = "-1, 0, 0", expect = ACCEPTABLE, desc = "both accesses after the release threw")
@Outcome(expect = FORBIDDEN, desc = "an access saw or wrote the next lease's memory, or the lease came back to life")
public class ReleasedHeapBufferShowsNoOtherLease {

    @State
    public static class S {
        final PoolRace race = new PoolRace(BufferPool.heap(64, 1));
    }

    @Actor
    public void user(S s, JJJ_Result r) {
        r.r1 = s.race.read();
        r.r2 = s.race.write();
    }

    @Actor
    public void releaser(S s, JJJ_Result r) {
        r.r3 = s.race.releaseAndReuse();
    }

    @Arbiter
    public void close(S s) {
        s.race.close();
    }
}
