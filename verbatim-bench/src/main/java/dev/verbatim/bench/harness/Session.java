package dev.verbatim.bench.harness;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one side of a contender gets in its process: a private directory, a name unique to the
 * run, the largest message size, and the properties the first side published for the second (a
 * TCP port, a file name). The first side (pong, consumer) {@linkplain #publish publishes}; the
 * harness prints those on the side's ready line, and the parent passes them to the second side
 * (ping, producer), where {@link #get} returns them.
 *
 * <p>The directory is created by the parent process, owner-only, under {@code /dev/shm} where it
 * exists (else under {@code java.io.tmpdir}), and deleted by the parent after the run whatever
 * happens: files a contender puts there need no cleanup of their own.
 */
public final class Session {
    /** Property keys set by the harness itself. */
    static final String DIR = "dir";
    static final String NAME = "name";
    static final String MAX_SIZE = "maxSize";
    /** Property key of {@link #replyMax()}. */
    public static final String REPLY_MAX = "replyMax";

    private final Map<String, String> props;
    private final Map<String, String> published = new LinkedHashMap<>();

    /**
     * A session of the given properties: in a child, its {@code key=value} arguments; in a test or
     * an in-process side, the harness's properties plus what the first side published.
     */
    public Session(Map<String, String> props) {
        this.props = Map.copyOf(props);
    }

    /**
     * The harness's properties for one contender's run: its directory, a name unique to the run,
     * the largest message, and the deadline of its child processes (ms).
     */
    public static Map<String, String> properties(Path dir, int maxSize, long deadlineMillis) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(DIR, dir.toString());
        m.put(NAME, "vb" + ProcessHandle.current().pid() + "-" + ScratchDir.nextRun());
        m.put(MAX_SIZE, Integer.toString(maxSize));
        m.put(ChildMain.DEADLINE, Long.toString(deadlineMillis));
        return m;
    }

    /** A private directory for this contender's run (shared by its two processes). */
    public Path dir() {
        return Path.of(require(DIR));
    }

    /** A name unique to this contender's run, usable as a file or shm name ({@code [a-z0-9-]}). */
    public String name() {
        return require(NAME);
    }

    /** The largest message size (bytes) this run sends or streams. */
    public int maxSize() {
        return Integer.parseInt(require(MAX_SIZE));
    }

    /**
     * The longest echo (bytes): a ping-pong's pong sends back the first {@code min(size, replyMax)}
     * bytes of each message, and the ping expects that many. Unbounded in the transport suite (a
     * full echo); the rpc suite sets it to 8, so its floor is a call whose result is a word:
     * the request carries the argument bytes, the reply one word. Property {@value #REPLY_MAX}.
     */
    public int replyMax() {
        String v = props.get(REPLY_MAX);
        return v == null ? Integer.MAX_VALUE : Integer.parseInt(v);
    }

    /** A property given by the harness or published by the first side, or null. */
    public String get(String key) {
        return props.get(key);
    }

    /** A property that must be there. */
    public String require(String key) {
        String v = props.get(key);
        if (v == null) {
            throw new IllegalStateException("no session property '" + key + "' (have " + props.keySet() + ")");
        }
        return v;
    }

    /**
     * Publishes a property for the second side (first side only, before its setup returns). Keys
     * and values must not contain spaces or '='.
     */
    public void publish(String key, String value) {
        if (key.isEmpty() || (key + value).matches(".*[\\s=].*")) {
            throw new IllegalArgumentException("no spaces or '=' in a published property: " + key + "=" + value);
        }
        published.put(key, value);
    }

    Map<String, String> published() {
        return Collections.unmodifiableMap(published);
    }
}
