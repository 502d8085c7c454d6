package dev.verbatim.bench.transport;

import dev.verbatim.bench.harness.LatencyHistogram;
import dev.verbatim.bench.harness.ThreadCpu;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;

/**
 * The measuring loops that run inside the child processes (and in tests): timed round trips into a
 * histogram, counted and fully verified round trips, and the producer and consumer of a stream.
 * Every message carries a sequence stamp: {@code seq} in its first 8 bytes and {@code ~seq} in its
 * last 8 (when it has 16 or more); every echo or received message is checked against it, outside
 * the timed region for round trips (a stream's check is part of consuming it).
 */
public final class Loops {
    private Loops() {}

    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    /** Writes {@code seq} into the first 8 bytes of {@code m} and, from 16 bytes on, {@code ~seq} into the last 8. */
    public static void stamp(MemorySegment m, int size, long seq) {
        m.set(LONG, 0, seq);
        if (size >= 16) {
            m.set(LONG, size - 8, ~seq);
        }
    }

    static void check(MemorySegment m, int size, long seq) throws IOException {
        if (m.get(LONG, 0) != seq || (size >= 16 && m.get(LONG, size - 8) != ~seq)) {
            throw new IOException("message " + seq + " of " + size + " bytes came back wrong: stamps "
                    + m.get(LONG, 0) + (size >= 16 ? " / " + ~m.get(LONG, size - 8) : ""));
        }
    }

    /** Fills {@code m[0, size)} with a pattern that depends on the size (the stamps overwrite its ends). */
    public static void pattern(MemorySegment m, int size) {
        for (int i = 0; i < size; i++) {
            m.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + size));
        }
    }

    /**
     * Sequence numbers of one ping side (shared by all sizes, so no stale echo can pass a check); on a
     * ping, {@code next} is also the number of round trips made so far.
     */
    static final class Sequence {
        long next;
    }

    /** One checked round trip of {@code size} bytes. */
    static void once(PingPongContender.Ping ping, MemorySegment msg, MemorySegment reply, int size, Sequence seq)
            throws Exception {
        long s = ++seq.next;
        stamp(msg, size, s);
        ping.roundTrip(msg, reply, size);
        check(reply, size, s);
    }

    /**
     * Round trips of {@code size} bytes: {@code warmNanos} unrecorded, then at least
     * {@code measureNanos} recorded into {@code h} (reset first), one {@link System#nanoTime()} pair
     * around each {@link PingPongContender.Ping#roundTrip}.
     */
    static double measure(PingPongContender.Ping ping, MemorySegment msg, MemorySegment reply, int size,
                          long warmNanos, long measureNanos, Sequence seq, LatencyHistogram h) throws Exception {
        pattern(msg, size);
        long end = System.nanoTime() + warmNanos;
        long t1;
        do {
            long s = ++seq.next;
            stamp(msg, size, s);
            ping.roundTrip(msg, reply, size);
            check(reply, size, s);
            t1 = System.nanoTime();
        } while (t1 < end);
        h.reset();
        end = t1 + measureNanos;
        long cpu0 = ThreadCpu.nanos();
        long wall0 = t1;
        do {
            long s = ++seq.next;
            stamp(msg, size, s);
            long t0 = System.nanoTime();
            ping.roundTrip(msg, reply, size);
            t1 = System.nanoTime();
            h.record(t1 - t0);
            check(reply, size, s);
        } while (t1 < end);
        return ThreadCpu.share(cpu0, wall0);
    }

    /**
     * {@code count} round trips of {@code size} bytes of fresh random content each, every echo
     * compared byte for byte with what was sent; returns the number of verified echoes.
     */
    static long exchange(PingPongContender.Ping ping, MemorySegment msg, MemorySegment reply, int size, long count,
                         Sequence seq, Random random) throws Exception {
        byte[] content = new byte[size];
        long verified = 0;
        for (long i = 0; i < count; i++) {
            random.nextBytes(content);
            MemorySegment.copy(content, 0, msg, ValueLayout.JAVA_BYTE, 0, size);
            long s = ++seq.next;
            stamp(msg, size, s);
            reply.asSlice(0, size).fill((byte) 0);
            ping.roundTrip(msg, reply, size);
            long at = MemorySegment.mismatch(msg, 0, size, reply, 0, size);
            if (at != -1) {
                throw new IOException("echo " + s + " of " + size + " bytes differs at byte " + at);
            }
            verified++;
        }
        return verified;
    }

    /** Sends {@code count} stamped messages of {@code size} bytes. */
    static void produce(StreamContender.Producer p, MemorySegment msg, int size, long count, Sequence seq)
            throws Exception {
        pattern(msg, size);
        for (long i = 0; i < count; i++) {
            stamp(msg, size, ++seq.next);
            p.send(msg, size);
        }
    }

    /** Receives and checks {@code count} messages of {@code size} bytes. */
    static void consume(StreamContender.Consumer c, MemorySegment into, int size, long count, Sequence seq)
            throws Exception {
        for (long i = 0; i < count; i++) {
            int n = c.receive(into);
            long s = ++seq.next;
            if (n != size) {
                throw new IOException("message " + s + ": " + n + " bytes, expected " + size);
            }
            check(into, size, s);
        }
    }
}
