package dev.verbatim.transport;

import dev.verbatim.transport.internal.ShmTransport;
import dev.verbatim.transport.internal.TcpTransport;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Objects;

/**
 * Opens connections by address:
 * <ul>
 *   <li>{@code shm:NAME}: processes on this host through shared memory (files in a directory of the user's
 *       own: {@code $XDG_RUNTIME_DIR/verbatim}, else {@code /dev/shm/verbatim-UID}, or
 *       {@code -Dverbatim.shm.dir}); NAME is 1-64 characters of {@code A-Z a-z 0-9 . _ -}.</li>
 *   <li>{@code tcp://HOST:PORT}: TCP. A listener with an empty host or {@code localhost}
 *       ({@code tcp://:0}, {@code tcp://localhost:7000}) binds to loopback only; give an address
 *       ({@code tcp://0.0.0.0:7000}) to accept from other machines. Port 0 picks a free port; the
 *       listener's {@link Listener#address()} tells which.</li>
 * </ul>
 */
public final class Transport {
    private Transport() {}

    /** Listens at {@code address} with {@link ConnectionOptions#DEFAULT}. */
    public static Listener listen(String address) {
        return listen(address, ConnectionOptions.DEFAULT);
    }

    /**
     * Listens at {@code address}; accepted connections get {@code options} (their receive window,
     * timeouts, waiting).
     *
     * @throws IllegalArgumentException if the address is malformed
     * @throws TransportException {@code CONNECT} if a live listener already serves an {@code shm}
     *         name, {@code TIMEOUT} if other processes kept the name's lock file busy for the connect
     *         timeout (rare: a sweep or a listen holds it for microseconds), {@code IO} if the port or
     *         socket cannot be bound
     */
    public static Listener listen(String address, ConnectionOptions options) {
        Objects.requireNonNull(options, "options");
        if (address.startsWith("shm:")) {
            return ShmTransport.listen(address.substring(4), options);
        }
        return TcpTransport.listen(tcp(address, true), options);
    }

    /** Connects to {@code address} with {@link ConnectionOptions#DEFAULT}. */
    public static Connection connect(String address) {
        return connect(address, ConnectionOptions.DEFAULT);
    }

    /**
     * Connects to the listener at {@code address}, waiting at most the connect timeout.
     *
     * @throws IllegalArgumentException if the address is malformed
     * @throws TransportException {@code CONNECT} if nobody listens there or the handshake is
     *         refused, {@code TIMEOUT} if it takes too long
     */
    public static Connection connect(String address, ConnectionOptions options) {
        Objects.requireNonNull(options, "options");
        if (address.startsWith("shm:")) {
            return ShmTransport.connect(address.substring(4), options);
        }
        return TcpTransport.connect(tcp(address, false), address, options);
    }

    private static InetSocketAddress tcp(String address, boolean listening) {
        if (!address.startsWith("tcp://")) {
            throw new IllegalArgumentException("unknown address '" + address + "': use shm:NAME or tcp://HOST:PORT");
        }
        String rest = address.substring(6);
        int colon = rest.lastIndexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("address '" + address + "' has no port: use tcp://HOST:PORT");
        }
        String host = rest.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(rest.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("address '" + address + "' has a malformed port");
        }
        if (port < 0 || port > 65535 || (!listening && port == 0)) {
            throw new IllegalArgumentException("address '" + address + "' has port " + port + " out of range");
        }
        try {
            InetAddress ip = host.isEmpty() || host.equals("localhost")
                    ? InetAddress.getLoopbackAddress() : InetAddress.getByName(host);
            return new InetSocketAddress(ip, port);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("address '" + address + "': unknown host " + host);
        }
    }
}
