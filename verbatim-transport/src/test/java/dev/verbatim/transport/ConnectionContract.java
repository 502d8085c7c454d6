package dev.verbatim.transport;

import dev.verbatim.transport.TransportException.Reason;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The behaviour every {@link Connection} must have, run against each transport (DESIGN §9: one
 * contract, every implementation). Tests that cross a process boundary start a {@link TransportPeer}.
 */
@Timeout(60)
abstract class ConnectionContract {
    static final Duration WAIT = Duration.ofSeconds(20);
    /** Small windows (2 x 64 KiB) on top of {@link #defaults()}. */
    final ConnectionOptions SMALL = defaults().withAreas(2, 64 * 1024);

    private final List<AutoCloseable> toClose = new ArrayList<>();

    /** A fresh listening address for this transport ({@code shm:UNIQUE} or {@code tcp://:0}). */
    abstract String listenAddress();

    /** The options every test starts from: {@link ConnectionOptions#DEFAULT}, with TLS for the TLS run. */
    ConnectionOptions defaults() {
        return ConnectionOptions.DEFAULT;
    }

    /** Opens a raw connection to the listener that never says anything. */
    abstract AutoCloseable silentConnector(Listener l) throws Exception;

    @AfterEach
    void closeAll() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        toClose.clear();
    }

    <T extends AutoCloseable> T closing(T c) {
        toClose.add(c);
        return c;
    }

    Listener listen(ConnectionOptions options) {
        return closing(Transport.listen(listenAddress(), options));
    }

    /** [accepted, connector]. */
    Connection[] pair(ConnectionOptions acceptorOptions, ConnectionOptions connectorOptions) throws Exception {
        Listener l = listen(acceptorOptions);
        CompletableFuture<Connection> connector = CompletableFuture.supplyAsync(
                () -> Transport.connect(l.address(), connectorOptions));
        Connection accepted = l.accept(WAIT);
        assertNotNull(accepted, "no connection accepted");
        return new Connection[] {closing(accepted), closing(connector.get())};
    }

    Connection[] pair() throws Exception {
        return pair(defaults(), defaults());
    }

    static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed * 31 + i);
        }
        return b;
    }

    // ------------------------------------------------------------------ both levels, both directions

    @Test
    void copyingApiDeliversBytesBothWays() throws Exception {
        Connection[] c = pair();
        for (int i = 0; i < 100; i++) {
            byte[] m = bytes(i * 13, i);
            c[1].send(m, 0, m.length);
            assertArrayEquals(m, c[0].receive(WAIT), "message " + i);
            c[0].send(m, 0, m.length);
            assertArrayEquals(m, c[1].receive(WAIT), "reply " + i);
        }
        assertNull(c[0].receive(Duration.ofMillis(50)), "nothing more was sent");
        assertEquals(100, c[0].stats().messagesReceived());
        assertEquals(100, c[0].stats().messagesSent());
    }

    @Test
    void bufferApiWritesInPlaceAndDeliversInPlace() throws Exception {
        Connection[] c = pair();
        Claim claim = c[1].claim(16);
        assertEquals(16, claim.segment().byteSize());
        claim.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 42L);
        claim.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, 8, -7L);
        assertNull(c[0].poll(), "nothing is visible before commit");
        claim.commit();
        Delivery d = c[0].take(WAIT);
        assertNotNull(d);
        assertEquals(16, d.length());
        assertEquals(42L, d.payload().get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
        assertEquals(-7L, d.payload().get(ValueLayout.JAVA_LONG_UNALIGNED, 8));
        assertTrue(d.payload().isReadOnly(), "received bytes are read-only");
        d.release();
        assertThrows(IllegalStateException.class, d::payload, "a released delivery is unusable");
        assertThrows(IllegalStateException.class, d::release, "double release is a bug");
    }

    @Test
    void abortedClaimSendsNothing() throws Exception {
        Connection[] c = pair();
        Claim claim = c[1].claim(100);
        claim.abort();
        assertThrows(IllegalStateException.class, claim::commit);
        c[1].send(new byte[] {9}, 0, 1);
        Delivery d = c[0].take(WAIT);
        assertEquals(1, d.length(), "the aborted claim was not delivered");
        d.release();
    }

    @Test
    void aClaimIsOpenUntilItIsCommittedOrAborted() throws Exception {
        Connection[] c = pair();
        Claim claim = c[1].claim(16);
        assertTrue(claim.isOpen());
        claim.abort();
        assertFalse(claim.isOpen(), "aborted");
        claim = c[1].claim(16);
        assertTrue(claim.isOpen(), "claimed again");
        claim.commit();
        assertFalse(claim.isOpen(), "committed");
        c[0].take(WAIT).release();
    }

    @Test
    void aClaimCanCommitLessThanItClaimed() throws Exception {
        Connection[] c = pair();
        for (int round = 0; round < 3000; round++) { // enough to cross area boundaries with the slack
            int claimed = 64 + (round % 5000);
            int used = round % 3 == 0 ? 0 : 1 + (round * 7919) % claimed;
            Claim claim = c[1].claim(claimed);
            MemorySegment s = claim.segment();
            for (int i = 0; i < used; i++) {
                s.set(ValueLayout.JAVA_BYTE, i, (byte) (round + i));
            }
            for (int i = used; i < claimed; i++) {
                s.set(ValueLayout.JAVA_BYTE, i, (byte) 0x5A); // never delivered
            }
            if (round == 0) {
                assertThrows(IllegalArgumentException.class, () -> claim.commit(claimed + 1));
                assertThrows(IllegalArgumentException.class, () -> claim.commit(-1));
            }
            claim.commit(used);
            assertThrows(IllegalStateException.class, () -> claim.commit(0));
            byte[] got = c[0].receive(WAIT);
            assertEquals(used, got.length, "exactly the committed bytes arrive");
            for (int i = 0; i < used; i++) {
                if (got[i] != (byte) (round + i)) {
                    throw new AssertionError("round " + round + " byte " + i);
                }
            }
        }
    }

    @Test
    void whatAClaimWroteBeyondItsMessageIsNeverTakenForARecord() throws Exception {
        // claims filled with words that are valid record headers (each an 8-byte message), then aborted
        // or cut short, followed by small messages: a stale word at a record's place would arrive as an
        // extra message (the writer zeroes ahead and must not trust what a claim may have written)
        Connection[] c = pair();
        long fake = (1L << 32) | 16; // type DATA, frame length 16
        long seq = 0;
        for (int round = 0; round < 3000; round++) { // enough to cross area boundaries
            int claimed = 8 + 8 * ((round * 37) % 90);
            Claim claim = c[1].claim(claimed);
            MemorySegment s = claim.segment();
            for (int i = 0; i + 8 <= claimed; i += 8) {
                s.set(ValueLayout.JAVA_LONG_UNALIGNED, i, fake);
            }
            long expected = -1;
            switch (round % 3) {
                case 0 -> claim.abort();
                case 1 -> claim.commit(0);
                default -> {
                    expected = ++seq;
                    s.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, expected);
                    claim.commit(8);
                }
            }
            if (round % 3 != 0) {
                Delivery d = c[0].take(WAIT);
                assertNotNull(d, "round " + round);
                assertEquals(expected < 0 ? 0 : 8, d.length(), "round " + round);
                if (expected >= 0) {
                    assertEquals(expected, d.payload().get(ValueLayout.JAVA_LONG_UNALIGNED, 0), "round " + round);
                }
                d.release();
            }
            for (int k = 0; k <= round % 3; k++) {
                long v = ++seq;
                Claim small = c[1].claim(8);
                small.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, v);
                small.commit();
                Delivery d = c[0].take(WAIT);
                assertNotNull(d, "round " + round + " message " + k);
                assertEquals(8, d.length(), "round " + round + " message " + k);
                assertEquals(v, d.payload().get(ValueLayout.JAVA_LONG_UNALIGNED, 0), "round " + round + " message " + k);
                d.release();
            }
            if (round % 500 == 0) {
                assertNull(c[0].poll(), "round " + round + ": nothing more");
            }
        }
        assertNull(c[0].poll(), "no stale record was delivered");
    }

    @Test
    void oneClaimAtATime() throws Exception {
        Connection[] c = pair();
        c[1].claim(8);
        assertThrows(IllegalStateException.class, () -> c[1].claim(8));
    }

    @Test
    void zeroLengthMessagesAreMessages() throws Exception {
        Connection[] c = pair();
        c[1].send(new byte[0], 0, 0);
        c[1].send(new byte[] {1}, 0, 1);
        assertArrayEquals(new byte[0], c[0].receive(WAIT));
        assertArrayEquals(new byte[] {1}, c[0].receive(WAIT));
    }

    @Test
    void handlerThatStopsEndsThePollAfterItsDeliveryAndTheRestWaitForTheNextPoll() throws Exception {
        Connection[] c = pair();
        for (int i = 0; i < 6; i++) {
            c[1].send(bytes(10, i), 0, 10);
        }
        List<Byte> seen = new ArrayList<>();
        List<Integer> counts = new ArrayList<>();
        boolean[] stopped = new boolean[1];
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (seen.size() < 6 && System.nanoTime() < deadline) {
            stopped[0] = false;
            int n = c[0].poll(d -> {
                assertFalse(stopped[0], "a poll never hands over another message after a STOP");
                seen.add(d.payload().get(ValueLayout.JAVA_BYTE, 0));
                stopped[0] = seen.size() % 2 == 0;
                return stopped[0] ? DeliveryHandler.Action.STOP : DeliveryHandler.Action.CONTINUE;
            }, 10);
            if (n > 0) {
                counts.add(n);
            }
        }
        assertEquals(6, seen.size());
        for (int i = 0; i < 6; i++) {
            assertEquals(bytes(10, i)[0], seen.get(i), "message " + i + " in order, none lost or repeated");
        }
        assertEquals(6, counts.stream().mapToInt(Integer::intValue).sum(), "each poll counts what it handed over, the"
                + " stopping delivery included");
        assertTrue(counts.size() >= 3, "at least one poll per stop: " + counts);
        assertNull(c[0].poll(), "nothing more");
    }

    @Test
    void handlerGetsAFlyweightValidOnlyDuringTheCallback() throws Exception {
        Connection[] c = pair();
        for (int i = 0; i < 5; i++) {
            c[1].send(bytes(10, i), 0, 10);
        }
        AtomicReference<Delivery> leaked = new AtomicReference<>();
        List<Delivery> kept = new ArrayList<>();
        AtomicInteger seen = new AtomicInteger();
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (seen.get() < 5 && System.nanoTime() < deadline) {
            c[0].poll(d -> {
                int i = seen.getAndIncrement();
                assertArrayEquals(bytes(10, i), d.payload().toArray(ValueLayout.JAVA_BYTE));
                leaked.set(d);
                assertThrows(IllegalStateException.class, d::release, "a callback's delivery is not released by hand");
                if (i == 2) {
                    kept.add(d.retain());
                    assertThrows(IllegalStateException.class, d::release, "the retained delivery is released, not the flyweight");
                }
                return DeliveryHandler.Action.CONTINUE;
            }, 10);
        }
        assertEquals(5, seen.get());
        assertThrows(IllegalStateException.class, () -> leaked.get().payload(), "the flyweight died with its callback");
        assertEquals(1, c[0].stats().heldMessages());
        assertArrayEquals(bytes(10, 2), kept.getFirst().payload().toArray(ValueLayout.JAVA_BYTE), "the retained one lives");
        kept.getFirst().release();
        assertEquals(0, c[0].stats().heldMessages());
    }

    @Test
    void messageLengthsAreChecked() throws Exception {
        Connection[] c = pair(SMALL, SMALL);
        assertEquals(64 * 1024 - 24, c[1].maxMessageLength());
        assertThrows(IllegalArgumentException.class, () -> c[1].claim(c[1].maxMessageLength() + 1));
        assertThrows(IllegalArgumentException.class, () -> c[1].tryClaim(-1));
        byte[] max = bytes(c[1].maxMessageLength(), 3);
        c[1].send(max, 0, max.length);
        assertArrayEquals(max, c[0].receive(WAIT), "the largest message fits");
    }

    // ------------------------------------------------------------------ flow control

    @Test
    void slowReceiverBackPressuresWithBoundedMemory() throws Exception {
        Connection[] c = pair(SMALL, SMALL.withSendTimeout(Duration.ofMillis(300)));
        long window = 2L * 64 * 1024;
        long committed = 0;
        int sent = 0;
        while (true) {
            Claim claim = c[1].tryClaim(1000);
            if (claim == null) {
                break;
            }
            Pattern.fill(claim.segment(), sent++);
            claim.commit();
            committed += 1000;
            assertTrue(committed <= window, "the sender committed " + committed + " bytes into a " + window + "-byte window");
        }
        assertTrue(sent > 10, "some messages went before back-pressure: " + sent);
        assertTrue(c[1].stats().backPressured() > 0);
        TransportException e = assertThrows(TransportException.class, () -> c[1].claim(1000));
        assertEquals(Reason.TIMEOUT, e.reason(), "a bounded wait, not a hang");
        for (int i = 0; i < sent; i++) {
            Delivery d = c[0].take(WAIT);
            assertEquals(-1, Pattern.check(d.payload(), i), "message " + i);
            d.release();
        }
        // the receiver drained: the sender goes on
        for (int i = 0; i < 3 * sent; i++) {
            c[1].send(bytes(1000, i), 0, 1000);
            assertArrayEquals(bytes(1000, i), c[0].receive(WAIT));
        }
    }

    @Test
    void aHeldMessageNeverStallsTheConnection() throws Exception {
        Connection[] c = pair(SMALL.withAreas(4, 64 * 1024), SMALL);
        c[1].send(bytes(500, 1), 0, 500);
        Delivery held = c[0].take(WAIT);
        assertNotNull(held);
        CompletableFuture<Void> sender = CompletableFuture.runAsync(() -> {
            for (int i = 0; i < 2000; i++) { // 2 MB through a 256 KiB window
                c[1].send(bytes(1000, i), 0, 1000);
            }
        });
        for (int i = 0; i < 2000; i++) {
            byte[] m = c[0].receive(WAIT);
            assertArrayEquals(bytes(1000, i), m, "message " + i);
        }
        sender.get();
        ConnectionStats s = c[0].stats();
        assertEquals(1, s.heldMessages());
        assertEquals(500, s.heldBytes());
        assertEquals(1, s.heldAreas());
        assertArrayEquals(bytes(500, 1), held.payload().toArray(ValueLayout.JAVA_BYTE), "the held bytes were not overwritten");
        held.release();
        assertEquals(0, c[0].stats().heldBytes());
    }

    @Test
    void holdingEveryAreaBackPressuresUntilReleased() throws Exception {
        Connection[] c = pair(SMALL, SMALL.withSendTimeout(Duration.ofMillis(200)));
        List<Delivery> held = new ArrayList<>();
        int i = 0;
        while (true) {
            Claim claim = c[1].tryClaim(40_000);
            if (claim == null) {
                break;
            }
            claim.commit();
            Delivery d = c[0].take(WAIT);
            held.add(d);
            i++;
        }
        assertTrue(i >= 2, "messages went out before the window closed: " + i);
        assertEquals(2, c[0].stats().heldAreas(), "both areas are held");
        assertEquals(Reason.TIMEOUT, assertThrows(TransportException.class, () -> c[1].claim(40_000)).reason());
        held.forEach(Delivery::release);
        for (int k = 0; k < 10; k++) {
            c[1].send(bytes(40_000, k), 0, 40_000);
            assertArrayEquals(bytes(40_000, k), c[0].receive(WAIT));
        }
    }

    // ------------------------------------------------------------------ one-sided writes

    @Test
    void regionsWrittenAheadArriveWithTheNextMessage() throws Exception {
        ConnectionOptions four = SMALL.withAreas(4, 64 * 1024);
        Connection[] c = pair(four, four);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment big = arena.allocate(50_000);
            Pattern.fill(big, 77);
            int[] large = new int[10_000];
            for (int i = 0; i < large.length; i++) {
                large[i] = i * 3;
            }
            for (int round = 0; round < 6; round++) { // crosses area boundaries of the 64 KiB areas
                assertEquals(0, c[1].writeRegion(big));
                assertEquals(1, c[1].writeRegion(MemorySegment.ofArray(large)));
                assertEquals(2, c[1].writeRegion(MemorySegment.ofArray(new byte[0])));
                c[1].send(bytes(8, round), 0, 8);
                Delivery d = c[0].take(WAIT);
                assertNotNull(d);
                assertArrayEquals(bytes(8, round), d.payload().toArray(ValueLayout.JAVA_BYTE));
                assertEquals(3, d.regionCount());
                assertEquals(-1, Pattern.check(d.region(0), 77));
                assertArrayEquals(large, d.region(1).toArray(ValueLayout.JAVA_INT));
                assertEquals(0, d.region(2).byteSize());
                assertThrows(IndexOutOfBoundsException.class, () -> d.region(3));
                d.release();
            }
            c[1].send(bytes(4, 9), 0, 4);
            Delivery plain = c[0].take(WAIT);
            assertEquals(0, plain.regionCount(), "regions belong to one message only");
            plain.release();
            assertEquals(18, c[1].stats().regionsSent());
            assertEquals(0, c[0].stats().heldAreas());
        }
    }

    // ------------------------------------------------------------------ life

    @Test
    void closeDeliversWhatWasSentThenReportsPeerClosed() throws Exception {
        Connection[] c = pair();
        for (int i = 0; i < 50; i++) {
            c[1].send(bytes(100, i), 0, 100);
        }
        c[0].send(new byte[] {1}, 0, 1);
        Delivery keptOnClosingSide = c[1].take(WAIT);
        c[1].close();
        c[1].close(); // idempotent
        assertThrows(IllegalStateException.class, keptOnClosingSide::payload, "held memory is gone after close");
        assertEquals(Reason.CLOSED, assertThrows(TransportException.class, () -> c[1].send(new byte[1], 0, 1)).reason());
        assertEquals(Reason.CLOSED, assertThrows(TransportException.class, c[1]::poll).reason());
        for (int i = 0; i < 50; i++) {
            assertArrayEquals(bytes(100, i), c[0].receive(WAIT), "message " + i + " sent before the close");
        }
        TransportException e = assertThrows(TransportException.class, () -> c[0].take(WAIT));
        assertEquals(Reason.PEER_CLOSED, e.reason());
        assertEquals(Reason.PEER_CLOSED, assertThrows(TransportException.class, () -> c[0].send(new byte[1], 0, 1)).reason());
        assertTrue(!c[0].isOpen());
    }

    /**
     * A delivery held across the close refuses every access the moment {@code close()} returns, not once the
     * window's memory is gone (on tcp that happens a moment later, on the process's closing thread). Repeated:
     * a check that lost the race with that thread only some of the time failed about one run in four.
     */
    @Test
    void aDeliveryHeldAcrossCloseRefusesAccessAsSoonAsCloseReturns() throws Exception {
        Listener l = listen(defaults());
        for (int i = 0; i < 100; i++) {
            CompletableFuture<Connection> connector = CompletableFuture.supplyAsync(() -> Transport.connect(l.address(), defaults()));
            Connection accepted = l.accept(WAIT);
            assertNotNull(accepted, "no connection accepted");
            try (Connection peer = connector.get()) {
                peer.send(bytes(100, i), 0, 100);
                Delivery held = accepted.take(WAIT);
                assertNotNull(held, "round " + i);
                assertEquals(100, held.payload().byteSize());
                accepted.close();
                String round = "round " + i + ": the connection is closed";
                assertThrows(IllegalStateException.class, held::payload, round);
                assertThrows(IllegalStateException.class, held::length, round);
                assertThrows(IllegalStateException.class, held::regionCount, round);
                assertThrows(IllegalStateException.class, () -> held.region(0), round);
                assertThrows(IllegalStateException.class, held::retain, round);
            }
        }
    }

    @Test
    void closeWakesAThreadWaitingToReceive() throws Exception {
        Connection[] c = pair();
        CompletableFuture<Reason> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                c[0].take(Duration.ofSeconds(50));
                return null;
            } catch (TransportException e) {
                return e.reason();
            }
        });
        Thread.sleep(200);
        c[0].close();
        assertEquals(Reason.CLOSED, waiter.get());
    }

    @Test
    void manyConnectionsOnOneListener() throws Exception {
        Listener l = listen(defaults().withAreas(2, 64 * 1024));
        int n = 12;
        List<CompletableFuture<Connection>> connectors = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            connectors.add(CompletableFuture.supplyAsync(() -> Transport.connect(l.address(), SMALL)));
        }
        List<Connection> accepted = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            accepted.add(closing(l.accept(WAIT)));
        }
        List<Connection> clients = new ArrayList<>();
        for (CompletableFuture<Connection> f : connectors) {
            clients.add(closing(f.get()));
        }
        for (int i = 0; i < n; i++) {
            clients.get(i).send(bytes(20, i), 0, 20);
        }
        // each accepted connection gets exactly one client's message, each client one reply
        for (Connection a : accepted) {
            byte[] m = a.receive(WAIT);
            a.send(m, 0, m.length);
        }
        for (int i = 0; i < n; i++) {
            assertArrayEquals(bytes(20, i), clients.get(i).receive(WAIT), "client " + i + " got its own reply");
        }
    }

    @Test
    void anIdleWaitParksInsteadOfSpinning() throws Exception {
        Connection[] c = pair();
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long cpu0 = mx.getCurrentThreadCpuTime();
        long t0 = System.nanoTime();
        assertNull(c[0].take(Duration.ofMillis(1500)), "nothing was sent");
        long cpu = mx.getCurrentThreadCpuTime() - cpu0;
        long wall = System.nanoTime() - t0;
        long parks = c[0].stats().parks();
        assertTrue(parks > 0, "the waiting thread parked");
        // every wake-up costs CPU (~0.1 ms on a virtual machine): an idle receiver sleeps in long slices, not
        // in 0.1 s ones (15 parks for this wait), and does not spin again after each
        assertTrue(parks <= 5, "an idle wait of 1.5 s parked " + parks + " times");
        assertTrue(cpu < wall / 4, "an idle wait used " + cpu / 1_000_000 + " ms of CPU in " + wall / 1_000_000 + " ms");
    }

    @Test
    void aReceiverSpinsAfterItReceivedNotAtEveryWait() throws Exception {
        ConnectionOptions spinLong = defaults().withSpin(400_000_000L, false); // 0.4 s of spin
        Connection[] c = pair(spinLong, defaults());
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        assertNull(c[0].take(Duration.ofMillis(450)), "nothing was sent"); // spins 0.4 s, then parks: now idle
        long cpu0 = mx.getCurrentThreadCpuTime();
        long t0 = System.nanoTime();
        assertNull(c[0].take(Duration.ofMillis(450)), "nothing was sent");
        long cpu = mx.getCurrentThreadCpuTime() - cpu0;
        long wall = System.nanoTime() - t0;
        // a thread taking with a timeout in a loop on an idle connection must not spin spinNanos every time
        assertTrue(cpu < wall / 4, "a wait after an idle wait used " + cpu / 1_000_000 + " ms of CPU in "
                + wall / 1_000_000 + " ms");
        // and a message ends the idleness: it is delivered, and the spin budget applies again
        byte[] m = bytes(16, 3);
        c[1].send(m, 0, m.length);
        assertArrayEquals(m, c[0].receive(WAIT));
        // (counted, not timed: a spinning thread's CPU time depends on what else wants the CPUs)
        long parks = c[0].stats().parks();
        assertNull(c[0].take(Duration.ofMillis(150)), "nothing more was sent");
        assertEquals(parks, c[0].stats().parks(), "after a message the receiver spins again: a wait shorter than"
                + " its spin did not park");
    }

    @Test
    void wakeupEndsAWaitingTakeOrTheNextOne() throws Exception {
        Connection[] c = pair();
        c[0].wakeup(); // nobody waits: the next take returns at once
        long t0 = System.nanoTime();
        assertNull(c[0].take(Duration.ofSeconds(20)));
        assertTrue(System.nanoTime() - t0 < 10_000_000_000L, "a take after wakeup() returned at once");
        CompletableFuture<Delivery> waiting = CompletableFuture.supplyAsync(() -> c[0].take(Duration.ofSeconds(20)));
        Thread.sleep(300); // asleep in the transport by now (past the spin)
        c[0].wakeup();
        assertNull(waiting.get(10, java.util.concurrent.TimeUnit.SECONDS), "the waiting take returned null, well before 20 s");
        byte[] m = bytes(32, 9); // and the connection works as before
        c[1].send(m, 0, m.length);
        assertArrayEquals(m, c[0].receive(WAIT));
    }

    @Test
    void acceptTimesOutAndClosedListenerRefuses() {
        Listener l = listen(defaults());
        assertNull(l.accept(Duration.ofMillis(100)));
        l.close();
        assertEquals(Reason.CLOSED, assertThrows(TransportException.class, () -> l.accept(Duration.ofMillis(10))).reason());
    }

    // ------------------------------------------------------------------ real processes

    @Test
    void echoAcrossProcessesWithSeveralOnOneListener() throws Exception {
        Listener l = listen(defaults());
        int n = 3;
        List<Child> children = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                children.add(new Child("echo", l.address()));
            }
            List<Connection> cs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                Connection c = closing(l.accept(WAIT));
                assertNotNull(c, "child " + i + " connected");
                cs.add(c);
            }
            for (int i = 0; i < 2000; i++) { // interleaved: every connection carries its own stream
                for (int k = 0; k < n; k++) {
                    byte[] m = bytes(1 + (i * 7 + k) % 300, i + k);
                    cs.get(k).send(m, 0, m.length);
                }
                for (int k = 0; k < n; k++) {
                    assertArrayEquals(bytes(1 + (i * 7 + k) % 300, i + k), cs.get(k).receive(WAIT), "echo " + i + " of " + k);
                }
            }
            for (Connection c : cs) {
                c.close();
            }
            for (Child child : children) {
                assertTrue(child.await(30, "OK", "FAIL").startsWith("OK echoed 2000"), child.output());
                assertEquals(0, child.exit(30));
            }
        } finally {
            children.forEach(Child::close);
        }
    }

    @Test
    void sustainedRandomSizesArriveInOrderWithoutLossOrDuplicates() throws Exception {
        int count = 1500;
        long seed = 0x5EEDL;
        int max = 1 << 20;
        ConnectionOptions options = defaults().withAreas(4, (2 << 20));
        Listener l = listen(options);
        // child -> parent
        try (Child child = new Child("stream", l.address(), "" + count, "" + seed, "" + max)) {
            Connection c = closing(l.accept(WAIT));
            Pattern p = new Pattern(seed, max);
            for (int i = 0; i < count; i++) {
                Delivery d = c.take(WAIT);
                assertNotNull(d, "message " + i + " arrived");
                assertEquals(p.nextSize(), d.length(), "size of message " + i);
                assertEquals(-1, Pattern.check(d.payload(), i), "content of message " + i);
                d.release();
            }
            assertEquals(Reason.PEER_CLOSED, assertThrows(TransportException.class, () -> c.take(WAIT)).reason(),
                    "nothing after the last message but the close");
            assertTrue(child.await(30, "OK", "FAIL").startsWith("OK"), child.output());
        }
        // parent -> child, with a slow reader (back-pressure across processes)
        try (Child child = new Child("verify", l.address(), "300", "" + (seed + 1), "" + max, "200")) {
            Connection c = closing(l.accept(WAIT));
            Pattern p = new Pattern(seed + 1, max);
            for (int i = 0; i < 300; i++) {
                Claim claim = c.claim(p.nextSize());
                Pattern.fill(claim.segment(), i);
                claim.commit();
            }
            assertTrue(child.await(60, "OK", "FAIL").startsWith("OK verified 300"), child.output());
        }
    }

    @Test
    void aKilledPeerIsReportedToAWaitingReceiverAndSender() throws Exception {
        Listener l = listen(SMALL.withSendTimeout(Duration.ofSeconds(50)));
        try (Child child = new Child("hang", l.address())) {
            Connection c = closing(l.accept(WAIT));
            child.await(30, "READY");
            // a sender that keeps sending to a peer that never reads ends up waiting (for receive
            // areas on shm, for the socket on tcp)
            CompletableFuture<Reason> sender = CompletableFuture.supplyAsync(() -> {
                try {
                    byte[] m = new byte[10_000];
                    for (int i = 0; i < 1_000_000; i++) {
                        c.send(m, 0, m.length);
                    }
                    return null;
                } catch (TransportException e) {
                    return e.reason();
                }
            });
            CompletableFuture<Long> receiver = CompletableFuture.supplyAsync(() -> {
                long t0 = System.nanoTime();
                try {
                    c.take(Duration.ofSeconds(50));
                    return -1L;
                } catch (TransportException e) {
                    return e.reason() == Reason.PEER_GONE ? System.nanoTime() - t0 : -2L;
                }
            });
            Thread.sleep(300);
            long killed = System.nanoTime();
            child.kill();
            long waited = receiver.get();
            assertTrue(waited >= 0, "the waiting receiver saw PEER_GONE, not a timeout (" + waited + ")");
            assertEquals(Reason.PEER_GONE, sender.get(), "the waiting sender saw PEER_GONE");
            System.out.printf("%s: peer death detected %.1f ms after the kill%n", getClass().getSimpleName(),
                    (System.nanoTime() - killed) / 1e6);
            assertEquals(Reason.PEER_GONE, assertThrows(TransportException.class, () -> c.send(new byte[1], 0, 1)).reason());
            assertEquals(Reason.PEER_GONE, assertThrows(TransportException.class, c::poll).reason());
        }
    }

    // ------------------------------------------------------------------ what the review found

    @Test
    void aSendThatTimesOutNeverCorruptsWhatIsDelivered() throws Exception {
        Connection[] c = pair(defaults(), defaults().withSendTimeout(Duration.ofMillis(100)));
        int big = 1 << 20;
        CompletableFuture<Integer> sender = CompletableFuture.supplyAsync(() -> {
            int timeouts = 0;
            for (int i = 0; i < 40; i++) {
                int size = i % 3 == 2 ? 1000 : big;
                try {
                    Claim claim = c[1].claim(size);
                    Pattern.fill(claim.segment(), i);
                    claim.segment().set(ValueLayout.JAVA_INT_UNALIGNED, 0, i);
                    claim.commit();
                } catch (TransportException e) {
                    timeouts++;
                    if (!c[1].isOpen()) {
                        break;
                    }
                }
            }
            return timeouts;
        });
        Thread.sleep(400); // the receiver is not reading: the sender times out
        int delivered = 0;
        int last = -1;
        while (true) {
            Delivery d;
            try {
                d = c[0].take(Duration.ofSeconds(2));
            } catch (TransportException e) {
                break; // the sender closed a half-sent stream: fine, as long as nothing bad came before
            }
            if (d == null) {
                break;
            }
            int i = d.payload().get(ValueLayout.JAVA_INT_UNALIGNED, 0);
            assertTrue(i > last, "in order: " + i + " after " + last);
            assertEquals(i % 3 == 2 ? 1000 : big, d.length(), "size of message " + i);
            MemorySegment rest = d.payload().asSlice(4);
            for (long j = 0; j < rest.byteSize(); j += 4093) {
                assertEquals(Pattern.at(i, j + 4), rest.get(ValueLayout.JAVA_BYTE, j), "message " + i + " byte " + (j + 4));
            }
            last = i;
            delivered++;
            d.release();
        }
        assertTrue(sender.get() > 0, "the sender timed out at least once");
        assertTrue(delivered > 0, "messages were delivered");
    }

    @Test
    void closeDeliversEverythingEvenWithUnreadInput() throws Exception {
        Connection[] c = pair();
        c[0].send(new byte[] {1, 2, 3}, 0, 3); // the closing side never reads this
        byte[] m = new byte[256 * 1024];
        for (int i = 0; i < 8; i++) {
            m[0] = (byte) i;
            c[1].send(m, 0, m.length);
        }
        c[1].close();
        for (int i = 0; i < 8; i++) {
            byte[] r = c[0].receive(WAIT);
            assertNotNull(r, "message " + i);
            assertEquals(i, r[0]);
        }
        assertEquals(Reason.PEER_CLOSED, assertThrows(TransportException.class, () -> c[0].take(WAIT)).reason());
    }

    @Test
    void silentConnectorsDoNotBlockOthers() throws Exception {
        Listener l = listen(defaults().withConnectTimeout(Duration.ofSeconds(50)));
        AutoCloseable a = closing(silentConnector(l));
        AutoCloseable b = closing(silentConnector(l));
        {
            assertNotNull(a);
            assertNotNull(b);
            CompletableFuture<Connection> good = CompletableFuture.supplyAsync(() -> Transport.connect(l.address(), defaults()));
            Connection accepted = closing(l.accept(WAIT));
            assertNotNull(accepted, "a real connector got through while two silent ones hold their handshakes");
            Connection client = closing(good.get());
            client.send(new byte[] {4}, 0, 1);
            assertArrayEquals(new byte[] {4}, accepted.receive(WAIT));
        }
    }

    @Test
    void closingAListenerWakesABlockedAccept() throws Exception {
        Listener l = listen(defaults());
        CompletableFuture<Reason> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                l.accept(Duration.ofSeconds(50));
                return null;
            } catch (TransportException e) {
                return e.reason();
            }
        });
        Thread.sleep(200);
        l.close();
        assertEquals(Reason.CLOSED, waiter.get());
    }

    @Test
    void closeWakesAThreadWaitingToSend() throws Exception {
        Connection[] c = pair(SMALL, SMALL.withSendTimeout(Duration.ofSeconds(50)));
        CompletableFuture<Reason> sender = CompletableFuture.supplyAsync(() -> {
            try {
                byte[] m = new byte[10_000];
                for (int i = 0; i < 10_000; i++) {
                    c[1].send(m, 0, m.length);
                }
                return null;
            } catch (TransportException e) {
                return e.reason();
            }
        });
        Thread.sleep(300);
        c[1].close();
        assertEquals(Reason.CLOSED, sender.get());
    }

    static void assertNoVerbatimThreads() throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            List<String> left = Thread.getAllStackTraces().keySet().stream()
                    .map(Thread::getName).filter(n -> n.startsWith("verbatim-")).toList();
            if (left.isEmpty()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                fail("threads left after every connection closed: " + left);
            }
            Thread.sleep(20);
        }
    }
}
