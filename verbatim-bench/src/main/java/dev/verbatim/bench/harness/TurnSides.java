package dev.verbatim.bench.harness;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A contender's two processes in a suite whose contenders take turns (the transport suite's pairs,
 * the rpc suite's client and server), up for the whole run: the {@code first} side starts first and
 * waits (pong, consumer, server), the {@code second} drives the turns (ping, producer, client);
 * {@code error} once it failed: its processes are then closed and it takes no more turns. Used by
 * the suite's own thread only.
 */
public class TurnSides {
    public final String id;
    /** Its private session directory, deleted by {@link #close()}. */
    public Path dir;
    public ChildProcess first;
    public ChildProcess second;
    /** The second side's round trips so far (a spinning first side is paused after a given echo). */
    public long trips;
    public String error;

    public TurnSides(String id) {
        this.id = id;
    }

    /**
     * Starts both sides of {@code contender} with main class {@code main}: the first in role
     * {@code firstRole} with {@code common}, waiting for its {@code READY}; then the second in role
     * {@code secondRole} with {@code common} plus what the first published on its ready line,
     * waiting for its {@code READY}. Each wait is bounded by {@code ready}.
     */
    public void start(Contender contender, Class<?> main, String firstRole, String secondRole, Map<String, String> common,
                      Duration ready) throws Exception {
        String firstLabel = firstRole + " " + id;
        first = ChildProcess.start(firstLabel, flags(contender, firstLabel), classPath(), main.getName(),
                ChildMain.args(firstRole, id, common));
        Map<String, String> secondArgs = new LinkedHashMap<>(common);
        secondArgs.putAll(ChildMain.props(first.awaitLine("READY", ready).getLast()));
        String secondLabel = secondRole + " " + id;
        second = ChildProcess.start(secondLabel, flags(contender, secondLabel), classPath(), main.getName(),
                ChildMain.args(secondRole, id, secondArgs));
        second.awaitLine("READY", ready);
    }

    /** The JVM flags of {@code contender}'s process labelled {@code label}: the contender's own by default. */
    protected List<String> flags(Contender contender, String label) {
        return contender.jvmFlags();
    }

    /** The class path of its processes: this JVM's by default. */
    protected String classPath() {
        return System.getProperty("java.class.path");
    }

    public boolean ok() {
        return error == null;
    }

    /** Records why it failed, says so on {@code err} and closes its processes. */
    public void fail(Exception e, PrintStream err) {
        error = String.valueOf(e.getMessage());
        err.println("  FAILED: " + id + ": " + error);
        close();
    }

    /** Closes its processes (the second side first) and deletes its directory. */
    public void close() {
        for (ChildProcess c : new ChildProcess[] {second, first}) {
            if (c != null) {
                c.close();
            }
        }
        if (dir != null) {
            ScratchDir.deleteTree(dir);
        }
    }

    /** The mean of each key's CPU shares, in the map's order ({@code NaN} for none). */
    public static <K> Map<K, Double> meanShares(Map<K, List<Double>> shares, Map<K, Double> into) {
        shares.forEach((k, v) -> into.put(k, v.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN)));
        return into;
    }
}
