package dev.verbatim.transport.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;

/**
 * A tcp connection's receive window: zeroed memory whose pages the operating system provides only
 * when first touched, so an idle connection's window costs address space, not resident memory
 * (a 16 MiB window of which a connection used 64 KiB costs about 64 KiB). On Linux it is an anonymous
 * private mapping ({@code mmap(MAP_PRIVATE | MAP_ANONYMOUS)} through an FFM downcall; the kernel's
 * zero pages are read-only shared ones until written) when native access is enabled for this module
 * ({@code --enable-native-access}, as the launcher and the tests do); elsewhere, or without it (a
 * downcall would print the JDK's warning), an ordinary off-heap allocation, which the JDK zeroes at
 * once. A file mapping in {@code /dev/shm} would need no native access, but touching its pages past
 * the size of that file system (64 MiB in a default container) is a SIGBUS. Both start all zero, which the record
 * protocol needs (docs/transport.md §2). The memory belongs to a shared arena: after
 * {@link #release()} every access throws instead of touching unmapped memory.
 */
final class LazyWindow {
    private static final int PROT_READ_WRITE = 0x3;
    private static final int MAP_PRIVATE_ANONYMOUS = 0x02 | 0x20;
    private static final MethodHandle MMAP;
    private static final MethodHandle MUNMAP;

    static {
        MethodHandle[] h = link();
        MMAP = h == null ? null : h[0];
        MUNMAP = h == null ? null : h[1];
    }

    @SuppressWarnings("restricted") // a downcall: the launcher and tests run with --enable-native-access
    private static MethodHandle[] link() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        if (!os.contains("linux") || !LazyWindow.class.getModule().isNativeAccessEnabled()) {
            return null; // the flag values are Linux's; without native access a downcall would print a warning
        }
        try {
            Linker linker = Linker.nativeLinker();
            MemorySegment mmap = linker.defaultLookup().find("mmap").orElse(null);
            MemorySegment munmap = linker.defaultLookup().find("munmap").orElse(null);
            if (mmap == null || munmap == null) {
                return null;
            }
            return new MethodHandle[] {
                    linker.downcallHandle(mmap, FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                            ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                            ValueLayout.JAVA_LONG)),
                    linker.downcallHandle(munmap, FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                            ValueLayout.JAVA_LONG))
            };
        } catch (RuntimeException | Error e) {
            return null;
        }
    }

    private final Arena arena = Arena.ofShared();
    private final MemorySegment segment;

    LazyWindow(long size) {
        MemorySegment s = MMAP == null ? null : map(size, arena);
        this.segment = s != null ? s : arena.allocate(size, 4096);
    }

    /** Whether windows are mapped lazily here (else allocated and zeroed at once). */
    static boolean lazy() {
        return MMAP != null;
    }

    @SuppressWarnings("restricted") // reinterpret: the mapping is exactly size bytes, unmapped by the arena
    private static MemorySegment map(long size, Arena arena) {
        long address;
        try {
            address = (long) MMAP.invokeExact(0L, size, PROT_READ_WRITE, MAP_PRIVATE_ANONYMOUS, -1, 0L);
        } catch (Throwable t) {
            return null;
        }
        if (address == -1L || address == 0L) {
            return null; // MAP_FAILED: the ordinary allocation reports the shortage, if it is one
        }
        return MemorySegment.ofAddress(address).reinterpret(size, arena, s -> unmap(address, size));
    }

    private static void unmap(long address, long size) {
        try {
            int unused = (int) MUNMAP.invokeExact(address, size);
        } catch (Throwable ignored) {
            // nothing to do: the address range leaks until the process ends
        }
    }

    MemorySegment segment() {
        return segment;
    }

    /**
     * Frees the window. Waits while a native operation (a socket read into it) holds it, which the
     * connection's pump lock already rules out; idempotent.
     */
    void release() {
        while (arena.scope().isAlive()) {
            try {
                arena.close();
                return;
            } catch (IllegalStateException busy) {
                LockSupport.parkNanos(100_000L);
            }
        }
    }
}
