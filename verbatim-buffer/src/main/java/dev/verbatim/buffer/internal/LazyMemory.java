package dev.verbatim.buffer.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;

/**
 * Memory the operating system commits page by page, on first touch, and can take back: anonymous
 * private mappings ({@code mmap}), pages given back ({@code madvise(MADV_DONTNEED)}: they read as zero
 * again) and counted ({@code mincore}), through FFM downcalls. The one place both users make them: the
 * transport's tcp receive window ({@code LazyWindow}, which gives back the pages of its free areas when
 * its connection goes idle) and J-RPC's streamed values ({@code StreamMemory}, reserved at the announced
 * size, paid for as bytes arrive).
 *
 * <p>Linux only, and only with native access for this module ({@code --enable-native-access}, as the
 * launcher and the tests give): without it a downcall would print the JDK's warning, so {@link #available()}
 * is false and callers allocate instead (zeroed at once, never given back).
 */
public final class LazyMemory {
    private static final int PROT_READ_WRITE = 0x1 | 0x2;
    private static final int MAP_PRIVATE_ANONYMOUS = 0x02 | 0x20;
    private static final int MAP_NORESERVE = 0x4000;
    private static final int MADV_DONTNEED = 4;
    /** The page size the calls below round to (4 KiB on the platforms this runs on; mincore's unit). */
    public static final long PAGE = 4096;
    private static final MethodHandle MMAP;
    private static final MethodHandle MUNMAP;
    private static final MethodHandle MADVISE;
    private static final MethodHandle MINCORE;

    static {
        MethodHandle[] h = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")
                && LazyMemory.class.getModule().isNativeAccessEnabled() ? link() : null;
        MMAP = h == null ? null : h[0];
        MUNMAP = h == null ? null : h[1];
        MADVISE = h == null ? null : h[2];
        MINCORE = h == null ? null : h[3];
    }

    private LazyMemory() {}

    @SuppressWarnings("restricted") // downcalls: the launcher and tests run with --enable-native-access
    private static MethodHandle[] link() {
        try {
            Linker linker = Linker.nativeLinker();
            String[] names = {"mmap", "munmap", "madvise", "mincore"};
            MemorySegment[] f = new MemorySegment[names.length];
            for (int i = 0; i < names.length; i++) {
                f[i] = linker.defaultLookup().find(names[i]).orElse(null);
                if (f[i] == null) {
                    return null;
                }
            }
            ValueLayout.OfLong size = ValueLayout.JAVA_LONG;
            return new MethodHandle[] {
                    linker.downcallHandle(f[0], FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, size,
                            ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG)),
                    linker.downcallHandle(f[1], FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, size)),
                    linker.downcallHandle(f[2], FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, size,
                            ValueLayout.JAVA_INT)),
                    linker.downcallHandle(f[3], FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, size,
                            ValueLayout.ADDRESS))};
        } catch (RuntimeException | Error e) {
            return null;
        }
    }

    /** Whether {@link #map} can map (else it returns null and callers allocate). */
    public static boolean available() {
        return MMAP != null;
    }

    /**
     * {@code size} bytes of zeroed memory, committed page by page on first touch, unmapped when
     * {@code arena} closes; null if mapping is not {@link #available()} or failed. {@code noReserve}: no swap
     * is reserved either ({@code MAP_NORESERVE}: for sizes a peer announced, which may never be filled).
     */
    @SuppressWarnings("restricted") // reinterpret: the mapping is exactly size bytes, unmapped by the arena
    public static MemorySegment map(long size, Arena arena, boolean noReserve) {
        if (MMAP == null) {
            return null;
        }
        long address;
        try {
            address = (long) MMAP.invokeExact(0L, size, PROT_READ_WRITE,
                    MAP_PRIVATE_ANONYMOUS | (noReserve ? MAP_NORESERVE : 0), -1, 0L);
        } catch (Throwable t) {
            return null;
        }
        if (address == -1L || address == 0L) {
            return null; // MAP_FAILED: the caller's allocation reports the shortage, if it is one
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

    /**
     * Gives the whole pages within {@code part} (of a segment {@link #map} made) back to the operating
     * system: they cost nothing until touched again, and read as zero then. The caller guarantees nobody
     * uses those bytes meanwhile. False if nothing was given back (not mapped here, or less than a page).
     */
    public static boolean giveBack(MemorySegment part) {
        if (MADVISE == null || !part.isNative()) {
            return false;
        }
        long start = (part.address() + PAGE - 1) & -PAGE;
        long end = (part.address() + part.byteSize()) & -PAGE;
        if (end <= start) {
            return false;
        }
        try {
            return (int) MADVISE.invokeExact(start, end - start, MADV_DONTNEED) == 0;
        } catch (Throwable t) {
            return false;
        }
    }

    /** The bytes of {@code part}'s pages that are resident now ({@code mincore}); -1 if it cannot tell. */
    public static long residentBytes(MemorySegment part) {
        if (MINCORE == null || !part.isNative()) {
            return -1;
        }
        long start = part.address() & -PAGE;
        long end = (part.address() + part.byteSize() + PAGE - 1) & -PAGE;
        int pages = (int) ((end - start) / PAGE);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment vec = a.allocate(pages);
            if ((int) MINCORE.invokeExact(start, end - start, vec) != 0) {
                return -1;
            }
            long n = 0;
            for (int i = 0; i < pages; i++) {
                n += vec.get(ValueLayout.JAVA_BYTE, i) & 1;
            }
            return n * PAGE;
        } catch (Throwable t) {
            return -1;
        }
    }
}
