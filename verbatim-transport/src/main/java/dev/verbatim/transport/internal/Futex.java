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
 * Sleeping and waking on a 32-bit word of shared memory across processes: Linux {@code futex(2)}
 * called through an FFM downcall to {@code syscall} (no JNI). Shared (not {@code _PRIVATE})
 * operations, so a waiter in one process is woken by a store and wake in another, which maps the
 * same file. Where there is no futex (another OS or architecture) {@link #await} sleeps for a short
 * bounded time instead, so waiting stays correct and cheap, only with more wake-up latency.
 * Thread-safe, stateless.
 */
public final class Futex {
    private Futex() {}

    private static final int FUTEX_WAIT = 0;
    private static final int FUTEX_WAKE = 1;
    private static final long SYS_FUTEX;
    private static final MethodHandle SYSCALL;

    static {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        long number = !os.contains("linux") ? -1
                : arch.equals("amd64") || arch.equals("x86_64") ? 202
                : arch.equals("aarch64") || arch.equals("arm64") ? 98
                : arch.equals("riscv64") ? 98
                : -1;
        MethodHandle handle = number > 0 ? link() : null;
        SYSCALL = handle;
        SYS_FUTEX = handle == null ? -1 : number;
    }

    @SuppressWarnings("restricted") // a downcall: the launcher and tests run with --enable-native-access
    private static MethodHandle link() {
        try {
            Linker linker = Linker.nativeLinker();
            MemorySegment symbol = linker.defaultLookup().find("syscall").orElse(null);
            if (symbol == null) {
                return null;
            }
            return linker.downcallHandle(symbol,
                    FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS,
                            ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS,
                            ValueLayout.ADDRESS, ValueLayout.JAVA_LONG),
                    Linker.Option.firstVariadicArg(1));
        } catch (RuntimeException | Error e) {
            return null;
        }
    }

    /** Whether real futex calls are used (else {@link #await} is a bounded sleep). */
    public static boolean available() {
        return SYSCALL != null;
    }

    /**
     * Sleeps while the word at {@code offset} of {@code memory} (native, 4-byte aligned) holds
     * {@code expected}, for at most {@code nanos}; returns early on a wake, a signal, or a value
     * change. Callers re-check their condition: spurious returns are allowed.
     */
    public static void await(MemorySegment memory, long offset, int expected, long nanos) {
        if (nanos <= 0) {
            return;
        }
        if (SYSCALL == null) {
            LockSupport.parkNanos(Math.min(nanos, 1_000_000));
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment timespec = arena.allocate(16, 8);
            timespec.set(ValueLayout.JAVA_LONG, 0, nanos / 1_000_000_000L);
            timespec.set(ValueLayout.JAVA_LONG, 8, nanos % 1_000_000_000L);
            long unused = (long) SYSCALL.invokeExact(SYS_FUTEX, memory.asSlice(offset, 4), (long) FUTEX_WAIT,
                    (long) expected, timespec, MemorySegment.NULL, 0L);
        } catch (Throwable t) {
            throw failure(t);
        }
    }

    /** Wakes up to {@code count} threads (in any process) sleeping on the word. */
    public static void wake(MemorySegment memory, long offset, int count) {
        if (SYSCALL == null) {
            return;
        }
        try {
            long unused = (long) SYSCALL.invokeExact(SYS_FUTEX, memory.asSlice(offset, 4), (long) FUTEX_WAKE,
                    (long) count, MemorySegment.NULL, MemorySegment.NULL, 0L);
        } catch (Throwable t) {
            throw failure(t);
        }
    }

    private static RuntimeException failure(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException("futex call failed", t);
    }
}
