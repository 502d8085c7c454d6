package dev.verbatim.bench.transport;

import dev.verbatim.bench.harness.Medium;
import dev.verbatim.bench.harness.Session;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;
import java.util.List;

import static dev.verbatim.bench.transport.FloorPingPongDescriptor.CLOSED;
import static dev.verbatim.bench.transport.FloorPingPongDescriptor.INLINE;
import static dev.verbatim.bench.transport.FloorPingPongDescriptor.INLINE_MAX;
import static dev.verbatim.bench.transport.FloorPingPongDescriptor.PING_LINE;
import static dev.verbatim.bench.transport.FloorPingPongDescriptor.PONG_LINE;
import static dev.verbatim.bench.transport.FloorPingPongDescriptor.SEQ;
import static dev.verbatim.bench.transport.FloorPingPongDescriptor.SIZE;

/**
 * The shared-memory floor: two processes map one file ({@link FloorPingPongDescriptor}) and spin on
 * each other's cache line with release stores and acquire loads, FFM only. An 8-byte round trip is
 * two cache-line transfers between cores: the physical limit of the host. Larger messages are
 * copied into the shared payload area by the ping, from there straight into the reverse area by the
 * pong, and out by the ping: three bare {@link MemorySegment#copy}s per round trip, the memcpy cost
 * any shared-memory transport pays at least. With a {@linkplain Session#replyMax() shorter reply}
 * (the rpc suite's call floor) the pong copies the whole message out of the file into memory of its
 * own, as a server takes in an argument, and sends back only its first bytes: two copies per call.
 *
 * <p>The spin loops pause with {@link Thread#onSpinWait()} by default: on this project's virtual
 * machines a bare spin keeps the hypervisor from running the other side and round trips stall for
 * milliseconds; {@code -Dverbatim.bench.floor.pause=false} spins bare.
 */
final class FloorPingPong implements PingPongContender {
    static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    /** Whether the spin loops pause ({@link Thread#onSpinWait()}); {@code -Dverbatim.bench.floor.pause=false} spins bare. */
    static final boolean PAUSE = !"false".equals(System.getProperty("verbatim.bench.floor.pause"));
    private static final String FILE = "floor-pingpong";
    /** A ping looks at the clock once every this many + 1 empty polls. */
    private static final int CLOCK_SPINS = (1 << 16) - 1;
    /** How long a ping waits for an answer before it gives up (as the rpc harness gives up on a caller). */
    private static final long GIVE_UP_NANOS = 30_000_000_000L;
    /** The reply size of a serving pong whose work failed on the message: the ping fails the round trip. */
    private static final int FAILED = -1;

    @Override
    public String name() {
        return "floor";
    }

    @Override
    public List<String> jvmFlags() {
        String p = System.getProperty("verbatim.bench.floor.pause");
        return p == null ? List.of() : List.of("-Dverbatim.bench.floor.pause=" + p);
    }

    @Override
    public Medium medium() {
        return Medium.SHM;
    }

    @Override
    public Pong pong(Session session) throws Exception {
        return pong(session, null);
    }

    /** The pong side; with {@code work} (non-null), a serving one ({@link Contenders#servingFloor}). */
    Pong pong(Session session, Work work) throws Exception {
        int max = session.maxSize();
        if (work != null && session.replyMax() != Long.BYTES) {
            throw new IllegalArgumentException("a serving floor replies one word; the session's reply is "
                    + session.replyMax() + " bytes");
        }
        Arena arena = Arena.ofShared();
        MemorySegment m = SharedFile.create(session.dir().resolve(FILE), FloorPingPongDescriptor.fileSize(max), arena);
        return new FloorPong(m, arena, max, session.replyMax(), work);
    }

    @Override
    public Ping ping(Session session) throws Exception {
        int max = session.maxSize();
        Arena arena = Arena.ofShared();
        Path file = session.dir().resolve(FILE);
        MemorySegment m = SharedFile.open(file, FloorPingPongDescriptor.fileSize(max), arena);
        return new FloorPing(m, arena, max);
    }

    /** Writes {@code size} bytes from {@code src} into the line at {@code line} or the area at {@code area}. */
    static void put(MemorySegment shm, long line, long area, MemorySegment src, long srcOffset, int size) {
        if (size <= INLINE_MAX) {
            MemorySegment.copy(src, srcOffset, shm, line + INLINE, size);
        } else {
            MemorySegment.copy(src, srcOffset, shm, area, size);
        }
        shm.set(ValueLayout.JAVA_LONG, line + SIZE, size);
    }

    static final class FloorPing implements Ping {
        private final MemorySegment shm;
        private final Arena arena;
        private final int max;
        private final long pongArea;
        private long seq;

