package dev.verbatim.bench.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A run's private directory under {@code /dev/shm} (or the temporary directory where there is
 * none), owner-only, with one owner-only directory per contender below it. Used as a resource by a
 * suite's run: {@link #close()} ends every child process still up ({@link ChildProcess#closeAll()}),
 * then deletes the tree; a shutdown hook deletes it too if the JVM exits first (Ctrl-C). Used by one
 * thread.
 */
public final class ScratchDir implements AutoCloseable {
    private static final AtomicInteger RUNS = new AtomicInteger();
    private static final String OWNER_ONLY = "rwx------";

    private final Path path;
    private final Thread cleaner;

    private ScratchDir(Path path) {
        this.path = path;
        this.cleaner = new Thread(() -> deleteTree(path), "verbatim-bench-cleanup");
        Runtime.getRuntime().addShutdownHook(cleaner);
    }

    /** A new private directory for a run, deleted at {@link #close()} or when the JVM exits. */
    public static ScratchDir create() throws IOException {
        return new ScratchDir(privateDir());
    }

    public Path path() {
        return path;
    }

    /** Ends every child process still up, deletes the directory, drops the shutdown hook. */
    @Override
    public void close() {
        ChildProcess.closeAll();
        deleteTree(path);
        try {
            Runtime.getRuntime().removeShutdownHook(cleaner);
        } catch (IllegalStateException e) {
            // shutting down already
        }
    }

    /** A number unique in this JVM, for directory and shm names. */
    static int nextRun() {
        return RUNS.incrementAndGet();
    }

    /** A new owner-only directory under /dev/shm (or the temporary directory where there is none). */
    public static Path privateDir() throws IOException {
        Path shm = Path.of("/dev/shm");
        Path parent = Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
        return Files.createTempDirectory(parent, "verbatim-bench-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(OWNER_ONLY)));
    }

    /** A new owner-only directory for one contender's run under {@code base}. */
    public static Path sessionDir(Path base, String id) throws IOException {
        return Files.createDirectory(base.resolve(id.replace('/', '-') + "-" + nextRun()),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(OWNER_ONLY)));
    }

    /** Deletes {@code root} and everything under it; quiet about what is already gone. */
    public static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    // reported below if the root survives
                }
            });
        } catch (IOException e) {
            // fall through
        }
        if (Files.exists(root)) {
            System.err.println("verbatim bench: could not delete " + root);
        }
    }
}
