package dev.verbatim.jcstress;

import dev.verbatim.transport.internal.AreaDescriptor;
import dev.verbatim.transport.internal.AreaReader;
import dev.verbatim.transport.internal.AreaWriter;

import dev.verbatim.transport.internal.ProtocolViolation;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A small receive window in native memory with the transport's real {@link AreaWriter} and {@link AreaReader} on
 * it, as one jcstress state needs them: two areas of {@link #AREA_SIZE} bytes after the control block of
 * {@link AreaDescriptor}. The areas are smaller than a connection allows (64 KiB at least) because jcstress keeps
 * thousands of states alive at once; the writer and the reader take any geometry, and the size does not enter
 * the ordering being tested.
 *
 * <p>The areas are filled with {@link #OLD} bytes, a previous use of the window that the protocol must never
 * show: the first header slot is zero, as the protocol's induction (the word at the reader's position is zero or
 * a record of the current use) requires of a fresh area, and everything after it is old. The memory is freed by
 * the garbage collector with the state ({@link Arena#ofAuto()}).
 */
public final class Window {
    static final int AREA_COUNT = 2;
    static final int AREA_SIZE = 8192;
    /** The byte a previous use of the area left everywhere (a non-zero header word as well as payload). */
    static final byte OLD = 0x5A;

    public final MemorySegment memory;
    public final AreaWriter writer;
    public final AreaReader reader;
    /** Areas the reader handed back ({@link AreaReader.Freed}), counted; the last thread that freed one. */
    volatile int freedCount;
    volatile Thread freedBy;

    public Window() {
        memory = Arena.ofAuto().allocate(AreaDescriptor.windowSize(AREA_COUNT, AREA_SIZE), 64);
        for (int a = 0; a < AREA_COUNT; a++) {
            long base = AreaDescriptor.areaBase(a, AREA_SIZE);
            memory.asSlice(base + 8, AREA_SIZE - 8).fill(OLD);
        }
        writer = new AreaWriter(memory, AREA_COUNT, AREA_SIZE);
        reader = new AreaReader(memory, AREA_COUNT, AREA_SIZE, this::freed);
    }

    private synchronized void freed(int area) {
        freedCount = freedCount + 1;
        freedBy = Thread.currentThread();
    }

    /**
     * Writes message {@code value} ({@link #words} of it long, every word {@code value}) with the writer's
     * publication protocol: payload, then the header with a release store.
     */
    void publish(long value) {
        int n = words(value);
        long at = writer.payloadOffset(8L * n);
        for (int i = 0; i < n; i++) {
            memory.set(ValueLayout.JAVA_LONG, at + 8L * i, value);
        }
        writer.publishRelease(AreaDescriptor.TYPE_DATA, 8L * n);
    }

    /** The length in words of message {@code value}: 1 to 3 small ones (zeroing ahead), then large ones (warming). */
    static int words(long value) {
        return value <= 3 ? (int) value + 1 : LARGE_WORDS;
    }

    /** Messages above this value are large: 1 KiB, the size after which a sender warms ahead. */
    static final int LARGE_WORDS = 128;
    static final long MAX_VALUE = 9;

    /**
     * Reads the next message with the reader's protocol and checks it against what {@link #publish} writes for
     * its value: {@link #NONE} if nothing is published at the reader's position; {@link #REFUSED} if the reader
     * refused the header it found (a stale word taken for a record); {@link #STALE} if a word of the payload is
     * not the message's (a payload older than its header, or torn); else the message's value.
     */
    long read() {
        try {
            if (reader.nextAcquire() != AreaReader.MESSAGE) {
                return NONE;
            }
            MemorySegment payload = reader.current().payload();
            long value = payload.byteSize() >= 8 ? payload.get(ValueLayout.JAVA_LONG, 0) : -1;
            if (value < 1 || value > MAX_VALUE || payload.byteSize() != 8L * words(value)) {
                return STALE;
            }
            for (long at = 8; at < payload.byteSize(); at += 8) {
                if (payload.get(ValueLayout.JAVA_LONG, at) != value) {
                    return STALE;
                }
            }
            return value;
        } catch (ProtocolViolation e) {
            return REFUSED;
        } finally {
            reader.afterCallback();
        }
    }

    /** Nothing published at the reader's position. */
    static final long NONE = -1;
    /** The reader refused the header at its position. */
    static final long REFUSED = -2;
    /** A message whose payload is not what its writer wrote before publishing it. */
    static final long STALE = -3;
}
