package dev.verbatim.transport.internal;

import dev.verbatim.transport.TransportException;
import dev.verbatim.transport.TransportException.Reason;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * Where {@code shm} connections keep their files: a directory only its owner can enter, so every file in it is
 * private whatever its own mode. Which directory, in this order:
 * <ol>
 *   <li>the system property {@code verbatim.shm.dir}, if set (created owner-only if missing);</li>
 *   <li>{@code $XDG_RUNTIME_DIR/verbatim}, where the system gives the user a runtime directory (systemd's
 *       {@code /run/user/UID}: memory-backed, owned by the user, mode 0700, so no other user can create or
 *       replace anything in it); used only if that directory is owned by this user and mode 0700;</li>
 *   <li>{@code /dev/shm/verbatim-UID} (UID the numeric user id; the temporary directory where there is no
 *       writable {@code /dev/shm}). {@code /dev/shm} is shared by every user, so another user could create that
 *       name first: a directory there that is not owned by this user is refused (a {@link TransportException}
 *       with reason {@code IO} naming its owner and the two ways out above), never used; one of this user's with
 *       a wider mode is set back to 0700.</li>
 * </ol>
 * Both sides of a connection must use the same directory. A process without {@code XDG_RUNTIME_DIR} (a system
 * service, a cron job) and a login shell with it would not; so a connector that finds no socket for the name in
 * its own directory looks in the other candidate ({@link #forConnect}) before it gives up.
 *
 * <p>The directory holds {@code NAME.sock} (a listener's Unix-domain socket), {@code NAME.lock} (locked by that
 * listener for its life: {@link ShmNameLock}) and, briefly, {@code NAME.PID.N.area} (a receive window between its
 * creation and the peer mapping it, after which it is unlinked: the mapping lives on, the name does not). Files
 * left by processes that died are removed by {@link #sweep}, which listeners and connectors run before they start.
 */
public final class ShmDirectory {
    private ShmDirectory() {}

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private static final Pattern AREA = Pattern.compile("[A-Za-z0-9._-]+\\.(\\d+)\\.\\d+\\.area");
    private static final Set<PosixFilePermission> OWNER_ONLY = EnumSet.of(PosixFilePermission.OWNER_READ,
            PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE);
    private static final AtomicLong SEQUENCE = new AtomicLong();
    private static final String LOCK = ".lock";

    /** Checks an {@code shm:NAME} name; returns it or throws {@link IllegalArgumentException}. */
    public static String checkName(String name) {
        if (!isName(name)) {
            throw new IllegalArgumentException("shm name '" + name + "' must be 1-64 characters of A-Z a-z 0-9 . _ - "
                    + "and not start with '.'");
        }
        return name;
    }

    /** The directory (see the class comment), created owner-only if missing; refuses one that others could enter. */
    public static Path directory() {
        return prepare(candidates(System.getProperty("verbatim.shm.dir"), System.getenv("XDG_RUNTIME_DIR"), sharedBase()).getFirst());
    }

    /**
     * The directory a connector to {@code name} uses: {@link #directory()}, unless the listener's socket is not
     * there but is in the other candidate directory (a listener started without, or with, {@code XDG_RUNTIME_DIR});
     * that one is checked the same way before it is used.
     */
    public static Path forConnect(String name) {
        List<Path> all = candidates(System.getProperty("verbatim.shm.dir"), System.getenv("XDG_RUNTIME_DIR"), sharedBase());
        Path first = prepare(all.getFirst());
        if (all.size() > 1 && !Files.exists(socket(first, name), LinkOption.NOFOLLOW_LINKS)) {
            Path other = all.get(1);
            if (Files.exists(socket(other, name), LinkOption.NOFOLLOW_LINKS)) {
                return prepare(other);
            }
        }
        return first;
    }

    /**
     * The candidate directories, best first: the configured one alone if there is one; else the runtime one (if
     * {@code xdgRuntimeDir} is this user's, mode 0700) and then {@code verbatim-UID} under {@code shared}.
     */
    static List<Path> candidates(String configured, String xdgRuntimeDir, Path shared) {
        if (configured != null && !configured.isBlank()) {
            return List.of(Path.of(configured));
        }
        Path fallback = shared.resolve("verbatim-" + uid());
        if (xdgRuntimeDir != null && !xdgRuntimeDir.isBlank() && Path.of(xdgRuntimeDir).isAbsolute()) {
            Path runtime = Path.of(xdgRuntimeDir);
            try {
                if (Files.isDirectory(runtime, LinkOption.NOFOLLOW_LINKS) && ownUid(runtime) == uid()
                        && Files.getPosixFilePermissions(runtime, LinkOption.NOFOLLOW_LINKS).equals(OWNER_ONLY)) {
                    return List.of(runtime.resolve("verbatim"), fallback);
                }
            } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
                // not a usable runtime directory: the shared one
            }
        }
        return List.of(fallback);
    }

    /** {@code /dev/shm}, or the temporary directory where there is no writable {@code /dev/shm}. */
    private static Path sharedBase() {
        Path base = Path.of("/dev/shm");
        return Files.isDirectory(base) && Files.isWritable(base) ? base : Path.of(System.getProperty("java.io.tmpdir"));
    }

    /** Creates {@code dir} owner-only if missing, and checks that it is a directory of this user's, mode 0700. */
    static Path prepare(Path dir) {
        try {
            if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                try {
                    Files.createDirectories(dir.getParent());
                    Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
                } catch (java.nio.file.FileAlreadyExistsException raced) {
                    // another process created it: checked below
                }
            }
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                throw new TransportException(Reason.IO, dir + " exists and is not a directory (a symbolic link or a file"
                        + " someone else made?); set -Dverbatim.shm.dir to a directory of your own");
            }
            int owner = ownUid(dir);
            if (owner != uid()) {
                throw new TransportException(Reason.IO, "the shm directory " + dir + " belongs to user "
                        + Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).getName() + " (uid " + owner + "), not to this user"
                        + " (uid " + uid() + "): another user created it first. Run with XDG_RUNTIME_DIR set to your runtime"
                        + " directory, or -Dverbatim.shm.dir=DIR (both sides), or have an administrator remove it");
            }
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS);
            if (!perms.equals(OWNER_ONLY)) {
                Files.setPosixFilePermissions(dir, OWNER_ONLY);
            }
            return dir;
        } catch (IOException | UnsupportedOperationException e) {
            throw new TransportException(Reason.IO, "cannot prepare the shm directory " + dir + ": " + e.getMessage(), e);
        }
    }

    private static volatile int uid = -1;

    /** This process's numeric user id (the owner of {@code /proc/self}, or of a file it creates). */
    static int uid() {
        int u = uid;
        if (u >= 0) return u;
        try {
            u = ownUid(Path.of("/proc/self"));
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            try {
                Path probe = Files.createTempFile("verbatim-uid", "");
                try {
                    u = ownUid(probe);
                } finally {
                    Files.deleteIfExists(probe);
                }
            } catch (IOException | UnsupportedOperationException | IllegalArgumentException e2) {
                throw new TransportException(Reason.IO, "cannot learn this process's user id: " + e2.getMessage(), e2);
            }
        }
        uid = u;
        return u;
    }

    /** The numeric owner of {@code p} (not following a last symbolic link, except for {@code /proc/self}). */
    private static int ownUid(Path p) throws IOException {
        LinkOption[] how = p.toString().equals("/proc/self") ? new LinkOption[0] : new LinkOption[] {LinkOption.NOFOLLOW_LINKS};
        return (Integer) Files.getAttribute(p, "unix:uid", how);
    }

    /** Whether {@code name} is a valid {@code shm:NAME} name. */
    static boolean isName(String name) {
        return NAME.matcher(name).matches() && !name.startsWith(".");
    }

    public static Path socket(Path dir, String name) {
        return dir.resolve(name + ".sock");
    }

    /** The file whose lock makes a listener the owner of {@code name} ({@link ShmNameLock}). */
    public static Path lockFile(Path dir, String name) {
        return dir.resolve(name + LOCK);
    }

    /** A fresh window file name for this process. */
    public static String newAreaName(String name) {
        return name + "." + ProcessHandle.current().pid() + "." + SEQUENCE.incrementAndGet() + ".area";
    }

    /**
     * Whether {@code file} names a window file that the process {@code pid} made for {@code shm:name}
     * ({@code name.pid.N.area}): what a connector accepts in a listener's welcome, so that it maps nothing else.
     */
    public static boolean isAreaNameOf(String file, String name, long pid) {
        String prefix = name + "." + pid + ".";
        return isAreaName(file) && file.startsWith(prefix)
                && file.substring(prefix.length(), file.length() - ".area".length()).chars().allMatch(Character::isDigit);
    }

    /** Whether {@code file} names a window file ({@code NAME.PID.N.area}). */
    public static boolean isAreaName(String file) {
        return AREA.matcher(file).matches();
    }

    /**
     * Removes what processes that died left: window files whose creating process is gone (a crash
     * between creating a window and the handshake that unlinks it), and every {@code NAME.lock} that
     * no process holds, with its {@code NAME.sock} if there is one (a listener that died, even by
     * SIGKILL; {@link ShmNameLock#sweep}); it never connects to a socket. Leaves a socket that has no
     * lock file (not made by this build: it may be a live listener of an older one) and every file
     * whose name is not one of these. Returns how many files it removed.
     */
    public static int sweep(Path dir) {
        int removed = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                String file = f.getFileName().toString();
                if (file.endsWith(LOCK)) {
                    String name = file.substring(0, file.length() - LOCK.length());
                    if (isName(name)) {
                        removed += ShmNameLock.sweep(dir, name);
                    }
                    continue;
                }
                var m = AREA.matcher(file);
                if (!m.matches()) {
                    continue;
                }
                long pid;
                try {
                    pid = Long.parseLong(m.group(1));
                } catch (NumberFormatException e) {
                    continue;
                }
                boolean alive = ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
                if (!alive && Files.deleteIfExists(f)) {
                    removed++;
                }
            }
        } catch (IOException e) {
            // best effort: a directory we cannot list has nothing of ours to clean
        }
        return removed;
    }
}
