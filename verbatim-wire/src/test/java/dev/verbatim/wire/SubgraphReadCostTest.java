package dev.verbatim.wire;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.function.ToLongFunction;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A field read through a view that materializes a subgraph (a record, a list of records, a sealed case that is a
 * record) costs what that subgraph costs, whatever else the message holds: the bytes allocated per read are the same
 * in a message of a few objects and in one padded with 200,000 more (a hostile sender's junk), not proportional to
 * the message's object count (which they were: two tables of one slot per object of the message, per read).
 */
class SubgraphReadCostTest {
    public record Small(int a, String s, Small next) {}
    public record Pad(long x) {}
    public sealed interface Shape permits Circle, Dot {}
    public record Circle(double r, Small tag) implements Shape {}
    public record Dot(int x) implements Shape {}
    public record Doc(Small small, List<Small> smalls, Shape shape, List<Pad> pad) {}
    public interface DocView { Small small(); List<Small> smalls(); Shape shape(); }

    private static final int PAD = 200_000;
    private static final int READS = 200;

    @Test
    void aRecordFieldReadThroughAViewCostsItsSubgraphNotTheMessage() {
        assertPerReadCostIndependentOfPadding(v -> v.small().a());
    }

    @Test
    void aListOfRecordsReadThroughAViewCostsItsSubgraphNotTheMessage() {
        assertPerReadCostIndependentOfPadding(v -> v.smalls().size());
    }

    @Test
    void aSealedRecordCaseReadThroughAViewCostsItsSubgraphNotTheMessage() {
        assertPerReadCostIndependentOfPadding(v -> ((Circle) v.shape()).tag().a());
    }

    @Test
    void aSubgraphReadThroughAViewKeepsItsSharingInAPaddedMessage() {
        List<Small> l = view(PAD).smalls();
        assertSame(l.get(0).next(), l.get(1), "one object of the message is one heap object");
        assertEquals(List.of(1, 2, 3), l.stream().map(Small::a).toList());
        assertEquals("two", l.get(1).s());
    }

    private static void assertPerReadCostIndependentOfPadding(ToLongFunction<DocView> read) {
        LongSupplier allocated = ViewAllocationTest.allocationCounter();
        assumeTrue(allocated != null, "per-thread allocation counters (com.sun.management)");
        DocView small = view(0);
        DocView padded = view(PAD);
        long perReadSmall = perRead(small, read, allocated);
        long perReadPadded = perRead(padded, read, allocated);
        // One slot per object of the padded message would be at least 200,000 x 8 bytes per read.
        assertTrue(perReadPadded <= 2 * perReadSmall + 512,
                "per read: " + perReadPadded + " bytes in the padded message, " + perReadSmall + " in the small one");
    }

    private static DocView view(int pad) {
        Small s = new Small(1, "one", new Small(2, "two", null));
        List<Pad> pads = new ArrayList<>(pad);
        for (int i = 0; i < pad; i++) pads.add(new Pad(i));
        Doc d = new Doc(s, List.of(s, s.next(), new Small(3, "three", null)), new Circle(2.0, s), pads);
        byte[] b = new WireWriter().toByteArray(d);
        Message m = new WireReader().validate(MemorySegment.ofArray(b));
        assertTrue(m.objectCount() >= pad);
        return m.view(DocView.class);
    }

    private static long perRead(DocView v, ToLongFunction<DocView> read, LongSupplier allocated) {
        long sink = 0;
        for (int i = 0; i < READS; i++) sink += read.applyAsLong(v); // generated code made, classes loaded
        long before = allocated.getAsLong();
        for (int i = 0; i < READS; i++) sink += read.applyAsLong(v);
        long after = allocated.getAsLong();
        assertTrue(sink > 0);
        return (after - before) / READS;
    }
}
