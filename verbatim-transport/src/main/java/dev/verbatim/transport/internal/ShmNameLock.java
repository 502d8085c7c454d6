package dev.verbatim.transport.internal;

import dev.verbatim.transport.TransportException;
import dev.verbatim.transport.TransportException.Reason;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Who owns {@code shm:NAME}: the listener that holds a lock on {@code NAME.lock}, beside its
 * {@code NAME.sock}, for as long as it listens. The kernel drops the lock when the process dies,
 * SIGKILL included, so {@link #sweep} tells a dead listener's files from a live listener's without
 * connecting to its socket (which would show a live listener a connector that says nothing).
 *
 * <h2>Protocol</h2>
 * Two one-byte ranges of {@code NAME.lock} are locked ({@link FileChannel#tryLock(long, long, boolean)}:
 * POSIX record locks, which may lie beyond the end of the file; it stays empty):
 * <ul>
 *   <li>{@code LIFE} (byte 0): held by the owner from before its socket exists until its files are
 *       deleted, and by a sweeper while it deletes a dead owner's files.
 *   <li>{@code GATE} (byte 1): held briefly by whoever is deciding about the name: a listener while
 *       it claims the name, a sweeper while it checks and deletes.
 * </ul>
 * <ol>
 *   <li>Only a process that holds {@code LIFE} on the file linked at {@code NAME.lock}, having
 *       checked <em>after</em> locking that it is still linked there, binds {@code NAME.sock} or
 *       unlinks {@code NAME.sock} or {@code NAME.lock}. A locked file stays linked until its holder
 *       unlinks it, so at most one process owns the name at a time, and nobody else deletes a live
 *       owner's socket or lock file.
 *   <li>An owner (closing) and a sweeper delete {@code NAME.sock} first, then {@code NAME.lock},
 *       and release {@code LIFE} last. Deleting under the lock: a process that opened the file before
 *       the unlink and locks it after the release holds a lock on a file of no name, which its check
 *       (1) catches; it starts again with the file now at the path. Releasing first would let a new
 *       listener lock and check the file and then have it deleted under it. Socket first: a socket of
 *       this build never exists without its lock file, and a crash in between leaves only a lock file
 *       without a holder, which the next sweep removes.
 *   <li>A listener takes {@code GATE}, then {@code LIFE}; a sweeper too, and it takes {@code LIFE}
 *       only while holding {@code GATE}. So a listener that holds {@code GATE} and finds
 *       {@code LIFE} held on the linked file knows the holder is an owner, not a sweep passing by:
 *       it fails at once with {@code CONNECT} ("already served"). One that finds {@code GATE} held
 *       waits (1 ms steps, up to its connect timeout: {@code TIMEOUT}); a sweeper that finds either
 *       held moves on.
 *   <li>The check of (1): Java gives no {@code fstat} of a channel, so a second channel is opened on
 *       the path and asked for {@code GATE}. The JVM's lock table throws
 *       {@link OverlappingFileLockException} exactly when that channel's file (device and inode) is
 *       the one this process holds {@code GATE} on. An owner keeps that second channel open for its
 *       life (see 5).
 *   <li>POSIX record locks belong to the process, and closing any descriptor of a file drops all of
 *       the process's locks on it. So in this process every open of a lock file happens under one
 *       lock and never on a file an owner of this process holds (their file keys are kept, and a
 *       path is looked up before it is opened): a second listen at a name served here fails without
 *       opening the file, a sweep skips it. Nothing else may open a lock file while its owner lives.
 * </ol>
 * Interleavings at one name (P, Q listeners, S a sweeper, each possibly in its own process): P and Q
 * both open the file; whichever takes {@code GATE} second waits, then finds {@code LIFE} held and
 * fails (or, if the first gave up, claims the name). P closes while Q claims: Q either finds
 * {@code LIFE} held on the still-linked file (fails: P was live) or finds the file unlinked after
 * locking it (starts again, and gets a fresh file). S and Q: Q waits while S holds {@code GATE}; if
 * S deleted the file meanwhile, Q's check fails and it starts again; S holds {@code LIFE} only
 * inside {@code GATE}, and Q looks at {@code LIFE} only inside {@code GATE}, so Q never mistakes S
 * for an owner. S and a live owner P: S finds {@code LIFE} held and leaves. A listener that died holding the lock left it to the kernel, which released
 * it: its files are a sweep's or the next owner's (who deletes a socket it finds once it owns the
 * name). A {@code NAME.sock} without {@code NAME.lock} was not made by this build (see (2)): a sweep
 * leaves it (it may be a live listener of an older build, and telling would take a connect); the next
 * owner of the name replaces it.
 *
 * <p>Thread-safe; every lock-file operation of the process is serialised.
 */
final class ShmNameLock implements AutoCloseable {
    private static final long LIFE = 0;
    private static final long GATE = 1;
    private static final Set<OpenOption> OPEN = Set.of(StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
    private static final Set<OpenOption> CREATE = Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            LinkOption.NOFOLLOW_LINKS);
    private static final FileAttribute<Set<PosixFilePermission>> OWNER_ONLY = PosixFilePermissions.asFileAttribute(
            EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE));

    /**
     * Serialises every open and close of a lock file in this process (rule 5). Fair: threads that
     * sweep often (every connect sweeps) must not starve a listen or a close.
     */
    private static final ReentrantLock MONITOR = new ReentrantLock(true);
    /** The file keys of the lock files owners of this process hold. Guarded by {@link #MONITOR}. */
    private static final Set<Object> HELD = new HashSet<>();

    private final Path socket;
    private final Path lockFile;
    private final Object key;
    /** Holds {@code LIFE}. */
    private final FileChannel channel;
    /** The check's channel on the same file: closing it would drop the lock, so it lives as long. */
    private final FileChannel probe;
    /** Guarded by {@link #MONITOR}. */
    private boolean closed;

    private ShmNameLock(Path socket, Path lockFile, Object key, FileChannel channel, FileChannel probe) {
        this.socket = socket;
        this.lockFile = lockFile;
        this.key = key;
        this.channel = channel;
        this.probe = probe;
    }

    /**
     * Makes this process the owner of {@code shm:NAME} in {@code dir}, deleting a socket left by a
     * previous owner; the caller then binds {@code NAME.sock} and {@link #close()}s when it stops.
     *
     * @throws TransportException {@code CONNECT} if a live listener serves the name, {@code TIMEOUT}
     *         if other processes kept its lock file busy past the deadline ({@link System#nanoTime()}),
     *         {@code IO} if the file cannot be created or locked
     */
    static ShmNameLock acquire(Path dir, String name, long deadline) {
        Path socket = ShmDirectory.socket(dir, name);
        Path lockFile = ShmDirectory.lockFile(dir, name);
        while (true) {
            ShmNameLock owner;
            MONITOR.lock();
            try {
                owner = tryAcquire(name, socket, lockFile);
            } catch (IOException e) {
                throw new TransportException(Reason.IO, "cannot lock " + lockFile + " for shm:" + name + ": " + e.getMessage(), e);
            } finally {
                MONITOR.unlock();
            }
            if (owner != null) {
                return owner;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new TransportException(Reason.TIMEOUT, "shm:" + name + ": other processes kept " + lockFile
                        + " busy until the connect timeout (a sweep or a listen that does not finish)");
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new TransportException(Reason.CLOSED, "interrupted while claiming shm:" + name);
            }
        }
    }

    /** One attempt; null if another process is deciding about the name or the file changed: try again. */
    private static ShmNameLock tryAcquire(String name, Path socket, Path lockFile) throws IOException {
        Object before = fileKey(lockFile);
        if (before != null && HELD.contains(before)) {
            throw served(name, " (of this process)");
        }
        FileChannel channel = FileChannel.open(lockFile, CREATE, OWNER_ONLY);
        FileChannel probe = null;
        try {
            FileLock gate = channel.tryLock(GATE, 1, false);
            if (gate == null) {
                return null; // a sweep or another listen is deciding about the name
            }
            FileLock life = channel.tryLock(LIFE, 1, false);
            probe = probeSameFile(lockFile);
            if (probe == null) {
                return null; // unlinked since we opened it (by an owner closing or a sweeper): the file now there
            }
            if (life == null) {
                throw served(name, ""); // not a sweeper: they hold LIFE only with GATE, which is ours
            }
            Files.deleteIfExists(socket); // we own the name: a socket here was left by a previous owner
            gate.release();
            Object key = fileKey(lockFile); // ours, linked, and it stays so
            HELD.add(key);
            ShmNameLock owner = new ShmNameLock(socket, lockFile, key, channel, probe);
            channel = null;
            probe = null;
            return owner;
        } finally {
            ChannelIO.closeQuietly(probe);
            ChannelIO.closeQuietly(channel);
        }
    }

    private static TransportException served(String name, String where) {
        return new TransportException(Reason.CONNECT, "shm:" + name + " is already served by a live listener" + where);
    }

    /**
     * A channel on the file now at {@code lockFile} if it is the file this process holds
     * {@code GATE} on (the caller keeps it open as long as the lock), else null (rule 4).
     */
    private static FileChannel probeSameFile(Path lockFile) throws IOException {
        FileChannel probe;
        try {
            probe = FileChannel.open(lockFile, OPEN);
        } catch (NoSuchFileException gone) {
            return null;
        }
        try {
            probe.tryLock(GATE, 1, false); // another file: whatever this took, the close below gives back
        } catch (OverlappingFileLockException same) {
            return probe;
        } catch (IOException | RuntimeException e) {
            probe.close(); // not the same file either (the same would have overlapped before any system call)
            throw e;
        }
        probe.close();
        return null;
    }

    /**
     * Removes {@code NAME.sock} and {@code NAME.lock} if nobody holds the lock (its owner died, or
     * died while closing); leaves them if it is held or busy. Returns how many files it removed.
     */
    static int sweep(Path dir, String name) {
        Path lockFile = ShmDirectory.lockFile(dir, name);
        MONITOR.lock();
        FileChannel channel = null;
        FileChannel probe = null;
        try {
            Object key = fileKey(lockFile);
            if (key == null || HELD.contains(key)) {
                return 0;
            }
            channel = FileChannel.open(lockFile, OPEN);
            if (channel.tryLock(GATE, 1, false) == null || channel.tryLock(LIFE, 1, false) == null) {
                return 0; // someone is deciding about the name, or it has a live owner
            }
            probe = probeSameFile(lockFile);
            if (probe == null) {
                return 0; // deleted meanwhile by whoever held it
            }
            // We hold GATE and LIFE on the file now at the path: no live owner (it would hold LIFE), and none can
            // appear (a listener needs GATE, then LIFE, then the same check), so a socket here was bound by an
            // owner that is gone. Rule 2: the socket, then the lock file, then (closing the channels) the lock.
            // A listener that opened the file before we unlink it gets the lock only after the release, finds the
            // file unlinked and starts again with a fresh one; it cannot bind before we are done, and we touch
            // nothing after the release, so nothing of a new owner is deleted.
            int removed = Files.deleteIfExists(ShmDirectory.socket(dir, name)) ? 1 : 0;
            return removed + (Files.deleteIfExists(lockFile) ? 1 : 0);
        } catch (IOException e) {
            return 0; // best effort: gone already, or not a file we can lock
        } finally {
            ChannelIO.closeQuietly(probe);
            ChannelIO.closeQuietly(channel);
            MONITOR.unlock();
        }
    }

    /** Deletes {@code NAME.sock}, then {@code NAME.lock}, then releases the lock (rule 2). Idempotent. */
    @Override
    public void close() {
        MONITOR.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            try {
                Files.deleteIfExists(socket);
                Files.deleteIfExists(lockFile);
            } catch (IOException e) {
                // what is left has no holder once we release: the next sweep or owner removes it
            }
            HELD.remove(key);
            ChannelIO.closeQuietly(probe);
            ChannelIO.closeQuietly(channel);
        } finally {
            MONITOR.unlock();
        }
    }

    private static Object fileKey(Path p) throws IOException {
        try {
            return Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
        } catch (NoSuchFileException e) {
            return null;
        }
    }
}
