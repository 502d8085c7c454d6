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
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * Where {@code shm} connections keep their files: {@code /dev/shm/verbatim-USER/} (or the system
 * property {@code verbatim.shm.dir}), a directory only its owner can enter, so every file in it is
 * private whatever its own mode. It holds {@code NAME.sock} (a listener's Unix-domain socket),
 * {@code NAME.lock} (locked by that listener for its life: {@link ShmNameLock}) and, briefly,
 * {@code NAME.PID.N.area} (a receive window between its creation and the peer mapping it, after
 * which it is unlinked: the mapping lives on, the name does not). Files left by processes that died
 * are removed by {@link #sweep}, which listeners and connectors run before they start.
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

    /** The directory, created owner-only if missing; refuses one that others could enter. */
    public static Path directory() {
        String configured = System.getProperty("verbatim.shm.dir");
        Path dir;
        if (configured != null && !configured.isBlank()) {
            dir = Path.of(configured);
        } else {
            Path base = Path.of("/dev/shm");
            if (!Files.isDirectory(base) || !Files.isWritable(base)) {
                base = Path.of(System.getProperty("java.io.tmpdir"));
            }
            String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9._-]", "_");
            dir = base.resolve("verbatim-" + user);
        }
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
                throw new TransportException(Reason.IO, dir + " exists and is not a directory");
            }
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS);
            String owner = Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).getName();
            if (!owner.equals(System.getProperty("user.name"))) {
                throw new TransportException(Reason.IO, dir + " belongs to " + owner + ", not to this user");
            }
            if (!perms.equals(OWNER_ONLY)) {
                Files.setPosixFilePermissions(dir, OWNER_ONLY);
            }
            return dir;
        } catch (IOException | UnsupportedOperationException e) {
            throw new TransportException(Reason.IO, "cannot prepare the shm directory " + dir + ": " + e.getMessage(), e);
        }
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
