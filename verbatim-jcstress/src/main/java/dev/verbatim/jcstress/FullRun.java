package dev.verbatim.jcstress;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code ./verbatim jcstress [jcstress options]}: the full run of every test outside the {@code broken} package,
 * with jcstress's default preset (every JVM configuration it finds: the interpreter, C1, C2, split per-actor
 * compilation, C2's stress flags; several forks and iterations) unless options say otherwise (for example
 * {@code -m quick}, {@code -m stress}, {@code -time 2000}; a {@code -t REGEX} of one's own replaces the selection,
 * and can pick the broken test too). Prints jcstress's report and exits 1 if any test saw a forbidden outcome or
 * failed to run. The HTML report goes to {@code verbatim-jcstress/target/jcstress-full}.
 */
public final class FullRun {
    /** The tests of the protocols: this package, not {@code broken}. */
    static final String TESTS = "^dev\\.verbatim\\.jcstress\\.[A-Z]";

    public static void main(String[] args) throws Exception {
        Path work = Path.of(System.getProperty("verbatim.jcstress.dir", "verbatim-jcstress/target/jcstress-full"));
        List<String> given = List.of(args);
        List<String> options = new ArrayList<>(given);
        if (!given.contains("-t")) { // jcstress takes each option once
            options.addAll(List.of("-t", TESTS));
        }
        if (!given.contains("-r")) {
            options.addAll(List.of("-r", work.resolve("results").toString()));
        }
        JcstressRun.Result result = JcstressRun.run(System.getProperty("java.class.path"), options, work,
                Duration.ofHours(12), System.out);
        int bad = 0;
        for (Map.Entry<String, String> e : result.statuses().entrySet()) {
            if (!e.getValue().equals("OK")) {
                System.out.println("verbatim jcstress: " + e.getKey() + " " + e.getValue()
                        + (result.forbiddenSamples(e.getKey()) > 0
                                ? " (forbidden outcomes: " + result.forbidden().get(e.getKey()) + ")" : ""));
                bad++;
            }
        }
        if (result.statuses().isEmpty()) {
            System.out.println("verbatim jcstress: no test ran");
            bad++;
        }
        System.out.println("verbatim jcstress: " + result.statuses().size() + " tests, " + bad + " not OK; report in "
                + work.resolve("results").toAbsolutePath());
        System.exit(bad == 0 ? 0 : 1);
    }

    private FullRun() {}
}
