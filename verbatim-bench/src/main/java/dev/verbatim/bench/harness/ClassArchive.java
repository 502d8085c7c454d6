package dev.verbatim.bench.harness;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * One class-data archive (CDS, {@code -XX:SharedArchiveFile}) of the JDK's and the libraries' classes that a
 * suite's children load, for a suite that starts many JVMs ({@code bench rpc}: 34 for its contenders): a child
 * maps those classes from the archive instead of reading, parsing and verifying them from the jars again.
 * Only class loading changes: the code that runs, and so what a turn measures, is the same.
 *
 * <p>The archive holds no class of this project ({@code dev.verbatim}): its jars ({@code verbatim-*.jar}) go
 * last on the children's class path, after the libraries' jars, and the JVM checks the jars an archive was
 * made from (their sizes and times) but accepts a class path that continues after them. So the archive
 * outlives a rebuild of the project: it is made once per JDK and set of library jars (its file name carries
 * their {@link #fingerprint}). Made how: a run that finds none has every child write the names of the
 * classes it loads ({@code -XX:DumpLoadedClassList}); after that run {@link #make} joins the lists, leaves out
 * the project's classes and has one JVM write the archive ({@code -Xshare:dump}, a few seconds, once).
 *
 * <p>It lives in {@code class-archives} beside the {@code lib} directory of the jars that run the suite
 * ({@code verbatim-cli/target/class-archives}), so {@code mvn clean} removes it; there is none when the
 * classes come from a directory (tests: the JVM cannot archive a directory on the class path), or with
 * {@code -D}{@value #PROPERTY}{@code =off}; {@code -D}{@value #PROPERTY}{@code =DIR} puts it in DIR.
 * Immutable; {@link #make} once, after the children that wrote lists are gone.
 *
 * @param dir where the archive (and the class lists before it) are
 * @param libraries the class path's jars that are not the project's, in the children's order
 * @param own the project's jars, after the libraries on the children's class path
 * @param fingerprint the JDK's and the libraries' (their paths, sizes and times), in the archive's name
 */
public record ClassArchive(Path dir, List<Path> libraries, List<Path> own, String fingerprint) {
    /** System property: {@code off}, or the directory of the archive (default: see the class comment). */
    public static final String PROPERTY = "verbatim.bench.classArchives";
    /** The project's classes, which the archive leaves out (their jars change with every build). */
    static final String OWN_PACKAGE = "dev/verbatim/";

    /** The archive file. */
    public Path file() {
        return dir.resolve("libraries-" + fingerprint + ".jsa");
    }

    /** Where the children of a run without the archive write the classes they load. */
    Path lists() {
        return dir.resolve("classes-" + fingerprint);
    }

    /** Whether the archive has been made (the children map it), or is still to make (they list their classes). */
    public boolean made() {
        return Files.isRegularFile(file());
    }

    /**
     * The flags of the child labelled {@code label}: map the archive, or, while there is none, write the
     * names of the classes it loads to a list of its own.
     */
    public List<String> flags(String label) {
        if (made()) {
            return List.of("-XX:SharedArchiveFile=" + file());
        }
        return List.of("-XX:DumpLoadedClassList=" + lists().resolve(label.replaceAll("[^A-Za-z0-9]+", "-") + ".classlist"));
    }

    /** The children's class path: the libraries' jars, then the project's. */
    public String classPath() {
        return Stream.concat(libraries.stream(), own.stream()).map(Path::toString).collect(Collectors.joining(File.pathSeparator));
    }

    /** The flags of {@code archive}'s child {@code label}: none without an archive. */
    public static List<String> flags(Optional<ClassArchive> archive, String label) {
        return archive.map(a -> a.flags(label)).orElse(List.of());
    }

    /** The children's class path with {@code archive}: its order, or this JVM's without one. */
    public static String classPath(Optional<ClassArchive> archive) {
        return archive.map(ClassArchive::classPath).orElse(System.getProperty("java.class.path"));
    }

    /**
     * The archive of this JVM's children (its directory created, the archives and lists of other
     * fingerprints deleted), or empty when they use none: off by {@value #PROPERTY}, an entry of the class
     * path that is not a jar, a directory that cannot be written.
     */
    public static Optional<ClassArchive> forThisJvm() {
        String p = System.getProperty(PROPERTY);
        List<Path> cp = Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(s -> !s.isEmpty()).map(Path::of).toList();
        if ("off".equals(p) || cp.isEmpty() || !cp.stream().allMatch(ClassArchive::isJar)) {
            return Optional.empty();
        }
        Optional<Path> dir = p != null && !p.isBlank() ? Optional.of(Path.of(p)) : beside(codeSource());
        if (dir.isEmpty()) {
            return Optional.empty();
        }
        try {
            Files.createDirectories(dir.get());
            if (!Files.isWritable(dir.get())) {
                return Optional.empty();
            }
            ClassArchive a = of(dir.get(), cp);
            a.prune();
            if (!a.made()) {
                Files.createDirectories(a.lists());
            }
            return Optional.of(a);
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The archive in {@code dir} for class path {@code cp}: its jars split into the libraries' and the project's. */
    static ClassArchive of(Path dir, List<Path> cp) throws IOException {
        List<Path> libraries = new ArrayList<>();
        List<Path> own = new ArrayList<>();
        for (Path p : cp) {
            (p.getFileName().toString().startsWith("verbatim-") ? own : libraries).add(p.toAbsolutePath());
        }
        return new ClassArchive(dir, libraries, own, fingerprint(libraries));
    }

    /** {@code class-archives} beside the directory of the jar {@code self} (this class's), or none for a class directory. */
    static Optional<Path> beside(Path self) {
        if (self == null || !isJar(self)) {
            return Optional.empty();
        }
        Path lib = self.toAbsolutePath().getParent();
        return lib == null || lib.getParent() == null ? Optional.empty() : Optional.of(lib.getParent().resolve("class-archives"));
    }

    static boolean isJar(Path p) {
        return p.getFileName() != null && p.getFileName().toString().endsWith(".jar") && Files.isRegularFile(p);
    }

    /** What the archive depends on: the JDK, and each library jar's path, size and time (16 hex digits). */
    static String fingerprint(List<Path> libraries) throws IOException {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            update(d, System.getProperty("java.home") + "|" + System.getProperty("java.vm.version"));
            for (Path p : libraries) {
                update(d, p + "|" + Files.size(p) + "|" + Files.getLastModifiedTime(p).toMillis());
            }
            return HexFormat.of().formatHex(d.digest(), 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void update(MessageDigest d, String s) {
        d.update(s.getBytes(StandardCharsets.UTF_8));
        d.update((byte) 0);
    }

    /** Deletes the archives and class lists of other fingerprints (another JDK, other library jars). */
    void prune() {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.toList()) {
                String n = f.getFileName().toString();
                if ((n.startsWith("libraries-") || n.startsWith("classes-")) && !n.contains(fingerprint)) {
                    ScratchDir.deleteTree(f);
                }
            }
        } catch (IOException e) {
            // what is left behind costs disk only
        }
    }

    /**
     * The class list of the archive from the children's lists: each class and each lambda line once, the
     * project's left out, the lists' ids dropped (each list numbers its classes from 0; the JDK needs ids only
     * for classes of other class loaders, which it cannot archive from a list anyway).
     */
    static List<String> join(List<List<String>> lists) {
        Set<String> lines = new LinkedHashSet<>();
        for (List<String> list : lists) {
            for (String l : list) {
                if (l.isBlank() || l.startsWith("#") || l.contains(OWN_PACKAGE) || l.contains(" source: ")) {
                    continue;
                }
                int id = l.indexOf(" id: ");
                lines.add(id < 0 ? l : l.substring(0, id));
            }
        }
        return new ArrayList<>(lines);
    }

    /**
     * Makes the archive from the lists the children of this run wrote (when there is none yet and they wrote
     * some): one JVM with the children's {@code flags}, {@code -Xshare:dump}, the libraries' class path; the
     * lists deleted after. Says what it did on {@code err}; a failure leaves no archive (the next run lists
     * again) and does not throw.
     */
    public void make(List<String> flags, PrintStream err) {
        if (made()) {
            return;
        }
        long t0 = System.nanoTime();
        Path classes = dir.resolve("classes-" + fingerprint + ".txt");
        Path partial = dir.resolve("libraries-" + fingerprint + ".jsa.partial");
        try {
            List<List<String>> lists = new ArrayList<>();
            try (Stream<Path> files = Files.list(lists())) {
                for (Path f : files.filter(f -> f.toString().endsWith(".classlist")).toList()) {
                    lists.add(Files.readAllLines(f, StandardCharsets.UTF_8));
                }
            }
            if (lists.isEmpty()) {
                return;
            }
            List<String> joined = join(lists);
            Files.write(classes, joined, StandardCharsets.UTF_8);
            List<String> cmd = new ArrayList<>();
            cmd.add(ChildProcess.javaBinary());
            cmd.addAll(flags);
            cmd.addAll(List.of("-Xshare:dump", "-XX:SharedClassListFile=" + classes, "-XX:SharedArchiveFile=" + partial,
                    "-cp", libraries.stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator))));
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
                err.println("verbatim bench: the class archive was not made within 120 s");
            } else if (p.exitValue() != 0 || !Files.isRegularFile(partial)) {
                err.println("verbatim bench: the class archive could not be made (exit " + p.exitValue() + ")");
            } else {
                Files.move(partial, file(), StandardCopyOption.ATOMIC_MOVE);
                err.printf(Locale.ROOT, "verbatim bench: made the class archive the next runs' processes start from"
                                + " (%,d classes of the JDK and the libraries, once per JDK and library jars) in %.1f s%n",
                        joined.size(), (System.nanoTime() - t0) / 1e9);
            }
        } catch (IOException e) {
            err.println("verbatim bench: the class archive could not be made: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            ScratchDir.deleteTree(lists());
            try {
                Files.deleteIfExists(classes);
                Files.deleteIfExists(partial);
            } catch (IOException e) {
                // costs disk only
            }
        }
    }

    private static Path codeSource() {
        try {
            var src = ClassArchive.class.getProtectionDomain().getCodeSource();
            return src == null ? null : Path.of(src.getLocation().toURI());
        } catch (URISyntaxException | SecurityException | IllegalArgumentException e) {
            return null;
        }
    }
}
