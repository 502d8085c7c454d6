package dev.verbatim.bench.harness;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A turn of timed calls: warm-up unrecorded, then every call recorded and checked, sequence numbers fresh for each call. */
class CallLoopTest {

    @Test
    void aTurnWarmsUpThenRecordsEveryCallEachWithAFreshSequenceNumberChecked() throws Exception {
        List<Long> called = new ArrayList<>();
        List<Long> checked = new ArrayList<>();
        long[] seq = {41};
        LatencyHistogram h = new LatencyHistogram();
        h.record(123); // from an earlier turn: forgotten
        CallLoop.Turn t = new CallLoop(0, 5, 1000, 0).run(s -> {
            called.add(s);
            return 2 * s;
        }, (s, r) -> {
            assertEquals(2 * s, r);
            checked.add(s);
        }, seq, h);
        assertEquals(5, t.warmCalls(), "no warm-up time asked: the least calls");
        assertEquals(1, h.count(), "no measuring time asked: one call timed");
        assertEquals(List.of(42L, 43L, 44L, 45L, 46L, 47L), called);
        assertEquals(called, checked, "every result checked, warm-up included");
        assertEquals(47, seq[0]);
    }

    @Test
    void aWrongResultEndsTheTurn() {
        CallLoop loop = new CallLoop(0, 1, 0, 0);
        assertThrows(IllegalStateException.class, () -> loop.run(s -> 0, (s, r) -> {
            throw new IllegalStateException("call " + s + " returned " + r);
        }, new long[1], new LatencyHistogram()));
    }

    /** What a call sets up for one turn is set up before its first call and ended after its last, even a failed one. */
    @Test
    void aCallsTurnScopedSideBeginsBeforeTheFirstCallAndEndsAfterTheLastEvenOnFailure() {
        List<String> events = new ArrayList<>();
        CallLoop.Call call = new CallLoop.Call() {
            @Override
            public long call(long seq) {
                events.add("call");
                return seq == 3 ? -1 : 0;
            }

            @Override
            public void beginTurn() {
                events.add("begin");
            }

            @Override
            public void endTurn() {
                events.add("end");
            }
        };
        assertThrows(IllegalStateException.class, () -> new CallLoop(0, 5, 1000, 0).run(call, (s, r) -> {
            if (r != 0) {
                throw new IllegalStateException("call " + s + " returned " + r);
            }
        }, new long[1], new LatencyHistogram()));
        assertEquals(List.of("begin", "call", "call", "call", "end"), events);
    }

    @Test
    void aTurnsFourWordsParseBack() {
        CallLoop l = new CallLoop(15, 5000, 150, 40);
        String[] f = ("TURN x " + l.words()).split(" ");
        assertEquals(l, CallLoop.parse(f, 2));
        assertTrue(l.words().matches("15 5000 150 40"));
    }
}
