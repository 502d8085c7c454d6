package dev.verbatim.jcstress;

import dev.verbatim.transport.Delivery;

/**
 * A real shm connection ({@link ShmPair}, whole windows) brought, single-threaded, to the point where the sender needs
 * an area the receiver has not freed: area 0 holds message {@link #FIRST}, which the receiver retains; the receiver
 * has followed the {@code NEXT} record into area 1 (area 0 is sealed, pinned only by the retained delivery); area 1
 * is full. The sender's next message needs area 0, which goes back to it when {@link #held} is released.
 */
final class FullWindow {
    /** The first word of the retained message. */
    static final long FIRST = 0x1111;

    final ShmPair pair = new ShmPair(ShmPair.WHOLE_WINDOW);
    final Delivery held;
    /**
     * Heap that stands for the native memory of the windows (136 KiB a state) in jcstress's estimate of a state's
     * footprint, which counts heap allocations only: it sizes its strides to keep the states of a run under 64 MiB
     * of heap, so a quarter of the windows' size here keeps their native memory under about 256 MiB (a test's
     * JVM peaked at 0.57 GB resident with it, 1.37 GB without: jcstress kept 10,240 states).
     */
    @SuppressWarnings("unused")
    private final byte[] footprint = new byte[(int) (ShmPair.WHOLE_WINDOW / 4)];

    FullWindow() {
        int largest = pair.sender.maxMessageLength();
        var first = pair.sender.claim(largest); // fills area 0: nothing more fits before its NEXT record
        first.segment().set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, FIRST);
        first.commit();
        held = pair.receiver.poll();
        pair.send(1, 2); // into area 1, behind a NEXT record
        Delivery second = pair.receiver.poll(); // the reader follows NEXT: area 0 is sealed, still pinned
        if (held == null || second == null) {
            throw new IllegalStateException("the messages written single-threaded were not read");
        }
        second.release();
        var filler = pair.sender.claim(largest - 16); // area 1 full too (its first record took 16 bytes)
        filler.commit();
        if (pair.sender.tryClaim(8) != null) {
            throw new IllegalStateException("the sender found room without area 0");
        }
    }
}
