package dev.verbatim.transport.internal;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@link AreaWriter#warm}: what it zeroes, what it leaves alone, and that it stops when told. */
class AreaWriterWarmTest {
    private static final int AREA = 64 * 1024;
    private static final byte GARBAGE = 0x5A;

    /** A writer over a window of garbage that has published one 100-byte record in area 0. */
    private static AreaWriter afterOneRecord(MemorySegment window) {
        window.fill(GARBAGE);
        AreaWriter w = new AreaWriter(window, 2, AREA);
        w.payloadOffset(100);
        w.publishRelease(AreaDescriptor.TYPE_DATA, 100);
        return w;
    }

    private static long next(AreaWriter w) {
        return AreaDescriptor.areaBase(0, AREA) + w.placement.position();
    }

    @Test
    void warmZeroesTheLinesAfterTheNextHeaderSlotsLineAndNothingElse() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment window = arena.allocate(AreaDescriptor.windowSize(2, AREA), 4096);
            AreaWriter w = afterOneRecord(window);
            long next = next(w); // the next record's header slot: the receiver spins on its line
            assertEquals(0L, window.get(ValueLayout.JAVA_LONG, next), "the next header slot is zero");
            long from = (next + 8 + 63) & ~63L;
            w.warm(4096, () -> false);
            for (long at = next + 8; at < from; at++) {
                assertEquals(GARBAGE, window.get(ValueLayout.JAVA_BYTE, at), "the header slot's line is left alone at " + at);
            }
            for (long at = from; at < from + 4096; at++) {
                assertEquals(0, window.get(ValueLayout.JAVA_BYTE, at), "warmed at " + at);
            }
            assertEquals(GARBAGE, window.get(ValueLayout.JAVA_BYTE, from + 4096), "no more than asked");
        }
    }

    @Test
    void warmStopsAfterTheChunkDuringWhichItWasToldTo() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment window = arena.allocate(AreaDescriptor.windowSize(2, AREA), 4096);
            AreaWriter w = afterOneRecord(window);
            long from = (next(w) + 8 + 63) & ~63L;
            int[] looks = {0};
            w.warm(8192, () -> ++looks[0] == 2); // an answer arrives during the second chunk
            assertEquals(2, looks[0]);
            assertEquals(0, window.get(ValueLayout.JAVA_BYTE, from + 2L * AreaWriter.WARM_CHUNK - 1));
            assertEquals(GARBAGE, window.get(ValueLayout.JAVA_BYTE, from + 2L * AreaWriter.WARM_CHUNK), "stopped");
        }
    }

    @Test
    void afterWarmingEveryNextHeaderSlotIsStillZeroedWhereItWasNotWarmed() {
        // The invariant the receiver relies on: after each publish the word at the next record's slot is zero. Warming
        // makes a range known zero; a record of any size published after it, claimed exactly or longer than it commits,
        // must still find its next slot zero, inside the warmed range or not (the header slot's line was not warmed).
        for (int size = 0; size <= 6000; size += size < 200 ? 8 : 997) {
            for (int extra : new int[] {0, 8, 300}) {
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment window = arena.allocate(AreaDescriptor.windowSize(2, AREA), 4096);
                    AreaWriter w = afterOneRecord(window);
                    w.warm(2048, () -> false);
                    long at = w.payloadOffset(size + extra);
                    window.asSlice(at, size + extra).fill(GARBAGE); // what a claim wrote, beyond its message too
                    w.publishRelease(AreaDescriptor.TYPE_DATA, size);
                    assertEquals(0L, window.get(ValueLayout.JAVA_LONG, next(w)),
                            "the next slot after a " + size + "-byte record (claimed " + (size + extra) + ")");
                }
            }
        }
    }

    @Test
    void warmStaysInsideTheAreaAndItsTailReserve() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment window = arena.allocate(AreaDescriptor.windowSize(2, AREA), 4096);
            AreaWriter w = afterOneRecord(window);
            w.warm(1 << 20, () -> false);
            long areaEnd = AreaDescriptor.areaBase(0, AREA) + AREA;
            long reserveStart = areaEnd - AreaDescriptor.TAIL_RESERVE;
            assertEquals(0, window.get(ValueLayout.JAVA_BYTE, reserveStart - 1));
            for (long at = reserveStart; at < areaEnd + 64; at++) {
                assertEquals(GARBAGE, window.get(ValueLayout.JAVA_BYTE, at), "beyond the area's usable part at " + at);
            }
        }
    }
}
