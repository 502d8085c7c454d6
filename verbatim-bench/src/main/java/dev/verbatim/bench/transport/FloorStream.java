package dev.verbatim.bench.transport;

import dev.verbatim.bench.harness.Medium;
import dev.verbatim.bench.harness.Session;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

import static dev.verbatim.bench.transport.FloorRingDescriptor.HEAD;
import static dev.verbatim.bench.transport.FloorRingDescriptor.HEADER;
import static dev.verbatim.bench.transport.FloorRingDescriptor.PADDING;
import static dev.verbatim.bench.transport.FloorRingDescriptor.RING;
import static dev.verbatim.bench.transport.FloorRingDescriptor.TAIL;

/**
 * The streaming floor: a bare single-producer, single-consumer ring in a shared file
 * ({@link FloorRingDescriptor}); the producer copies each message in, the consumer copies it out,
 * both with {@link MemorySegment#copy}. Bandwidth is memcpy- and cache-coherence-bound: the most
 * any shared-memory stream of copied messages can do on this host. The consumer hands space back
 * (stores {@code head}) every eighth of the ring and whenever it has caught up, not per message, so
 * a producer waiting for room does not pull the consumer's line away on every message.
 */
final class FloorStream implements StreamContender {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final String FILE = "floor-ring";

    @Override
    public String name() {
        return "floor";
    }

    @Override
    public Medium medium() {
        return Medium.SHM;
    }

    @Override
    public java.util.List<String> jvmFlags() {
        String p = System.getProperty("verbatim.bench.floor.ring");
        return p == null ? java.util.List.of() : java.util.List.of("-Dverbatim.bench.floor.ring=" + p);
    }

    @Override
    public Consumer consumer(Session session) throws Exception {
        int max = session.maxSize();
        Arena arena = Arena.ofShared();
        MemorySegment m = SharedFile.create(session.dir().resolve(FILE), FloorRingDescriptor.fileSize(max), arena);
        return new RingConsumer(m, arena, FloorRingDescriptor.capacity(max), max);
    }

    @Override
    public Producer producer(Session session) throws Exception {
        int max = session.maxSize();
        Arena arena = Arena.ofShared();
        MemorySegment m = SharedFile.open(session.dir().resolve(FILE), FloorRingDescriptor.fileSize(max), arena);
        return new RingProducer(m, arena, FloorRingDescriptor.capacity(max), max);
    }

    static final class RingProducer implements Producer {
        private final MemorySegment shm;
        private final Arena arena;
        private final long capacity;
        private final long mask;
        private final int max;
        private long tail;
        private long cachedHead;

        RingProducer(MemorySegment shm, Arena arena, long capacity, int max) {
            this.shm = shm;
            this.arena = arena;
            this.capacity = capacity;
            this.mask = capacity - 1;
            this.max = max;
        }

        @Override
        public void send(MemorySegment message, int size) {
            if (size < 0 || size > max) {
                throw new IllegalArgumentException("message of " + size + " bytes, at most " + max);
            }
            int record = FloorRingDescriptor.record(size);
            long offset = tail & mask;
            long pad = offset + record > capacity ? capacity - offset : 0;
            long need = tail + pad + record - capacity;
            while (cachedHead < need) {
                cachedHead = (long) LONG.getAcquire(shm, HEAD);
            }
            if (pad != 0) {
                shm.set(ValueLayout.JAVA_INT, RING + offset, PADDING);
                offset = 0;
            }
            shm.set(ValueLayout.JAVA_INT, RING + offset, size);
            MemorySegment.copy(message, 0, shm, RING + offset + HEADER, size);
            tail += pad + record;
            LONG.setRelease(shm, TAIL, tail);
        }

        @Override
        public void close() {
            arena.close();
        }
    }

    static final class RingConsumer implements Consumer {
        private final MemorySegment shm;
        private final Arena arena;
        private final long capacity;
        private final long mask;
        private final int max;
        private final long releaseEvery;
        private long head;
        private long released;
        private long cachedTail;

        RingConsumer(MemorySegment shm, Arena arena, long capacity, int max) {
            this.shm = shm;
            this.arena = arena;
            this.capacity = capacity;
            this.releaseEvery = capacity / 8;
            this.mask = capacity - 1;
            this.max = max;
        }

        @Override
        public int receive(MemorySegment into) {
            while (true) {
                if (head == cachedTail) {
                    if (released != head) { // caught up: hand back everything read before waiting
                        LONG.setRelease(shm, HEAD, head);
                        released = head;
                    }
                    while (head == cachedTail) {
                        cachedTail = (long) LONG.getAcquire(shm, TAIL);
                    }
                }
                long offset = head & mask;
                int size = shm.get(ValueLayout.JAVA_INT, RING + offset);
                if (size == PADDING) {
                    head += capacity - offset;
                    continue;
                }
                if (size < 0 || size > max) {
                    throw new IllegalStateException("corrupt ring record of " + size + " bytes at " + head);
                }
                MemorySegment.copy(shm, RING + offset + HEADER, into, 0, size);
                head += FloorRingDescriptor.record(size);
                if (head - released >= releaseEvery) { // not per message: the producer's reads of head would bounce its line
                    LONG.setRelease(shm, HEAD, head);
                    released = head;
                }
                return size;
            }
        }

        @Override
        public void close() {
            arena.close();
        }
    }
}
