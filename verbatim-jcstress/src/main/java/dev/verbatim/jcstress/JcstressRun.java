package dev.verbatim.jcstress;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs jcstress ({@code org.openjdk.jcstress.Main}) in a child JVM with a hard timeout and reads its verdicts: the
 * status of every test ({@code OK}, {@code FAILED}: a forbidden or unknown outcome was seen, {@code ERROR}) and the
 * samples of each forbidden outcome, from the summary jcstress prints after the run ({@code -v} makes it print every
 * test there). jcstress itself forks a JVM per test and configuration; it exits 1 after its report when a test
 * failed, which says nothing of which, so the verdicts are read here. The child and its forks are killed if the run
 * overruns.
 */
public final class JcstressRun {

    /** What one run found. */
    public record Result(Map<String, String> statuses, Map<String, Map<String, Long>> forbidden, String output) {
        /** Samples of forbidden outcomes seen for {@code test} (0 if none, or the test did not run). */
        public long forbiddenSamples(String test) {
            return forbidden.getOrDefault(test, Map.of()).values().stream().mapToLong(Long::longValue).sum();
        }
    }

    /** The tests the annotation processor found, from jcstress's list on the class path, in its order. */
    public static List<String> tests() {
        List<String> tests = new ArrayList<>();
        try (InputStream in = JcstressRun.class.getResourceAsStream("/META-INF/TestList")) {
            if (in == null) {
                throw new IllegalStateException("no META-INF/TestList: jcstress's annotation processor did not run");
            }
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            Pattern head = Pattern.compile("^JCTEST(\\d+)S");
            for (String line; (line = r.readLine()) != null; ) {
                Matcher m = head.matcher(line);
                if (m.find()) {
                    tests.add(line.substring(m.end(), m.end() + Integer.parseInt(m.group(1))));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return tests;
    }

    /**
     * Runs jcstress with {@code args} on {@code classpath} in {@code workDir} (its report and result blob go there),
     * echoing its output to {@code echo} (may be null), for at most {@code timeout}.
     */
    public static Result run(String classpath, List<String> args, Path workDir, Duration timeout, PrintStream echo)
            throws IOException, InterruptedException {
        Files.createDirectories(workDir);
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("--enable-native-access=ALL-UNNAMED");
        command.add("-cp");
        command.add(classpath);
        command.add("org.openjdk.jcstress.Main");
        command.addAll(args);
        command.add("-v");
        Process p = new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true).start();
        StringBuilder out = new StringBuilder();
        Thread pump = Thread.ofPlatform().daemon().name("jcstress-output").start(() -> {
            try (BufferedReader r = p.inputReader(StandardCharsets.UTF_8)) {
                for (String line; (line = r.readLine()) != null; ) {
                    synchronized (out) {
                        out.append(line).append('\n');
                    }
                    if (echo != null) {
                        echo.println(line);
                    }
                }
            } catch (IOException e) {
                // the process was killed: what was read is kept
            }
        });
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("jcstress did not finish within " + timeout + "; killed it");
            }
        } finally {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
            pump.join(10_000);
        }
        String text;
        synchronized (out) {
            text = out.toString();
        }
        if (p.exitValue() != 0 && !text.contains("RUN RESULTS:")) { // it exits 1 after its report when a test failed
            throw new IllegalStateException("jcstress exited with " + p.exitValue() + ":\n" + tail(text));
        }
        return parse(text);
    }

    private static final Pattern VERDICT = Pattern.compile("^\\.+ \\[(\\w+)] (\\S+)\\s*$");
    private static final Pattern ROW = Pattern.compile("^\\s+(.+?)\\s+([\\d,]+)\\s+(?:<?[\\d.]+%)\\s+Forbidden\\s.*$");

    /** Reads the verdicts after {@code RUN RESULTS:} (the per-configuration reports before it repeat them). */
    static Result parse(String text) {
        int summary = text.lastIndexOf("RUN RESULTS:");
        if (summary < 0) {
            throw new IllegalStateException("jcstress printed no results:\n" + tail(text));
        }
        Map<String, String> statuses = new LinkedHashMap<>();
        Map<String, Map<String, Long>> forbidden = new LinkedHashMap<>();
        String current = null;
        for (String line : text.substring(summary).split("\n")) {
            Matcher v = VERDICT.matcher(line);
            if (v.matches()) {
                current = v.group(2);
                statuses.put(current, v.group(1));
                continue;
            }
            Matcher row = ROW.matcher(line);
            if (current != null && row.matches()) {
                long samples = Long.parseLong(row.group(2).replace(",", ""));
                forbidden.computeIfAbsent(current, k -> new LinkedHashMap<>()).merge(row.group(1), samples, Long::sum);
            }
        }
        return new Result(statuses, forbidden, text);
    }

    private static String tail(String text) {
        return text.length() <= 4000 ? text : "..." + text.substring(text.length() - 4000);
    }

    private JcstressRun() {}
}
