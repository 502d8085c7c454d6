package dev.verbatim.wire.file;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;

/**
 * The single-writer lock of a log, and the reservation of its space on the device.
 *
 * <p><b>Why not {@link FileChannel#tryLock()}.</b> The JDK's file locks are POSIX record locks, which belong to
 * the process: closing <em>any</em> descriptor of the file in the process drops them, so opening and closing a
 * {@link WireLog} on the log in the writer's own process (or anything else reading it) would let a second process
 * open a second writer. On Linux this class takes an <em>open file description</em> lock instead
 * ({@code fcntl(F_OFD_SETLK)}, Linux 3.15 and later) on a descriptor of its own, opened with {@code open(2)}
 * through an FFM downcall: the lock belongs to that descriptor and lasts until {@link #close()} (or the process
 * dies), whatever else the process opens or closes. OFD locks and POSIX locks on the same file conflict, so a
 * writer of an older build (which took a POSIX lock) and a writer of this one still exclude each other.
 *
 * <p>The downcalls are restricted methods: they are used only when native access is enabled for this module
 * ({@code --enable-native-access=dev.verbatim.wire}, or {@code ALL-UNNAMED} on the class path), so that a JVM
 * without it sees neither a warning nor an {@link IllegalCallerException}. Without it (or on another OS) this
 * falls back to {@link FileChannel#tryLock()} with the weakness above ({@link #ownDescription()} says which), and
 * reserves space by writing zeros.
 *
 * <p><b>Reservation.</b> {@link #reserve} allocates the file's blocks ({@code posix_fallocate(3)}, or writing
 * zeros where there is no downcall), so that writing through a mapping of the file never needs a block the
 * device no longer has: a full device is an {@link IOException} when the log is created or opened, not a
 * {@code SIGBUS} (an {@link InternalError} from the JDK) in the middle of an append.
 *
 * <p>Not thread-safe: owned by one {@link WireLogWriter}.
 */
final class LogLock implements AutoCloseable {
    private static final int O_RDWR = 2;
    private static final int O_CLOEXEC = 0x80000;
    private static final int F_OFD_SETLK = 37;
    private static final short F_WRLCK = 1;
    private static final int EACCES = 13;
    private static final int EAGAIN = 11;
    private static final int EINVAL = 22;
    private static final int ENOSPC = 28;
    private static final int EOPNOTSUPP = 95;

    /** {@code struct flock} on Linux (x86-64, AArch64, RISC-V: the generic layout). */
    private static final StructLayout FLOCK = MemoryLayout.structLayout(
            ValueLayout.JAVA_SHORT.withName("l_type"), ValueLayout.JAVA_SHORT.withName("l_whence"),
            MemoryLayout.paddingLayout(4),
            ValueLayout.JAVA_LONG.withName("l_start"), ValueLayout.JAVA_LONG.withName("l_len"),
            ValueLayout.JAVA_INT.withName("l_pid"), MemoryLayout.paddingLayout(4));

    private static final Native NATIVE = Native.link();
    private static final int LOCKED = 1, HELD = 0, NO_OFD = -1;

    private final Path path;
    /** The descriptor holding the OFD lock, or -1 with the fallback. */
    private final int fd;
    private final FileChannel channel;
    private final FileLock fallback;
    private boolean closed;

    private LogLock(Path path, int fd, FileChannel channel, FileLock fallback) {
        this.path = path;
        this.fd = fd;
        this.channel = channel;
        this.fallback = fallback;
    }

    /**
     * Takes the writer's lock on {@code file}.
     *
     * @throws IllegalStateException if another writer (in this process or another) holds it
     * @throws IOException if the file cannot be opened or locked
     */
    static LogLock acquire(Path file) throws IOException {
        if (NATIVE != null) {
            int fd = NATIVE.open(file);
            int r;
            try {
                r = NATIVE.lockOfd(fd);
                if (r == LOCKED) return new LogLock(file, fd, null, null);
            } catch (IOException | RuntimeException e) {
                NATIVE.close(fd);
                throw e;
            }
            NATIVE.close(fd);
            if (r == HELD) throw held(file);
            // NO_OFD: a kernel before Linux 3.15; the JDK's lock below
        }
        FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = ch.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
        if (lock == null) {
            ch.close();
            throw held(file);
        }
        return new LogLock(file, -1, ch, lock);
    }

    private static IllegalStateException held(Path file) {
        return new IllegalStateException("log " + file + " is open for writing elsewhere");
    }

    /** Whether the lock belongs to a descriptor of its own (an OFD lock), not to the process (a POSIX lock). */
    boolean ownDescription() { return fd >= 0; }

