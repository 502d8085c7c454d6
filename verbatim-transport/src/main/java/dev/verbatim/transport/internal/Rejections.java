package dev.verbatim.transport.internal;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Connectors a listener dropped during the handshake, and why: logged through
 * {@link System.Logger} (name {@code dev.verbatim.transport}) at {@code WARNING}, and counted.
 */
public final class Rejections {
    private Rejections() {}

    private static final Logger LOG = System.getLogger("dev.verbatim.transport");
    private static final AtomicLong COUNT = new AtomicLong();
    private static volatile String last;

    static void record(String where, String reason) {
        COUNT.incrementAndGet();
        last = where + ": " + reason;
        log("dropped a connector at {0}: {1}", where, reason);
    }

    /** A listener's {@code accept} failed ({@code EMFILE}, ...): logged; the listener retries after {@code backoffMs}. */
    static void acceptFailed(String where, IOException e, long backoffMs) {
        log("accepting at {0} failed ({1}): trying again in {2} ms", where, e.getMessage(), backoffMs);
    }

    /**
     * Logs at {@code WARNING}, never failing: these are called on the listener's failure paths, where
     * a logger that cannot log (its first record opens files, and descriptors may be what ran out)
     * must not end the accept loop or a handshake's cleanup.
     */
    private static void log(String format, Object... args) {
        try {
            LOG.log(Level.WARNING, format, args);
        } catch (RuntimeException | Error ignored) {
            // counted all the same; the log line is lost
        }
    }

    /** How many connectors listeners of this process dropped. */
    public static long count() {
        return COUNT.get();
    }

    /** The last reason, or null. */
    public static String last() {
        return last;
    }
}
