package dev.verbatim.rpc.internal;

import dev.verbatim.rpc.Node;
import dev.verbatim.transport.ConnectionOptions;

import java.lang.invoke.MethodHandles;

/**
 * How the object layer reaches what {@link Node} keeps private (the JDK's "shared secrets" pattern): a
 * node with a {@link NodeExtension} and node-wide chains, and the connections a node keeps to an
 * address. {@code Node} installs the implementation when it is initialised; this package is exported
 * to the object module only.
 */
public final class NodeAccess {
    private NodeAccess() {}

    /** What {@code Node} offers the object layer. */
    public interface Nodes {
        /** A node listening at {@code addresses}, with the object layer {@code extension} and chains across connections. */
        Node listen(ConnectionOptions options, NodeExtension extension, String... addresses);

        /** The open connections of {@code node} to {@code address} (made if there are none), as a lookup uses them. */
        Endpoint[] connect(Node node, String address);

        /**
         * A new connection of {@code node} to {@code address}, shared with nothing (lookups and proxies use
         * {@link #connect}'s): the object layer asks for weight over one, so that request never waits for a
         * send lock a result being written holds.
         */
        Endpoint connectApart(Node node, String address);

        /** Messages {@code node} received over its connections open now. */
        long messagesReceived(Node node);

        /** How often a thread waiting on one of {@code node}'s connections open now parked (for tests that count them). */
        long parks(Node node);
    }

    /**
     * Starts {@code e}'s dispatcher if it has none (a connection this node made): the connection is then read
     * when no caller reads it, as a server's is, so its closing (the peer closed or died) is seen at once
     * and not at the next call. The object layer watches its connections this way to learn of deaths.
     */
    public static void watch(Endpoint e) {
        e.dispatcher().ensureStarted();
    }

    /**
     * Makes the connection the calling thread's innermost incoming call arrived over {@linkplain Endpoint#quiet quiet}
     * (nothing if the thread runs no incoming call): a base serving a weight request learns so which of its
     * connections carries nothing else.
     */
    public static void quietArrival() {
        Endpoint e = CallContext.current().arrivedOver;
        if (e != null) {
            e.quiet();
        }
    }

    private static volatile Nodes nodes;

    /** Installed once, by {@code Node}'s initialisation. */
    public static void install(Nodes n) {
        if (nodes != null) {
            throw new IllegalStateException("installed already");
        }
        nodes = n;
    }

    /** The node operations (initialises {@code Node} if needed). */
    public static Nodes nodes() {
        Nodes n = nodes;
        if (n == null) {
            try {
                MethodHandles.lookup().ensureInitialized(Node.class);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
            n = nodes;
        }
        return n;
    }
}
