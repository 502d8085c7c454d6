package dev.verbatim.transport.internal;

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
        LOG.log(Level.WARNING, "dropped a connector at {0}: {1}", where, reason);
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
