package dev.verbatim.transport.internal;

import dev.verbatim.buffer.internal.ArenaCloser;
import dev.verbatim.buffer.internal.LazyMemory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A tcp connection's receive window: zeroed memory whose pages the operating system provides only
 * when first touched, so an idle connection's window costs address space, not resident memory
 * (a 16 MiB window of which a connection used 64 KiB costs about 64 KiB), and whose pages the connection
 * gives back when it goes idle ({@link #giveBack}: the free areas a burst filled). On Linux it is an anonymous
 * private mapping ({@code mmap(MAP_PRIVATE | MAP_ANONYMOUS)}, {@link LazyMemory}; the kernel's
 * zero pages are read-only shared ones until written) when native access is enabled for this module
 * ({@code --enable-native-access}, as the launcher and the tests do); elsewhere, or without it (a
 * downcall would print the JDK's warning), an ordinary off-heap allocation, which the JDK zeroes at
 * once. A file mapping in {@code /dev/shm} would need no native access, but touching its pages past
 * the size of that file system (64 MiB in a default container) is a SIGBUS. Both start all zero, which the record
 * protocol needs (docs/transport.md §2). The memory belongs to a shared arena: once the closing thread
 * closed it after {@link #release()}, every access throws instead of touching unmapped memory.
 */
final class LazyWindow {
    private final Arena arena = Arena.ofShared();
    private final MemorySegment segment;

    LazyWindow(long size) {
        MemorySegment s = LazyMemory.map(size, arena, false);
        this.segment = s != null ? s : arena.allocate(size, 4096);
    }

    /** Whether windows are mapped lazily here (else allocated and zeroed at once). */
    static boolean lazy() {
        return LazyMemory.available();
    }

    /**
     * Gives the pages of {@code length} bytes at {@code offset} back to the operating system (they read as
     * zero, and cost nothing until touched again); the caller guarantees nobody reads or writes them
     * meanwhile. False where windows are not mapped lazily.
     */
    boolean giveBack(long offset, long length) {
        return LazyMemory.giveBack(segment.asSlice(offset, length));
    }

    /** The resident bytes of {@code length} bytes at {@code offset} (tests); -1 if it cannot tell. */
    long resident(long offset, long length) {
        return LazyMemory.residentBytes(segment.asSlice(offset, length));
    }

    MemorySegment segment() {
        return segment;
    }

    /**
     * Frees the window: its arena is closed on the process's closing thread ({@link ArenaCloser}: closing a
     * shared arena is a handshake with every thread, and a thousand connections closing at once must not
     * each pay it on a thread of their own). The caller guarantees nothing writes it any more (the
     * connection's pump lock: no socket read into it); idempotent.
     */
    void release() {
        if (arena.scope().isAlive()) {
            ArenaCloser.closeLater(arena);
        }
    }
}