        FloorPing(MemorySegment shm, Arena arena, int max) {
            this.shm = shm;
            this.arena = arena;
            this.max = max;
            this.pongArea = FloorPingPongDescriptor.pongPayload(max);
        }

        @Override
        public void roundTrip(MemorySegment message, MemorySegment reply, int size) throws IOException {
            FloorPingPongDescriptor.checkSize(size, max);
            long s = ++seq;
            put(shm, PING_LINE, FloorPingPongDescriptor.pingPayload(), message, 0, size);
            LONG.setRelease(shm, PING_LINE + SEQ, s);
            long deadline = 0;
            for (int spins = 1; (long) LONG.getAcquire(shm, PONG_LINE + SEQ) != s; spins++) {
                if (PAUSE) {
                    Thread.onSpinWait(); // the pong's release store ends the wait
                }
                if ((spins & CLOCK_SPINS) == 0) { // now and then: a pong that died never answers
                    long now = System.nanoTime();
                    if (deadline == 0) {
                        deadline = now + GIVE_UP_NANOS;
                    } else if (now - deadline > 0) {
                        throw new IOException("the floor's pong side did not answer message " + s + " within "
                                + GIVE_UP_NANOS / 1_000_000_000 + " s");
                    }
                }
            }
            int n = (int) shm.get(ValueLayout.JAVA_LONG, PONG_LINE + SIZE);
            if (n == FAILED) {
                throw new IOException("the floor's pong side failed on message " + s + " (its process says why)");
            }
            if (n <= INLINE_MAX) {
                MemorySegment.copy(shm, PONG_LINE + INLINE, reply, 0, n);
            } else {
                MemorySegment.copy(shm, pongArea, reply, 0, n);
            }
        }

        @Override
        public void close() {
            LONG.setRelease(shm, PING_LINE + SEQ, CLOSED);
            arena.close();
        }
    }

    static final class FloorPong implements Pong {
        private final MemorySegment shm;
        private final Arena arena;
        private final long pingArea;
        private final long pongArea;
        private final int max;
        private final int replyMax;
        /** Where a message whose reply is shorter is received whole (the rpc suite); null otherwise. */
        private final MemorySegment received;
        /** What a serving pong makes of each request; null: the floor, which echoes its first word. */
        private final Work work;
        private long seen;

        FloorPong(MemorySegment shm, Arena arena, int max, int replyMax, Work work) {
            this.work = work;
            this.shm = shm;
            this.arena = arena;
            this.max = max;
            this.replyMax = replyMax;
            this.received = replyMax < max ? arena.allocate(max, 64) : null;
            this.pingArea = FloorPingPongDescriptor.pingPayload();
            this.pongArea = FloorPingPongDescriptor.pongPayload(max);
        }

        @Override
        public boolean echo() throws Exception {
            long s;
            while ((s = (long) LONG.getAcquire(shm, PING_LINE + SEQ)) == seen) {
                if (PAUSE) {
                    Thread.onSpinWait(); // the ping's release store ends the wait
                }
            }
            if (s == CLOSED) {
                return false;
            }
            seen = s;
            int n = (int) shm.get(ValueLayout.JAVA_LONG, PING_LINE + SIZE);
            FloorPingPongDescriptor.checkSize(n, max);
            int r = Math.min(n, replyMax); // the first r bytes go back (all of them but in the rpc suite)
            if (r < n || work != null) {
                // a call: the argument is still taken in whole (copied out, as a server receives it)
                MemorySegment.copy(shm, n <= INLINE_MAX ? PING_LINE + INLINE : pingArea, received, 0, n);
            }
            if (work != null) { // a serving pong: the word its work makes of the request taken in
                try {
                    shm.set(ValueLayout.JAVA_LONG, PONG_LINE + INLINE, work.reply(received, n));
                } catch (Exception | Error e) { // the ping learns at once, not by waiting
                    shm.set(ValueLayout.JAVA_LONG, PONG_LINE + SIZE, FAILED);
                    LONG.setRelease(shm, PONG_LINE + SEQ, s);
                    throw e;
                }
            } else if (r <= INLINE_MAX) {
                MemorySegment.copy(shm, n <= INLINE_MAX ? PING_LINE + INLINE : pingArea, shm, PONG_LINE + INLINE, r);
            } else {
                MemorySegment.copy(shm, pingArea, shm, pongArea, r);
            }
            shm.set(ValueLayout.JAVA_LONG, PONG_LINE + SIZE, r);
            LONG.setRelease(shm, PONG_LINE + SEQ, s);
            return true;
        }

        @Override
        public void close() {
            arena.close();
        }
    }
}