    /**
     * Makes sure the file's first {@code length} bytes have blocks on the device: {@code posix_fallocate} with the
     * downcall (cheap: it allocates what is missing and writes nothing). Without it, only a new file is reserved
     * ({@code fresh}: zeros written over it all, which allocates its blocks); an existing log is not rewritten at
     * every open, and a log of an older build that is still sparse can then meet a full device in
     * {@link WireLogWriter#append} (an {@link IOException} there).
     *
     * @throws IOException if the device has no room ({@code ENOSPC}) or the file cannot be written
     */
    void reserve(long length, boolean fresh) throws IOException {
        if (fd >= 0 && NATIVE.fallocate != null) {
            int error = NATIVE.fallocate(fd, length);
            if (error == 0) return;
            if (error != EOPNOTSUPP && error != EINVAL) {
                throw new IOException("cannot reserve " + length + " bytes for the log " + path + " (errno " + error
                        + (error == ENOSPC ? ": no space left on the device)" : ")"));
            }
        }
        if (!fresh) return;
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.WRITE)) {
            ByteBuffer zeros = ByteBuffer.allocate(1 << 20);
            for (long at = 0; at < length; ) {
                zeros.clear().limit((int) Math.min(zeros.capacity(), length - at));
                at += ch.write(zeros, at);
            }
        }
    }

    /** Releases the lock; idempotent. */
    @Override
    public void close() throws IOException {
        if (closed) return;
        closed = true;
        if (fd >= 0) {
            NATIVE.close(fd);
        } else {
            try {
                fallback.release();
            } finally {
                channel.close();
            }
        }
    }

    /** The C library calls, linked once; {@code null} where they are not available. */
    private record Native(MethodHandle open, MethodHandle close, MethodHandle fcntl, MethodHandle fallocate,
                          StructLayout state, VarHandle errno) {
        @SuppressWarnings("restricted") // downcalls: the launcher and the tests run with --enable-native-access
        static Native link() {
            String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
            // without native access granted to this module, no restricted call: no warning, no IllegalCallerException
            if (!os.contains("linux") || !LogLock.class.getModule().isNativeAccessEnabled()) return null;
            try {
                Linker linker = Linker.nativeLinker();
                var lookup = linker.defaultLookup();
                Linker.Option errno = Linker.Option.captureCallState("errno");
                StructLayout state = Linker.Option.captureStateLayout();
                MethodHandle open = linker.downcallHandle(lookup.find("open").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT),
                        Linker.Option.firstVariadicArg(2), errno);
                MethodHandle close = linker.downcallHandle(lookup.find("close").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
                MethodHandle fcntl = linker.downcallHandle(lookup.find("fcntl").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS),
                        Linker.Option.firstVariadicArg(2), errno);
                MethodHandle fallocate = lookup.find("posix_fallocate").map(s -> linker.downcallHandle(s,
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG)))
                        .orElse(null);
                return new Native(open, close, fcntl, fallocate, state,
                        state.varHandle(MemoryLayout.PathElement.groupElement("errno")));
            } catch (RuntimeException | Error e) {
                return null;
            }
        }

        int open(Path file) throws IOException {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment st = arena.allocate(state);
                int fd = (int) open.invokeExact(st, arena.allocateFrom(file.toString()), O_RDWR | O_CLOEXEC, 0);
                if (fd < 0) {
                    int e = (int) errno.get(st, 0L);
                    if (e == 2) throw new java.nio.file.NoSuchFileException(file.toString());
                    throw new IOException("cannot open the log " + file + " (errno " + e + ")");
                }
                return fd;
            } catch (IOException | RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        }

        /** Takes a whole-file OFD write lock without waiting: {@link #LOCKED}, {@link #HELD} (by another description) or {@link #NO_OFD}. */
        int lockOfd(int fd) throws IOException {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment st = arena.allocate(state);
                MemorySegment fl = arena.allocate(FLOCK); // zeroed: l_whence SEEK_SET, l_start 0, l_len 0 (all), l_pid 0
                fl.set(ValueLayout.JAVA_SHORT, 0, F_WRLCK);
                int r = (int) fcntl.invokeExact(st, fd, F_OFD_SETLK, fl);
                if (r == 0) return LOCKED;
                int e = (int) errno.get(st, 0L);
                if (e == EACCES || e == EAGAIN) return HELD;
                if (e == EINVAL) return NO_OFD;
                throw new IOException("cannot lock the log (fcntl F_OFD_SETLK, errno " + e + ")");
            } catch (IOException | RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        }

        /** {@code posix_fallocate(fd, 0, length)}: 0, or the error number. */
        int fallocate(int fd, long length) {
            try {
                return (int) fallocate.invokeExact(fd, 0L, length);
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        }

        void close(int fd) {
            try {
                int ignored = (int) close.invokeExact(fd);
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        }
    }
}
