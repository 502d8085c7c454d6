package dev.verbatim.transport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A shm directory of a test's own: {@link #install} points {@code verbatim.shm.dir} at a fresh
 * path under {@code /dev/shm} (or the temporary directory), {@link #remove} restores the property
 * as it was and deletes the directory with everything in it.
 */
public final class ShmTestDirectory {
    private final Path path;
    private final String previous;

    private ShmTestDirectory(Path path, String previous) {
        this.path = path;
        this.previous = previous;
    }

    /** Uses {@code NAME} (a unique name; the pid is a good part of it) as this JVM's shm directory. */
    public static ShmTestDirectory install(String name) {
        Path base = Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm") : Path.of(System.getProperty("java.io.tmpdir"));
        Path path = base.resolve(name);
        return new ShmTestDirectory(path, System.setProperty("verbatim.shm.dir", path.toString()));
    }

    /** The directory (created by the transport on first use). */
    public Path path() {
        return path;
    }

    /** Restores the previous {@code verbatim.shm.dir}, then deletes the directory and all in it. */
    public void remove() throws IOException {
        if (previous == null) {
            System.clearProperty("verbatim.shm.dir");
        } else {
            System.setProperty("verbatim.shm.dir", previous);
        }
        try (Stream<Path> files = Files.walk(path)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
