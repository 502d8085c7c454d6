package dev.verbatim.bench.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/** What every report says about the machine it ran on. */
public final class Host {
    private Host() {}

    /** The host's 1-minute load average (NaN where unknown): above ~2 on a 2-core host, spinning sides get descheduled. */
    public static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    /** {@code JVM version (vm name), arch, N CPUs}: the start of every report's second line. */
    public static String jvm() {
        return String.format(Locale.ROOT, "JVM %s (%s), %s, %d CPUs", System.getProperty("java.vm.version"),
                System.getProperty("java.vm.name"), System.getProperty("os.arch"),
                Runtime.getRuntime().availableProcessors());
    }

    /** The implementation version in the jar manifest of {@code c}'s package, or {@code fallback} where it has none. */
    public static String version(Class<?> c, String fallback) {
        Package p = c.getPackage();
        String v = p == null ? null : p.getImplementationVersion();
        return v == null ? fallback : v;
    }
}
