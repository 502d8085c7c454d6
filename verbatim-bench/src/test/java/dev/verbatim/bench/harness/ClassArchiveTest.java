package dev.verbatim.bench.harness;

import com.esotericsoftware.minlog.Log;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarOutputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The class-data archive of a suite's children: made from the classes they listed, without the project's
 * own; a child maps it on a class path that goes on with the project's jars, rebuilt or not, and not once a
 * library jar changed; none when the classes come from directories (as in this test JVM). No timing.
 */
class ClassArchiveTest {

    /** An empty jar named {@code name} in {@code dir} (a project's jar, rebuilt by writing it again). */
    private static Path jar(Path dir, String name) throws IOException {
        Path p = dir.resolve(name);
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(p))) {
            out.flush();
        }
        return p;
    }

    @Test
    void theProjectsJarsGoLastAndOnlyTheLibrariesMakeTheFingerprint(@TempDir Path dir) throws Exception {
        Path lib = jar(dir, "kryo-5.jar");
        Path own = jar(dir, "verbatim-rpc-0.1.jar");
        Path cli = jar(dir, "verbatim-cli-0.1.jar");
        ClassArchive a = ClassArchive.of(dir, List.of(cli, lib, own));
        assertEquals(List.of(lib.toAbsolutePath()), a.libraries());
        assertEquals(List.of(cli.toAbsolutePath(), own.toAbsolutePath()), a.own());
        assertEquals(lib.toAbsolutePath() + java.io.File.pathSeparator + cli.toAbsolutePath() + java.io.File.pathSeparator
                + own.toAbsolutePath(), a.classPath());
        Files.setLastModifiedTime(own, FileTime.fromMillis(Files.getLastModifiedTime(own).toMillis() + 60_000)); // rebuilt
        assertEquals(a.fingerprint(), ClassArchive.of(dir, List.of(cli, lib, own)).fingerprint(), "a project jar changed it");
        Files.setLastModifiedTime(lib, FileTime.fromMillis(Files.getLastModifiedTime(lib).toMillis() + 60_000));
        assertNotEquals(a.fingerprint(), ClassArchive.of(dir, List.of(cli, lib, own)).fingerprint(), "a library changed");
    }

    @Test
    void withoutTheArchiveAChildListsItsClassesAndWithItMapsIt(@TempDir Path dir) throws Exception {
        ClassArchive a = ClassArchive.of(dir, List.of(jar(dir, "lib.jar")));
        assertFalse(a.made());
        String list = a.flags("server tcp/grpc").getFirst();
        assertEquals("-XX:DumpLoadedClassList=" + a.lists().resolve("server-tcp-grpc.classlist"), list);
        Files.writeString(a.file(), "made");
        assertEquals(List.of("-XX:SharedArchiveFile=" + a.file()), a.flags("server tcp/grpc"));
    }

    @Test
    void theListsJoinWithoutTheProjectsClassesTheirIdsOrTwins() {
        List<String> joined = ClassArchive.join(List.of(
                List.of("# a comment", "java/lang/Object id: 0", "dev/verbatim/rpc/Node id: 1", "io/grpc/Channel id: 2",
                        "@lambda-proxy dev/verbatim/rpc/Node run ()Ljava/lang/Runnable;",
                        "@lambda-form-invoker [LF_RESOLVE] java.lang.invoke.DirectMethodHandle$Holder invokeStatic L_L"),
                List.of("java/lang/Object id: 0", "io/grpc/Channel id: 7", "com/example/Foo id: 3 super: 0 source: /x.jar")));
        assertEquals(List.of("java/lang/Object", "io/grpc/Channel",
                "@lambda-form-invoker [LF_RESOLVE] java.lang.invoke.DirectMethodHandle$Holder invokeStatic L_L"), joined);
    }

    @Test
    void noArchiveWhenTheClassesComeFromADirectory() {
        // this JVM's class path has target/classes and target/test-classes
        assertTrue(ClassArchive.forThisJvm().isEmpty());
        assertEquals(System.getProperty("java.class.path"), ClassArchive.classPath(ClassArchive.forThisJvm()));
    }

    /** Runs a JVM that must map {@code archive} ({@code -Xshare:on} fails it otherwise); its exit code. */
    private static int mapWith(Path archive, String classPath) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(ChildProcess.javaBinary()));
        cmd.addAll(ChildProcess.BASE_FLAGS);
        cmd.addAll(List.of("-Xshare:on", "-XX:SharedArchiveFile=" + archive, "-cp", classPath, "-version"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the JVM did not end");
        return p.exitValue();
    }

    @Test
    @Timeout(120)
    void theArchiveOutlivesARebuildOfTheProjectButNotANewLibrary(@TempDir Path dir) throws Exception {
        Path lib = dir.resolve("minlog.jar"); // a library's jar, copied so that the test can change it
        Files.copy(Path.of(Log.class.getProtectionDomain().getCodeSource().getLocation().toURI()), lib);
        Path own = jar(dir, "verbatim-demo.jar");
        ClassArchive a = ClassArchive.of(dir, List.of(own, lib));
        Files.createDirectories(a.lists());
        Files.writeString(a.lists().resolve("one.classlist"), "java/lang/Object id: 0\ncom/esotericsoftware/minlog/Log id: 1\n"
                + "dev/verbatim/rpc/Node id: 2\n");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        a.make(ChildProcess.BASE_FLAGS, new PrintStream(err, true, StandardCharsets.UTF_8));
        assertTrue(a.made(), "no archive: " + err);
        assertFalse(Files.exists(a.lists()), "the class lists were kept");
        assertEquals(0, mapWith(a.file(), a.classPath()), "a child on the archive's class path did not map it");
        Files.setLastModifiedTime(own, FileTime.fromMillis(Files.getLastModifiedTime(own).toMillis() + 60_000));
        assertEquals(0, mapWith(a.file(), a.classPath()), "a rebuilt project jar made the archive unusable");
        Files.setLastModifiedTime(lib, FileTime.fromMillis(Files.getLastModifiedTime(lib).toMillis() + 60_000));
        assertNotEquals(0, mapWith(a.file(), a.classPath()), "an archive of another library jar was mapped");
    }
}
