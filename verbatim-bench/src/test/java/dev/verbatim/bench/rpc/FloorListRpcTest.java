package dev.verbatim.bench.rpc;

import dev.verbatim.bench.fixtures.Graphs;
import dev.verbatim.bench.fixtures.HandList;
import dev.verbatim.bench.fixtures.ListNode;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The hand-written list codec of {@code shm/hand}: what it writes, what it sums, and the bytes its server refuses. */
class FloorListRpcTest {
    private static final int SIZE = RpcCase.listCallBytes();

    private static MemorySegment encoded(ListNode head) {
        MemorySegment m = Arena.ofAuto().allocate(SIZE);
        HandList.encode(head, m, SIZE);
        return m;
    }

    @Test
    void aQuickRunLeavesTheListsOverTheFloorOutUnlessNamed() {
        String was = System.getProperty(dev.verbatim.bench.harness.SuiteArgs.ONLY);
        try {
            System.clearProperty(dev.verbatim.bench.harness.SuiteArgs.ONLY);
            for (String id : new String[] {"shm/hand", "shm/wire"}) {
                assertFalse(RpcBench.runs(RpcContenders.get(id), true), id);
                assertTrue(RpcBench.runs(RpcContenders.get(id), false), id);
            }
            assertTrue(RpcBench.runs(RpcContenders.get("shm/floor"), true));
            System.setProperty(dev.verbatim.bench.harness.SuiteArgs.ONLY, "shm/hand,shm/floor");
            assertTrue(RpcBench.runs(RpcContenders.get("shm/hand"), true));
            assertFalse(RpcBench.runs(RpcContenders.get("shm/wire"), true));
            assertFalse(RpcBench.runs(RpcContenders.get("shm/wire"), false));
        } finally {
            if (was == null) {
                System.clearProperty(dev.verbatim.bench.harness.SuiteArgs.ONLY);
            } else {
                System.setProperty(dev.verbatim.bench.harness.SuiteArgs.ONLY, was);
            }
        }
    }

    @Test
    void theServerSumsWhatTheClientWrote() throws IOException {
        ListNode head = Graphs.list(RpcCase.LIST);
        head.value = -12;
        assertEquals(Graphs.touch(head), HandList.walk(encoded(head), SIZE));
        assertEquals(0, HandList.walk(encoded(null), SIZE));
        assertEquals(7, HandList.walk(encoded(new ListNode(7, null)), SIZE));
    }

    @Test
    void theWireServerValidatesAndSumsAWireMessageAndRefusesADamagedOne() throws Exception {
        ListNode head = Graphs.list(RpcCase.LIST);
        MemorySegment m = Arena.ofAuto().allocate(SIZE, 64);
        int n = Math.toIntExact(new dev.verbatim.wire.WireWriter().write(head, m, 0));
        assertEquals(Graphs.touch(head), FloorListRpc.wireWalk().reply(m, n));
        assertThrows(dev.verbatim.wire.WireFormatException.class, () -> FloorListRpc.wireWalk().reply(m, n - 8));
    }

    @Test
    void theListCallsBytesHoldTheCaseList() {
        MemorySegment m = encoded(Graphs.list(RpcCase.LIST));
        assertEquals(RpcCase.LIST, m.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
        ListNode tooLong = Graphs.list((SIZE - 8) / 16 + 1);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HandList.encode(tooLong, Arena.ofAuto().allocate(SIZE), SIZE));
        assertTrue(e.getMessage().contains("does not fit"), e.getMessage());
    }

    @Test
    void anIndexOutOfRangeACycleOrACountTooLargeIsRefused() {
        MemorySegment out = encoded(Graphs.list(4));
        out.set(ValueLayout.JAVA_LONG_UNALIGNED, 8 + 16 + 8, 4); // node 1 leads to index 4 of 4
        assertTrue(assertThrows(IOException.class, () -> HandList.walk(out, SIZE)).getMessage()
                .contains("node 2 leads to index 4 of 4"));
        MemorySegment negative = encoded(Graphs.list(4));
        negative.set(ValueLayout.JAVA_LONG_UNALIGNED, 8 + 8, -2);
        assertThrows(IOException.class, () -> HandList.walk(negative, SIZE));
        MemorySegment cycle = encoded(Graphs.list(4));
        cycle.set(ValueLayout.JAVA_LONG_UNALIGNED, 8 + 3 * 16 + 8, 0); // the last node leads back to the first
        assertTrue(assertThrows(IOException.class, () -> HandList.walk(cycle, SIZE)).getMessage()
                .contains("node 4 leads to index 0 of 4"));
        MemorySegment count = encoded(Graphs.list(4));
        count.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, (SIZE - 8) / 16 + 1);
        assertThrows(IOException.class, () -> HandList.walk(count, SIZE));
    }
}
