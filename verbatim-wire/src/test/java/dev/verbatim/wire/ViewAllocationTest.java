package dev.verbatim.wire;

import java.lang.foreign.MemorySegment;
import java.util.function.LongSupplier;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** A primitive field read through a view allocates nothing (once compiled): it is a load from the segment. */
class ViewAllocationTest {
    public record Sample(int a, long b, double c, boolean d, char e) {}
    public interface SampleView { int a(); long b(); double c(); boolean d(); char e(); }

    @Test
    void primitiveAccessorsAllocateNothing() {
        LongSupplier allocated = allocationCounter();
        assumeTrue(allocated != null, "per-thread allocation counters (com.sun.management)");
        byte[] bytes = new WireWriter().toByteArray(new Sample(1, 2, 3.5, true, 'x'));
        SampleView v = new WireReader().validate(MemorySegment.ofArray(bytes)).view(SampleView.class);
        long sink = 0;
        for (int i = 0; i < 2_000_000; i++) sink += read(v); // let the JIT compile the accessors
        int calls = 1_000_000;
        long before = allocated.getAsLong();
        for (int i = 0; i < calls; i++) sink += read(v);
        long after = allocated.getAsLong();
        assertEquals(3_000_000L * 123, sink); // 1 + 2 + 3 + 1 + 'x' (120) - 4 per round
        // The counter itself may allocate a little; one byte per call would be a million bytes.
        assertTrue(after - before < 64 * 1024, (after - before) + " bytes allocated by " + calls + " rounds of 5 reads");
    }

    public record Stamped(java.time.Instant at, java.util.UUID id, java.time.LocalDate day) {}
    public interface StampedView { java.time.Instant at(); java.util.UUID id(); java.time.LocalDate day(); }

    /** A value type read through a view allocates the value and nothing else (no materializer tables per read). */
    @Test
    void valueTypeAccessorsAllocateOnlyTheirValues() {
        LongSupplier allocated = allocationCounter();
        assumeTrue(allocated != null, "per-thread allocation counters (com.sun.management)");
        byte[] bytes = new WireWriter().toByteArray(new Stamped(java.time.Instant.ofEpochSecond(5, 6), new java.util.UUID(7, 8),
                java.time.LocalDate.of(2026, 11, 25)));
        StampedView v = new WireReader().validate(MemorySegment.ofArray(bytes)).view(StampedView.class);
        long sink = 0;
        for (int i = 0; i < 200_000; i++) sink += v.at().getNano() + v.id().getLeastSignificantBits() + v.day().getDayOfMonth();
        int calls = 100_000;
        long before = allocated.getAsLong();
        for (int i = 0; i < calls; i++) sink += v.at().getNano() + v.id().getLeastSignificantBits() + v.day().getDayOfMonth();
        long perRound = (allocated.getAsLong() - before) / calls;
        assertEquals(39L * 300_000, sink);
        // an Instant (24 bytes), a UUID (24) and a LocalDate (24): a materializer per read added some 300 bytes each
        assertTrue(perRound <= 96, perRound + " bytes allocated per round of three value reads");
    }

    private static long read(SampleView v) {
        return v.a() + v.b() + (long) v.c() + (v.d() ? 1 : 0) + v.e() - 4;
    }

    static LongSupplier allocationCounter() {
        try {
            Object mx = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
            Class<?> ext = Class.forName("com.sun.management.ThreadMXBean");
            if (!ext.isInstance(mx) || !(boolean) ext.getMethod("isThreadAllocatedMemoryEnabled").invoke(mx)) return null;
            java.lang.reflect.Method m = ext.getMethod("getCurrentThreadAllocatedBytes");
            return () -> {
                try {
                    return (long) m.invoke(mx);
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException(e);
                }
            };
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }
}
