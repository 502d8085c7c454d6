package dev.verbatim.jcstress;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The shm record protocol (docs/transport.md §2): a reader that sees a record's header sees its payload, and the
 * word after the last record is zero. The writer is the transport's {@code AreaWriter} (payload, the next header
 * slot zeroed unless known zero, the header with a release store, then zeroing ahead), the reader its
 * {@code AreaReader} (the header with an acquire load, then the payload); the area holds an older use's bytes
 * everywhere after its first header slot, so a payload read before its header was published, or a next slot left
 * unzeroed, shows as old bytes.
 *
 * <p>Results: what each of the reader's two looks found: {@code -1} nothing yet, {@code 1} or {@code 2} that
 * message, whole; {@code -2} a header the reader refused, {@code -3} a payload not (all) written by its writer.
 */
@JCStressTest
@Description("A reader that sees a record's header sees its payload; the slot after the last record reads as empty")
@Outcome(id = "-1, -1", expect = ACCEPTABLE, desc = "nothing published yet at either look")
@Outcome(id = "-1, 1", expect = ACCEPTABLE, desc = "the first message arrived between the looks")
@Outcome(id = "1, -1", expect = ACCEPTABLE, desc = "the first message, the second not yet")
@Outcome(id = "1, 2", expect = ACCEPTABLE_INTERESTING, desc = "both messages, whole: the reader kept up with the writer")
@Outcome(expect = FORBIDDEN, desc = "a stale or torn payload behind a published header, or an old word taken for a header")
public class PublishedRecordShowsItsPayload {

    @State
    public static class S {
        final Window window = new Window();
    }

    @Actor
    public void writer(S s) {
        s.window.publish(1);
        s.window.publish(2);
    }

    @Actor
    public void reader(S s, JJ_Result r) {
        r.r1 = s.window.read();
        r.r2 = s.window.read();
    }
}
